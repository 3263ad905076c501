package io.keepsake.storage.internal;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/diagrams.md names every folder and file the savepoint side writes, and its source reads as plain text. */
class DiagramsNameTheLayoutTest {

    private static final Path DIAGRAMS = Path.of("../docs/diagrams.md");

    @Test
    void theLayoutDiagramNamesEveryFolderAndFileKeepsakeWrites() throws IOException {
        String diagrams = Files.readString(DIAGRAMS);
        assertThat(diagrams).contains(RootMarker.NAME, StorageLayout.INDEX_DIR + "/", StorageLayout.STAGING_DIR + "/",
                MetadataCodec.FILE_NAME, "{attemptId}" + AttemptId.LEASE_SUFFIX, "{attemptId}" + AttemptId.OUTCOME_SUFFIX,
                AttemptId.payloadName(0, "{attemptId}").replace("0", "{pid}"), "@{savepointId}",
                "{savepointId}.{16 hex}" + SavepointDeletion.RECORD_SUFFIX);
    }

    @Test
    void theIndexMarkerIsDrawnAsTheCodeWritesItWithItsCompletionTime() throws IOException {
        String diagrams = Files.readString(DIAGRAMS);
        Matcher m = Pattern.compile("imark\\[\"([^<\"]+)<br/>").matcher(diagrams);
        assertThat(m.find()).as("the marker node of the layout diagram").isTrue();
        String drawn = m.group(1);
        assertThat(drawn).isEqualTo("{pid}_{checkpointId},...~{completed}@{savepointId}");
        String filledIn = drawn.replace("{pid}_{checkpointId},...", "1_42,2_42").replace("{completed}", "1700000000000")
                .replace("{savepointId}", "sp-1");
        StorageLayout.Marker parsed = StorageLayout.parseMarker(filledIn).orElseThrow();
        assertThat(parsed.completed()).hasValue(1_700_000_000_000L);
        assertThat(parsed.claims()).containsEntry(1, 42L).containsEntry(2, 42L);
        assertThat(parsed.savepointId()).isEqualTo("sp-1");
    }

    @Test
    void theMermaidSourceHasNoHtmlEntities() throws IOException {
        assertThat(Files.readString(DIAGRAMS)).doesNotContain("&lt;", "&gt;", "&amp;");
    }
}
