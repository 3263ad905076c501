package io.keepsake.seatunnel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** SeaTunnel job files for the overlay tests: {@code pipelines} FakeSource -> Console pipelines, with extra env options. */
final class OverlayJobs {

    private OverlayJobs() {
    }

    /**
     * A job of {@code pipelines} independent pipelines of {@code splits} FakeSource splits each
     * (FakeSource 2.3.8 reads one split a second), in {@code mode} (STREAMING or BATCH).
     */
    static Path write(Path dir, String name, String mode, int pipelines, int splits, long checkpointIntervalMillis,
                      Map<String, String> env) throws IOException {
        StringBuilder sources = new StringBuilder();
        StringBuilder sinks = new StringBuilder();
        for (int p = 1; p <= pipelines; p++) {
            sources.append("""
                      FakeSource {
                        result_table_name = "fake%d"
                        row.num = %d
                        split.num = %d
                        split.read-interval = 10
                        schema = { fields { name = "string", age = "int" } }
                      }
                    """.formatted(p, splits * Jobs.ROWS_PER_SPLIT, splits));
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
                """.formatted(mode, checkpointIntervalMillis, extra, sources, sinks);
        Path file = dir.resolve(name + ".conf");
        Files.writeString(file, text);
        return file;
    }
}
