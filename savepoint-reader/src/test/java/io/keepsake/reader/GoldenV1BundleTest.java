package io.keepsake.reader;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Restores the committed format-version-1 savepoint bundle, so a change that breaks reading the
 * savepoints written today fails the build.
 */
class GoldenV1BundleTest {

    @TempDir
    Path temp;

    private Path copyBundle() {
        Path root = temp.resolve("copied-root");
        assertThat(GoldenBundles.copy(GoldenV1Bundle.RESOURCE_DIR, root)).hasSize(GoldenV1Bundle.PIPELINES.size() + 1);
        return root;
    }

    @Test
    void theCommittedVersion1BundleRestoresExactly() throws IOException {
        Path root = copyBundle();
        try (KeepsakeStorage storage = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), temp.resolve("ns").toString(), root.toString())) {
            RestoredState r = new SavepointRestorer(storage, storage).recoverLatest(GoldenV1Bundle.JOB);
            assertThat(r.savepoint()).get().satisfies(h -> {
                assertThat(h.savepointId()).isEqualTo(GoldenV1Bundle.SAVEPOINT);
                assertThat(h.meta().formatVersion()).isEqualTo(1);
                assertThat(h.meta().kind()).isEqualTo(SavepointKind.MANUAL);
                assertThat(h.meta().payloadFormat()).isEqualTo("engine-wire-v1");
            });
            assertThat(r.checkpoints()).isEqualTo(GoldenV1Bundle.expected());
            RestoredState byPath = new SavepointRestorer(storage, storage)
                    .restoreSavepointAt(root.resolve(GoldenV1Bundle.JOB).resolve(GoldenV1Bundle.SAVEPOINT).toString());
            assertThat(byPath.checkpoints()).isEqualTo(GoldenV1Bundle.expected());
        }
    }
}
