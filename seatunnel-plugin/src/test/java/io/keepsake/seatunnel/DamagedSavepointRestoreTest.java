package io.keepsake.seatunnel;

import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A damaged older bundle as an operator meets it: a savepoint, a restore from it, later checkpoints, SIGKILL
 * of the engine (a child JVM running {@link CrashingEngineMain}), one byte of the old bundle's
 * {@code _metadata.ser} flipped. A new engine's {@code -r} must restore the newest checkpoint, which
 * is intact, without being stopped by the older damaged bundle.
 */
class DamagedSavepointRestoreTest {

    /** Generous: a child JVM saves, stops and restores a job; a busy machine once needed more than 90 s. */
    private static final Duration WAIT = Duration.ofSeconds(240);

    @Test
    @TimedScenario("damaged older bundle (save, restore, SIGKILL, damaged old bundle, restore on a new engine), ms")
    void aDamagedOlderSavepointDoesNotStopANewEngineRestoringTheNewestCheckpoint(@TempDir Path dir) throws Exception {
        Namespace ns = new Namespace(dir.resolve("ns"));
        Path conf = Jobs.streaming(dir, "damaged", 1, 1000);
        Map<String, String> config = Map.of("namespace", ns.root().toString());

        long jobId;
        long savepointId;
        Process child = SigkillRestoreTest.startChild(dir, ns, conf, "damaged", "then-restore");
        try {
            jobId = SigkillRestoreTest.awaitJob(ChildEngines.lines(child, "child-stdout"), child);
            long job = jobId;
            EmbeddedEngine.await("two checkpoints", WAIT, () -> ns.checkpoints(job).size() >= 2);
            Files.createFile(Path.of(ns.root() + ".savepoint-now"));
            EmbeddedEngine.await("the savepoint", WAIT, () -> !ns.savepointFiles(job).isEmpty());
            savepointId = ns.savepointFiles(job).get(0).checkpointId();
            long saved = savepointId;
            EmbeddedEngine.await("three checkpoints after the restore from the savepoint", WAIT, () -> {
                if (!child.isAlive()) {
                    throw new AssertionError("the engine's child JVM ended (exit " + child.exitValue()
                            + ") before three checkpoints after the restore; its stderr: "
                            + stderrOf(dir.resolve("child-damaged.err")));
                }
                return ns.maxCheckpointId(job, 1) >= saved + 3;
            });
        } finally {
            ChildEngines.kill(child);
        }
        long newest = ns.maxCheckpointId(jobId, 1);
        String bundle = KeepsakeCheckpointStorage.savepointId(savepointId, 1);
        Path metadata = ns.root().resolve("savepoint").resolve(Long.toString(jobId)).resolve(bundle)
                .resolve("_metadata.ser");
        byte[] bytes = Files.readAllBytes(metadata);
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(metadata, bytes);
        try (var storage = CheckpointStorageFactories.find("localfile").create(config)) {
            long job = jobId;
            assertThatThrownBy(() -> ((SavepointStorage) storage).readMetadata(Long.toString(job), bundle))
                    .as("the flipped byte damages the bundle").isInstanceOf(SavepointCorruptedException.class);
        }

        try (EmbeddedEngine engine = EmbeddedEngine.start()) {
            engine.useStorage("keepsake", config, 3);
            engine.restoreRunning(conf, jobId, WAIT);
            long job = jobId;
            EmbeddedEngine.await("a checkpoint after the restore", WAIT, () -> ns.maxCheckpointId(job, 1) > newest);
            assertThat(ns.checkpoints(jobId)).as("checkpoint ids continue from the newest checkpoint, %s", newest)
                    .anySatisfy(f -> assertThat(f.checkpointId()).isEqualTo(newest + 1));
            engine.cancel(jobId);
        }
        assertThat(Files.exists(metadata)).as("the damaged bundle stays until an operator deletes it").isTrue();
    }

    private static String stderrOf(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
