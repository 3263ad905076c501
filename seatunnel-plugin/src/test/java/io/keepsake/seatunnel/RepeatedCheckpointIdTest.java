package io.keepsake.seatunnel;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Checkpoint ids repeat after a restore that skipped a damaged bundle: the engine numbers its
 * checkpoints on from the older state it restored, so its next savepoint can land on the id of a
 * damaged bundle. That savepoint must be kept (under another name) and be what the next restore
 * takes, never reported done while the only bundle of its id is the damaged one.
 *
 * <p>Where the next savepoint lands after a restore from checkpoint A (A+1, or later when the
 * engine checkpointed on its own first) is not the test's to choose, so bundles of checkpoints
 * A+1 to A+10 are written through the storage as the plugin writes them and each is damaged by one
 * flipped payload byte: whichever id the savepoint takes is a damaged bundle's. The job
 * checkpoints every 3 s, so that a cancel after a restore finds a checkpoint newer than the
 * savepoint and deletes the job's checkpoint files (the engine keeps them when the newest is a
 * savepoint): without them a restore reads the bundles.
 */
@ExtendWith(ScenarioNamespace.class)
class RepeatedCheckpointIdTest {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final int DAMAGED = 10;

    @Test
    void aSavepointOnTheIdOfASkippedDamagedBundleIsKeptAndRestoredNext(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        long t0 = System.nanoTime();
        Map<String, String> config = Map.of("namespace", ns.root().toString());
        Path conf = Jobs.streaming(dir, "repeat", 1, 3000);
        try (EmbeddedEngine engine = EmbeddedEngine.start()) {
            engine.useStorage("keepsake", config, 3);
            long jobId = engine.submitRunning(conf, WAIT);
            long a = savepointWhenReady(engine, ns, jobId);
            restoreAndCancel(engine, ns, conf, jobId, a);

            CompletedCheckpoint saved = savepoints.verify(bundleOf(savepoints.list(jobId), a)).get(1);
            try (CheckpointStorage storage = CheckpointStorageFactories.find("localfile").create(config)) {
                for (long id = a + 1; id <= a + DAMAGED; id++) {
                    keepDamaged((SavepointStorage) storage, ns, jobId, saved, id);
                }
            }
            for (SavepointHandle h : savepoints.list(jobId)) {
                if (h.meta().entryForPipeline(1).checkpointId() > a) {
                    assertThatThrownBy(() -> savepoints.verify(h)).as("the flipped byte damages %s", h.savepointId())
                            .isInstanceOf(SavepointCorruptedException.class);
                }
            }

            // -r skips the damaged bundles and restores checkpoint a; the next savepoint lands on a damaged one's id.
            engine.restoreRunning(conf, jobId, WAIT);
            long x = savepointWhenReady(engine, ns, jobId);
            assertThat(x).as("the savepoint after a restore from checkpoint %s", a).isBetween(a + 1, a + DAMAGED);
            String damaged = KeepsakeCheckpointStorage.savepointId(x, 1);
            List<SavepointHandle> kept = savepoints.list(jobId).stream()
                    .filter(h -> h.meta().entryForPipeline(1).checkpointId() == x
                            && !h.savepointId().equals(damaged)).toList();
            assertThat(kept).as("the savepoint reported done at checkpoint %s is kept beside the damaged %s", x,
                    damaged).singleElement();
            SavepointHandle taken = kept.get(0);
            assertThat(savepoints.verify(taken).get(1).checkpointId()).isEqualTo(x);

            // Once the checkpoint files are gone, -r restores that savepoint: the newest by checkpoint id and,
            // among the bundles of id x, by completion.
            restoreAndCancel(engine, ns, conf, jobId, x);
            engine.restoreRunning(conf, jobId, WAIT);
            String restored = "Job " + jobId + " pipeline 1: newest state is savepoint " + taken.savepointId()
                    + " (checkpoint " + x + ")";
            EmbeddedEngine.await("the plugin's line: " + restored, WAIT, () -> PluginLog.text().contains(restored));
            engine.cancel(jobId);
            assertThat(savepoints.list(jobId)).extracting(SavepointHandle::savepointId)
                    .as("every bundle stays through the cancel").contains(taken.savepointId(), damaged);
            assertThat(savepoints.verify(taken)).containsOnlyKeys(1);
        }
        Figures.record("savepoint on the id of a skipped damaged bundle, kept and restored, ms",
                KeepsakePluginScenariosTest.millisSince(t0));
    }

