package io.keepsake.tool.internal;

import io.keepsake.tool.ToolUsageException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SavepointPathTest {

    @Test
    void aLocalPathSplitsIntoRootJobAndSavepoint() {
        SavepointPath p = SavepointPath.parse("/data/keepsake/savepoint/700/sp-1/");

        assertThat(p.local()).isTrue();
        assertThat(p.savepointRoot()).isEqualTo("/data/keepsake/savepoint");
        assertThat(p.namespace()).isEqualTo("/data/keepsake");
        assertThat(p.jobId()).isEqualTo("700");
        assertThat(p.savepointId()).isEqualTo("sp-1");
        assertThat(p.fileSystemUri()).isNull();
    }

    @Test
    void anHdfsUriKeepsItsAddress() {
        SavepointPath p = SavepointPath.parse("hdfs://nn:8020/st/checkpoint/savepoint/700/sp-1");

        assertThat(p.local()).isFalse();
        assertThat(p.fileSystemUri()).isEqualTo("hdfs://nn:8020");
        assertThat(p.savepointRoot()).isEqualTo("hdfs://nn:8020/st/checkpoint/savepoint");
        assertThat(p.namespace()).isEqualTo("hdfs://nn:8020/st/checkpoint");
        assertThat(p.jobId()).isEqualTo("700");
    }

    @Test
    void aFileUriIsLocal() {
        SavepointPath p = SavepointPath.parse("file:///data/ns/savepoint/700/sp-1");

        assertThat(p.local()).isTrue();
        assertThat(p.savepointRoot()).isEqualTo("file:///data/ns/savepoint");
    }

    @Test
    void aRelativePathIsResolvedAgainstTheWorkingDirectory() {
        SavepointPath p = SavepointPath.parse("savepoint/700/../700/sp-1", java.nio.file.Path.of("/data/keepsake"));

        assertThat(p.savepointRoot()).isEqualTo("/data/keepsake/savepoint");
        assertThat(p.namespace()).isEqualTo("/data/keepsake");
        assertThat(p.location()).isEqualTo("/data/keepsake/savepoint/700/sp-1");
    }

    @Test
    void theMetadataFileAndPayloadsAreFilesInASavepointOnAnyFileSystem() {
        SavepointPath metadata = SavepointPath.parse("hdfs://nn:8020/st/checkpoint/savepoint/700/sp-1/_metadata.ser");
        SavepointPath payload = SavepointPath.parse("s3://b/st/savepoint/700/sp-1/pipeline-2.wire");

        assertThat(metadata.fileInSavepoint()).isTrue();
        assertThat(payload.fileInSavepoint()).isTrue();
        assertThat(SavepointPath.parse("hdfs://nn:8020/st/checkpoint/savepoint/700/sp-1").fileInSavepoint()).isFalse();
        SavepointPath folder = metadata.folder();
        assertThat(folder.location()).isEqualTo("hdfs://nn:8020/st/checkpoint/savepoint/700/sp-1");
        assertThat(folder.jobId()).isEqualTo("700");
        assertThat(folder.givenFile()).isEqualTo("_metadata.ser");
    }

    @Test
    void idsAreNotPaths() {
        assertThat(SavepointPath.looksLikePath("700000000000000123")).isFalse();
        assertThat(SavepointPath.looksLikePath("/a/b")).isTrue();
        assertThatThrownBy(() -> SavepointPath.parse("hdfs://nn:8020/700/sp-1"))
                .isInstanceOf(ToolUsageException.class).hasMessageContaining("hdfs://nn:8020/700/sp-1");
    }
}
