package io.keepsake.seatunnel;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** SeaTunnel job files for the overlay tests: {@code pipelines} FakeSource -> Console pipelines, with extra env options. */
final class OverlayJobs {

    private OverlayJobs() {
    }

    /**
     * A job of {@code pipelines} independent pipelines of {@code splits} FakeSource splits each
     * (FakeSource 2.3.8 reads one split a second), in {@code mode} (STREAMING or BATCH), written
     * by the plugin tests' {@link Jobs} with {@code env} in its env block.
     */
    static Path write(Path dir, String name, String mode, int pipelines, int splits, long checkpointIntervalMillis,
                      Map<String, String> env) throws IOException {
        return Jobs.write(dir, name, mode, pipelines, checkpointIntervalMillis, splits, env);
    }
}
