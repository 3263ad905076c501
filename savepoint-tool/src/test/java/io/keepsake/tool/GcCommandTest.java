package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointHandle;
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
import java.util.stream.Stream;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake gc}: stale staging and incomplete directories go, complete savepoints stay. */
class GcCommandTest {

    @TempDir
    Path namespace;

    private Path staging() {
        return namespace.resolve("savepoint").resolve(ToolRun.JOB).resolve(".staging");
    }

    /**
     * Begins a savepoint, writes one payload and abandons the writer, as a crashed job master
     * would; the caller closes the storage, which stops renewing the attempt's lease.
     */
    private Path abandonAttempt(CheckpointStorage storage) throws Exception {
        SavepointWriter writer = ((SavepointStorage) storage).beginSavepoint(
                new SavepointRequest(ToolRun.JOB, "sp-crashed", SavepointKind.MANUAL,
                        "test", "engine-wire-v1", System.currentTimeMillis(), Map.of()));
        try (OutputStream out = writer.openPayload(1, 6)) {
            out.write(new byte[] {1, 2, 3});
        }
        List<Path> attempts;
        try (Stream<Path> s = Files.list(staging())) {
            attempts = s.filter(Files::isDirectory).toList();
        }
        assertThat(attempts).hasSize(1);
        return attempts.get(0);
    }

    private static void age(Path dir, Duration by) throws Exception {
        Files.setLastModifiedTime(dir, FileTime.from(Instant.now().minus(by)));
    }

    @Test
    void removesAnAbandonedStagingAttemptAndKeepsCompleteSavepoints() throws Exception {
        SavepointHandle complete = ToolRun.savepoint(namespace, 6);
        CheckpointStorage crashed = ToolRun.open(namespace);
        Path attempt = abandonAttempt(crashed);
        crashed.close();
        Path lease = attempt.resolveSibling(attempt.getFileName() + ".lease");
        age(attempt, Duration.ofHours(2));

        ToolRun.Result fresh = ToolRun.run("gc", "--namespace", namespace.toString());
        assertThat(fresh.out()).as("the lease still protects it").contains("Removed 0 stale entries");
        assertThat(attempt).exists();

        age(lease, Duration.ofHours(2));
        ToolRun.Result r = ToolRun.run("gc", "--namespace", namespace.toString());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("Removed 2 stale entries older than 1h", "deleted " + attempt, "deleted " + lease);
        assertThat(attempt).doesNotExist();
        assertThat(lease).doesNotExist();
        assertThat(Path.of(complete.location(), "_metadata.ser")).exists();
    }

    @Test
    void leavesAttemptsYoungerThanTheAge() throws Exception {
        ToolRun.savepoint(namespace, 6);
        Path attempt = Files.createDirectories(staging().resolve("sp-young.0123456789abcdef"));
        age(attempt, Duration.ofMinutes(10));

        ToolRun.Result r = ToolRun.run("gc", "--older-than", "30m", "--namespace", namespace.toString());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("Removed 0 stale entries older than 30m");
        assertThat(attempt).exists();
    }

    @Test
    void dryRunListsCandidatesAndDeletesNothing() throws Exception {
        SavepointHandle complete = ToolRun.savepoint(namespace, 6);
        Path attempt = Files.createDirectories(staging().resolve("sp-by-hand.0123456789abcdef"));
        Files.write(attempt.resolve("pipeline-1.wire"), new byte[] {9});
        age(attempt, Duration.ofDays(2));
        Path incomplete = Files.createDirectories(namespace.resolve("savepoint").resolve(ToolRun.JOB).resolve("sp-torn"));
        age(incomplete, Duration.ofDays(2));

        ToolRun.Result dry = ToolRun.run("gc", "--dry-run", "--older-than", "P1D", "--namespace", namespace.toString());

        assertThat(dry.exitCode()).isEqualTo(0);
        assertThat(dry.out()).contains("would remove 2 stale entries", "staging attempt", attempt.toString(),
                "incomplete savepoint directory", incomplete.toString(), "nothing was removed");
        assertThat(dry.out()).doesNotContain(complete.savepointId());
        assertThat(attempt).exists();
        assertThat(incomplete).exists();

        ToolRun.Result real = ToolRun.run("gc", "--older-than", "P1D", "--namespace", namespace.toString());

        assertThat(real.exitCode()).isEqualTo(0);
        assertThat(real.out()).contains("Removed 2 stale entries");
        assertThat(attempt).doesNotExist();
        assertThat(incomplete).doesNotExist();
        assertThat(Path.of(complete.location(), "_metadata.ser")).exists();
    }

