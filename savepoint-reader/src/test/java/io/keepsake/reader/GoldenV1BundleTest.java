package io.keepsake.reader;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.localfile.LocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void theCommittedVersion1BundleRestoresExactly() {
        Path root = copyBundle();
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(), temp.resolve("ns").toString(),
                root.toString())) {
            GoldenBundles.assertRestoresExactly(storage, root, GoldenV1Bundle.JOB, GoldenV1Bundle.SAVEPOINT, 1,
                    GoldenV1Bundle.expected());
        }
    }
}
