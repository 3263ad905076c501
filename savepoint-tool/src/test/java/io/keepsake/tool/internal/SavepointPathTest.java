package io.keepsake.tool.internal;

import io.keepsake.tool.ToolUsageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SavepointPathTest {

    /** Local, relative (against /data/keepsake), file: and hdfs: paths split into their parts. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            /data/keepsake/savepoint/700/sp-1/             | true  | -              | /data/keepsake/savepoint                | /data/keepsake                | 700 | sp-1
            savepoint/700/../700/sp-1                      | true  | -              | /data/keepsake/savepoint                | /data/keepsake                | 700 | sp-1
            file:///data/ns/savepoint/700/sp-1             | true  | -              | file:///data/ns/savepoint               | file:///data/ns               | 700 | sp-1
            hdfs://nn:8020/st/checkpoint/savepoint/700/sp-1 | false | hdfs://nn:8020 | hdfs://nn:8020/st/checkpoint/savepoint | hdfs://nn:8020/st/checkpoint | 700 | sp-1
            """)
    void aPathSplitsIntoRootJobAndSavepointKeepingItsAddress(String argument, boolean local, String fileSystemUri,
                                                             String savepointRoot, String namespace, String jobId,
                                                             String savepointId) {
        SavepointPath p = SavepointPath.parse(argument, Path.of("/data/keepsake"));

        assertThat(p.local()).isEqualTo(local);
        assertThat(p.fileSystemUri()).isEqualTo(fileSystemUri);
        assertThat(p.savepointRoot()).isEqualTo(savepointRoot);
        assertThat(p.namespace()).isEqualTo(namespace);
        assertThat(p.jobId()).isEqualTo(jobId);
        assertThat(p.savepointId()).isEqualTo(savepointId);
        assertThat(p.location()).isEqualTo(savepointRoot + "/" + jobId + "/" + savepointId);
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