    @Test
    void refusesARootKeepsakeDidNotMarkAndDeletesNothingThere() throws Exception {
        Path photos = Files.createDirectories(namespace.resolve("savepoint").resolve("alice").resolve("photos"));
        Files.write(photos.resolve("cat.jpg"), new byte[] {1, 2, 3});
        age(photos, Duration.ofDays(30));

        ToolRun.Result r = ToolRun.run("gc", "--older-than", "0s", "--namespace", namespace.toString());

        assertThat(r.exitCode()).isNotZero();
        assertThat(r.err()).contains("not marked as a Keepsake savepoint root", namespace.resolve("savepoint").toString());
        assertThat(photos.resolve("cat.jpg")).exists();
    }

    @Test
    void aBadDurationIsAUsageError() {
        ToolRun.Result r = ToolRun.run("gc", "--older-than", "soon", "--namespace", namespace.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--older-than", "PT1H", "30m");
    }

    @Test
    void entriesKeepsakeDidNotWriteAreKeptReportedAndExitZero() throws Exception {
        SavepointHandle complete = ToolRun.savepoint(namespace, 6);
        Path photos = Files.createDirectories(staging().resolve("photos.gc-0123456789abcdef"));
        Files.write(photos.resolve("img.jpg"), new byte[] {1, 2, 3});
        Path vacation = Files.createDirectories(staging().resolve("vacation.0123456789abcdef"));
        Files.write(vacation.resolve("img.jpg"), new byte[] {4, 5});
        Path mine = Files.write(staging().resolve("mine.lease"), new byte[] {6});
        Path readme = Files.write(Path.of(complete.location(), "README"), new byte[] {7});
        for (Path p : List.of(photos, vacation, mine)) {
            age(p, Duration.ofDays(2));
        }

        ToolRun.Result r = ToolRun.run("gc", "--older-than", "0", "--namespace", namespace.toString());
        ToolRun.Result json = ToolRun.run("gc", "--older-than", "0", "--json", "--namespace", namespace.toString());

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(0);
        assertThat(r.out()).contains("Kept", "photos.gc-0123456789abcdef", "mine.lease", "vacation.0123456789abcdef",
                "Keepsake did not write it").doesNotContain("deleted " + photos).doesNotContain("Could not remove");
        assertThat(json.exitCode()).isEqualTo(0);
        assertThat(json.out().replace(" ", "")).contains("\"failed\":[]").contains("mine.lease");
        assertThat(photos.resolve("img.jpg")).exists();
        assertThat(vacation.resolve("img.jpg")).exists();
        assertThat(mine).exists();
        assertThat(readme).exists();
        assertThat(Path.of(complete.location(), "_metadata.ser")).exists();
    }

    @Test
    void anEntryThatCannotBeRemovedExitsOne() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "chattr +i needs root");
        ToolRun.savepoint(namespace, 6);
        CheckpointStorage crashed = ToolRun.open(namespace);
        Path attempt = abandonAttempt(crashed);
        crashed.close();
        age(attempt, Duration.ofHours(2));
        age(attempt.resolveSibling(attempt.getFileName() + ".lease"), Duration.ofHours(2));
        Process lock = new ProcessBuilder("chattr", "+i", attempt.toString()).start();
        org.junit.jupiter.api.Assumptions.assumeTrue(lock.waitFor() == 0, "chattr +i works on this file system");
        try {
            ToolRun.Result r = ToolRun.run("gc", "--older-than", "1h", "--namespace", namespace.toString());

            assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(ExitCodes.FAILURE);
            assertThat(r.out()).contains("Could not remove", "failed ");
        } finally {
            new ProcessBuilder("chattr", "-i", attempt.toString()).start().waitFor();
        }
    }
}
