package io.keepsake.storage.internal;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/diagrams.md names every folder and file the savepoint side writes, and its source reads as plain text. */
class DiagramsNameTheLayoutTest {

    private static final Path DIAGRAMS = Path.of("../docs/diagrams.md");

    @Test
    void theLayoutDiagramNamesEveryFolderAndFileKeepsakeWrites() throws IOException {
        String diagrams = Files.readString(DIAGRAMS);
        assertThat(diagrams).contains(RootMarker.NAME, StorageLayout.INDEX_DIR + "/", StorageLayout.STAGING_DIR + "/",
                MetadataCodec.FILE_NAME, "{attemptId}" + StorageLayout.LEASE_SUFFIX, "{attemptId}" + AttemptOutcome.SUFFIX,
                StorageLayout.payloadName(0, "{attemptId}").replace("0", "{pid}"), "@{savepointId}",
                "{savepointId}.{16 hex}" + SavepointDeletion.RECORD_SUFFIX);
    }

    @Test
    void theMermaidSourceHasNoHtmlEntities() throws IOException {
        assertThat(Files.readString(DIAGRAMS)).doesNotContain("&lt;", "&gt;", "&amp;");
    }
}
