package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Shell completion, and gc leaving no empty folders behind. */
class CompletionAndGcTest {

    @TempDir
    Path temp;

    @Test
    void completionPrintsABashScriptForEveryCommand() {
        ToolRun.Result r = ToolRun.run("completion");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("complete -F", "keepsake", "list", "inspect", "verify", "delete", "gc", "migrate",
                "--ignore-not-found", "--older-than");
    }

    @Test
    void gcRemovesTheStagingAndJobFoldersItEmpties() throws Exception {
        Path ns = temp.resolve("ns");
        try (CheckpointStorage storage = ToolRun.open(ns)) {
            SavepointWriter writer = ((SavepointStorage) storage).beginSavepoint(new SavepointRequest(ToolRun.JOB,
                    "sp-crashed", SavepointKind.MANUAL, "test", "engine-wire-v1", System.currentTimeMillis(), Map.of()));
            try (OutputStream out = writer.openPayload(1, 6)) {
                out.write(new byte[] {1, 2, 3});
            }
            // The writer is never committed nor closed: the process "crashed".
        }
        Path job = ns.resolve("savepoint").resolve(ToolRun.JOB);
        List<Path> leftovers;
        try (Stream<Path> s = Files.walk(job.resolve(".staging"))) {
            leftovers = s.toList();
        }
        for (Path p : leftovers) {
            Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
        }

        ToolRun.Result r = ToolRun.run("gc", "--namespace", ns.toString());

        assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("Removed 2 stale entries");
        assertThat(job.resolve(".staging")).doesNotExist();
        assertThat(job).doesNotExist();
        assertThat(ns.resolve("savepoint")).isDirectory();
    }
}
