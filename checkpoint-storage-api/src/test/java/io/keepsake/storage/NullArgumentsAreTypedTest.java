package io.keepsake.storage;

import io.keepsake.storage.spi.FileStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The public records and entry points of the API module refuse a null with an
 * {@link InvalidStorageArgumentException} naming it, never a {@link NullPointerException}.
 * The storage's own entries are in the contract kit
 * ({@code StorageBadInputContractTest}), so every backend runs them.
 */
class NullArgumentsAreTypedTest {

    private static final String SHA = "0".repeat(64);

    private static ManifestEntry entry() {
        return new ManifestEntry(1, 1L, "pipeline-1.wire", 0L, SHA);
    }

    private static SavepointMeta meta() {
        return new SavepointMeta(1, "sp-a", "1001", SavepointKind.MANUAL, "t", 1L, 2L, "f", List.of(entry()), Map.of());
    }

    @Test
    void nullComponentsOfPublicRecordsAreTypedErrorsNamingTheComponent() {
        SavepointMeta meta = meta();
        SavepointHandle handle = new SavepointHandle("/sp/1001/sp-a", meta);
        List<Map.Entry<String, Executable>> calls = List.of(
                Map.entry("kind", () -> new SavepointRequest("1001", "sp-a", null, "t", "f", 1L, Map.of())),
                Map.entry("jobId", () -> new PipelineState(null, 1, 1L, new byte[0])),
                Map.entry("states", () -> new PipelineState("1001", 1, 1L, null)),
                Map.entry("kind", () -> new SavepointMeta(1, "sp-a", "1001", null, "t", 1L, 2L, "f", List.of(),
                        Map.of())),
                Map.entry("manifest", () -> new SavepointMeta(1, "sp-a", "1001", SavepointKind.MANUAL, "t", 1L, 2L,
                        "f", null, Map.of())),
                Map.entry("manifest entry 1", () -> new SavepointMeta(1, "sp-a", "1001", SavepointKind.MANUAL, "t",
                        1L, 2L, "f", Arrays.asList(entry(), null), Map.of())),
                Map.entry("sha256", () -> new ManifestEntry(1, 1L, "pipeline-1.wire", 0L, null)),
                Map.entry("location", () -> new SavepointHandle(null, meta)),
                Map.entry("meta", () -> new SavepointHandle("/sp/1001/sp-a", null)),
                Map.entry("handle", () -> new SavepointContent(null, Map.of())),
                Map.entry("payloads", () -> new SavepointContent(handle, null)),
                Map.entry("savepointId", () -> new SavepointHint(null, 1L, Map.of())),
                Map.entry("claims", () -> new SavepointHint("sp-a", 1L, null)),
                Map.entry("savepointId", () -> new SavepointEntry(null, "/x", 1L, Optional.empty(), Optional.empty())),
                Map.entry("handle", () -> new SavepointEntry("sp-a", "/x", 1L, null, Optional.empty())),
                Map.entry("problem", () -> new SavepointEntry("sp-a", "/x", 1L, Optional.empty(), null)),
                Map.entry("namespace", () -> StorageOptions.of(null, null, 0)),
                Map.entry("type", () -> new FileStatus("/x", "x", (FileStatus.Type) null, 0L, 0L)),
                Map.entry("id", () -> CheckpointStorageFactories.find(null)),
                Map.entry("file system", () -> KeepsakeStorage.open(null, "/ns", null)));
        for (Map.Entry<String, Executable> call : calls) {
            InvalidStorageArgumentException e = assertThrows(InvalidStorageArgumentException.class, call.getValue(),
                    "a null " + call.getKey() + " must be a typed error");
            assertThat(e.getMessage()).as(call.getKey()).startsWith("Cannot ").contains(call.getKey())
                    .contains("null");
        }
    }

    @Test
    void theMessageIsShapedLikeEveryOther() {
        InvalidStorageArgumentException e = assertThrows(InvalidStorageArgumentException.class,
                () -> new SavepointRequest("1001", "sp-a", null, "t", "f", 1L, Map.of()));
        assertThat(e.getMessage()).isEqualTo("Cannot create savepoint request: kind is null (null)");
    }
}