    /** {@code -r}, a checkpoint after {@code after}, {@code -can}: the engine deletes the job's checkpoint files. */
    private static void restoreAndCancel(EmbeddedEngine engine, Namespace ns, Path conf, long jobId, long after)
            throws Exception {
        engine.restoreRunning(conf, jobId, WAIT);
        EmbeddedEngine.await("a checkpoint after " + after, WAIT, () -> ns.maxCheckpointId(jobId, 1) > after);
        engine.cancel(jobId);
        EmbeddedEngine.await("the terminal cleanup", WAIT, () -> !Files.exists(ns.jobDir(jobId)));
    }

    /** Keeps {@code saved} as checkpoint {@code id} under the plugin's name for it, then flips a byte of its payload. */
    private static void keepDamaged(SavepointStorage storage, Namespace ns, long jobId, CompletedCheckpoint saved,
                                    long id) throws Exception {
        CompletedCheckpoint state = new CompletedCheckpoint(saved.jobId(), 1, id, saved.triggerTimestamp(),
                saved.checkpointType(), saved.completedTimestamp(), saved.taskStates(), saved.taskStatistics());
        String savepointId = KeepsakeCheckpointStorage.savepointId(id, 1);
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, Long.toString(jobId), List.of(1))
                .kind(SavepointKind.MANUAL).savepointId(savepointId).open()) {
            session.report(state);
            session.pipelineSuspended(1);
            session.commit();
        }
        flipAPayloadByte(ns, jobId, savepointId);
    }

    /**
     * {@code seatunnel.sh -s}, asked again while the engine answers "Task not all ready"; the newest
     * savepoint file's checkpoint id once the job is {@code SAVEPOINT_DONE}.
     */
    static long savepointWhenReady(EmbeddedEngine engine, Namespace ns, long jobId) {
        EmbeddedEngine.SavepointAsks asks = engine.requestSavepointUntilAccepted(jobId, WAIT);
        assertThat(asks.accepted()).as("the engine accepts -s of job %s (last refusal: %s)", jobId, asks.lastRefusal())
                .isTrue();
        engine.awaitStatus(jobId, "SAVEPOINT_DONE", WAIT);
        return ns.savepointFiles(jobId).stream().mapToLong(Namespace.CheckpointFile::checkpointId).max()
                .orElseThrow(() -> new AssertionError("SAVEPOINT_DONE without a savepoint file of job " + jobId));
    }

    private static SavepointHandle bundleOf(List<SavepointHandle> handles, long checkpointId) {
        return handles.stream().filter(h -> h.meta().entryForPipeline(1).checkpointId() == checkpointId)
                .findFirst().orElseThrow(() -> new AssertionError("no bundle holds checkpoint " + checkpointId
                        + " among " + handles));
    }

    private static void flipAPayloadByte(Namespace ns, long jobId, String savepointId) throws Exception {
        Path folder = ns.root().resolve("savepoint").resolve(Long.toString(jobId)).resolve(savepointId);
        Path payload;
        try (Stream<Path> files = Files.list(folder)) {
            payload = files.filter(f -> f.getFileName().toString().endsWith(".wire")).findFirst()
                    .orElseThrow(() -> new AssertionError("no payload in " + folder));
        }
        byte[] bytes = Files.readAllBytes(payload);
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(payload, bytes);
    }
}
