package io.keepsake.seatunnel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/** SeaTunnel job files for the tests: FakeSource into Console, streaming or batch, one or two pipelines. */
final class Jobs {

    private Jobs() {
    }

    /** A streaming job with {@code pipelines} independent FakeSource -> Console pipelines. */
    static Path streaming(Path dir, String name, int pipelines, long checkpointIntervalMillis) throws IOException {
        return write(dir, name, "STREAMING", pipelines, checkpointIntervalMillis, 2);
    }

    /** Splits of each pipeline of {@link #streamingWithProgress}; FakeSource reads one a second, so they outlast a test. */
    static final int PROGRESS_SPLITS = 600;

    /** Rows of each split of the jobs here. */
    static final int ROWS_PER_SPLIT = 10;

    /**
     * A streaming job with {@code pipelines} FakeSource -> Console pipelines of {@link #PROGRESS_SPLITS}
     * splits each: FakeSource 2.3.8 reads one split a second, and each checkpoint's reader state lists
     * the splits not read yet ({@link FakeSourceProgress}), so the state shows how far the job got.
     */
    static Path streamingWithProgress(Path dir, String name, int pipelines, long checkpointIntervalMillis)
            throws IOException {
        return write(dir, name, "STREAMING", pipelines, checkpointIntervalMillis, PROGRESS_SPLITS);
    }

    /** Rows of each pipeline of {@link #streamingWithProgress}. */
    static long progressRows() {
        return (long) PROGRESS_SPLITS * ROWS_PER_SPLIT;
    }

    /**
     * A streaming job of one pipeline whose FakeSource has {@code splits} splits; each split its
     * reader holds is a few dozen bytes of state, so the split count sets the size of the state.
     */
    static Path streamingWithSplits(Path dir, String name, long checkpointIntervalMillis, int splits)
            throws IOException {
        return write(dir, name, "STREAMING", 1, checkpointIntervalMillis, splits);
    }

    /**
     * A batch job of {@code splits} splits; FakeSource 2.3.8 reads one split per second, so it runs
     * about {@code splits} seconds and can be saved mid-way.
     */
    static Path batch(Path dir, String name, int splits, long checkpointIntervalMillis) throws IOException {
        return write(dir, name, "BATCH", 1, checkpointIntervalMillis, splits);
    }

    private static Path write(Path dir, String name, String mode, int pipelines, long interval, int splits)
            throws IOException {
        return write(dir, name, mode, pipelines, interval, splits, Map.of());
    }

    /**
     * A job of {@code pipelines} independent FakeSource-to-Console pipelines of {@code splits}
     * splits each, in {@code mode} (STREAMING or BATCH), with {@code env} added to its env block
     * (job options, such as the engine overlay's restore option).
     */
    static Path write(Path dir, String name, String mode, int pipelines, long interval, int splits,
                      Map<String, String> env) throws IOException {
        int[] splitsPerPipeline = new int[pipelines];
        Arrays.fill(splitsPerPipeline, splits);
        return write(dir, name, mode, interval, splitsPerPipeline, env);
    }

    /**
     * A job of one FakeSource-to-Console pipeline per entry of {@code splitsPerPipeline}, pipeline
     * {@code p} of {@code splitsPerPipeline[p - 1]} splits, in {@code mode} (STREAMING or BATCH),
     * with {@code env} added to its env block.
     */
    static Path write(Path dir, String name, String mode, long interval, int[] splitsPerPipeline,
                      Map<String, String> env) throws IOException {
        StringBuilder sources = new StringBuilder();
        StringBuilder sinks = new StringBuilder();
        for (int p = 1; p <= splitsPerPipeline.length; p++) {
            int splits = splitsPerPipeline[p - 1];
            sources.append("""
                      FakeSource {
                        result_table_name = "fake%d"
                        row.num = %d
                        split.num = %d
                        split.read-interval = 10
                        schema = { fields { name = "string", age = "int" } }
                      }
                    """.formatted(p, splits * ROWS_PER_SPLIT, splits));
            sinks.append("""
                      Console {
                        source_table_name = "fake%d"
                        log.print.data = false
                      }
                    """.formatted(p));
        }
        StringBuilder extra = new StringBuilder();
        env.forEach((k, v) -> extra.append("  ").append(k).append(" = \"").append(v).append("\"\n"));
        String text = """
                env {
                  parallelism = 1
                  job.mode = "%s"
                  checkpoint.interval = %d
                %s}
                source {
                %s}
                sink {
                %s}
                """.formatted(mode, interval, extra, sources, sinks);
        Path file = dir.resolve(name + ".conf");
        Files.writeString(file, text);
        return file;
    }
}
