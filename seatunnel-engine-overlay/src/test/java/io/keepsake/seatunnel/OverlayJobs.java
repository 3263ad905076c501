package io.keepsake.seatunnel;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
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

    /** The overlay tests' usual job: two streaming pipelines that read for longer than a test, checkpointing every second. */
    static Path twoPipelines(Path dir, String name) throws IOException {
        return write(dir, name, "STREAMING", 2, Jobs.PROGRESS_SPLITS, 1000, Map.of());
    }

    /** Submits {@link #twoPipelines} on {@code engine} and waits for a checkpoint of both pipelines in {@code ns}. */
    static RunningJob submitTwoPipelines(EmbeddedEngine engine, Namespace ns, Path dir, String name, Duration wait)
            throws Exception {
        RunningJob job = RunningJob.submit(engine, ns, twoPipelines(dir, name), wait);
        job.awaitAbove("a checkpoint of both pipelines", 2, 0);
        return job;
    }
}
