package io.keepsake.seatunnel;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 8: the engine's JVM (a child running {@link CrashingEngineMain}) is killed with SIGKILL
 * while it checkpoints, and another while it saves; then a new engine restores both jobs. What the
 * plugin returns must always decode, every listed savepoint must verify, and the jobs must run on.
 */
@ExtendWith(ScenarioNamespace.class)
class SigkillRestoreTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    @TimedScenario("scenario 8 (two SIGKILLed child engines, restore in a new engine), ms")
    void killedEngineNeverLeavesTornStateAndANewEngineRestores(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        Path conf = Jobs.streaming(dir, "crash", 1, 200);

        // Round 1: killed between and during checkpoints (200 ms interval, rotation to 3).
        long checkpointingJob;
        Process child = startChild(dir, ns, conf, "checkpointing");
        try {
            BlockingQueue<String> lines = ChildEngines.lines(child, "child-stdout");
            checkpointingJob = awaitJob(lines, child);
            long job = checkpointingJob;
            EmbeddedEngine.await("five checkpoints", WAIT, () -> ns.maxCheckpointId(job, 1) >= 5);
        } finally {
            ChildEngines.kill(child);
        }

        // Round 2: killed while saving: at the first sight of the savepoint's staging directory.
        long savingJob;
        String killedAt;
        child = startChild(dir, ns, conf, "saving");
        try {
            BlockingQueue<String> lines = ChildEngines.lines(child, "child-stdout");
            savingJob = awaitJob(lines, child);
            long job = savingJob;
            EmbeddedEngine.await("three checkpoints", WAIT, () -> ns.maxCheckpointId(job, 1) >= 3);
            Path staging = ns.root().resolve("savepoint").resolve(Long.toString(job)).resolve(".staging");
            Path published = ns.root().resolve("savepoint").resolve(Long.toString(job));
            Files.createFile(Path.of(ns.root() + ".savepoint-now"));
            long deadline = System.nanoTime() + WAIT.toNanos();
            killedAt = null;
            while (killedAt == null) {
                if (hasChild(staging)) {
                    killedAt = "staging";
                } else if (hasChild(published, ".staging")) {
                    killedAt = "after-commit";
                } else if (System.nanoTime() > deadline) {
                    throw new AssertionError("The savepoint of job " + job + " never started");
                } else {
                    Thread.onSpinWait();
                }
            }
            child.destroyForcibly();
        } finally {
            ChildEngines.kill(child);
        }
        Figures.record("scenario 8: second child killed while saving at", killedAt);

        // No torn state: everything the plugin returns decodes, every listed savepoint verifies.
        CheckpointStorage plugin = new KeepsakeCheckpointStorageFactory().create(Map.of("namespace", ns.root().toString()));
        Map<Long, Long> restoredIds = new java.util.HashMap<>();
        for (long job : List.of(checkpointingJob, savingJob)) {
            for (PipelineState s : plugin.getAllCheckpoints(Long.toString(job))) {
                CompletedCheckpoint c = LegacyCheckpointCodec.decodeCheckpoint(s.getStates(), "test");
                assertThat(c.checkpointId()).isEqualTo(s.getCheckpointId());
            }
            PipelineState latest = plugin.getLatestCheckpointByJobIdAndPipelineId(Long.toString(job), "1");
            assertThat(latest).as("job %s has a state to restore", job).isNotNull();
            assertThat(LegacyCheckpointCodec.decodeCheckpoint(latest.getStates(), "test").checkpointId())
                    .isEqualTo(latest.getCheckpointId());
            restoredIds.put(job, latest.getCheckpointId());
            for (SavepointHandle h : savepoints.list(job)) {
                assertThat(savepoints.verify(h)).containsOnlyKeys(1);
            }
        }

        // A new engine restores both jobs and they run on.
        try (EmbeddedEngine engine = EmbeddedEngine.start()) {
            engine.useStorage("keepsake", Map.of("namespace", ns.root().toString()), 3);
            for (long job : List.of(checkpointingJob, savingJob)) {
                engine.restoreRunning(conf, job, WAIT);
                long from = restoredIds.get(job);
                EmbeddedEngine.await("a checkpoint of job " + job + " after the restore", WAIT,
                        () -> ns.maxCheckpointId(job, 1) > from);
                engine.cancel(job);
            }
        }
    }

    static boolean hasChild(Path dir, String... except) {
        try (var s = Files.list(dir)) {
            return s.anyMatch(p -> !List.of(except).contains(p.getFileName().toString()));
        } catch (java.io.IOException e) {
            return false;
        }
    }

    static Process startChild(Path dir, Namespace ns, Path conf, String name, String... more) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m",
                "-Dkeepsake.plugin.log=" + Path.of("target", "keepsake-plugin-child-" + name + ".log").toAbsolutePath(),
                "-cp", System.getProperty("java.class.path"), CrashingEngineMain.class.getName(),
                ns.root().toString(), conf.toString());
        pb.command().addAll(List.of(more));
        pb.redirectError(dir.resolve("child-" + name + ".err").toFile());
        return pb.start();
    }

    static long awaitJob(BlockingQueue<String> lines, Process child) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith("JOB ")) {
                return Long.parseLong(line.substring(4).trim());
            }
            if (line == null && !child.isAlive()) {
                throw new AssertionError("The child engine exited with " + child.exitValue() + " before running its job");
            }
        }
        throw new AssertionError("The child engine did not run its job within " + WAIT);
    }
}
