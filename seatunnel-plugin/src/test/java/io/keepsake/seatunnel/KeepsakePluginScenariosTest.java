package io.keepsake.seatunnel;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenarios 2-6 and 9 of docs/seatunnel.md's "How it is tested" on one embedded SeaTunnel 2.3.8
 * engine, with the Keepsake plugin chosen as {@code checkpoint.storage.type = keepsake}.
 */
class KeepsakePluginScenariosTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(60);
    @BeforeAll
    static void recordEngineStart() {
        Figures.record("engine start (member + client), ms", engine.startMillis);
    }

    private static Map<String, String> keepsake(Namespace ns) {
        return Map.of("namespace", ns.root().toString());
    }

    /** Chooses the Keepsake plugin on {@code ns} and submits a streaming job of one pipeline. */
    private static RunningJob submitStreaming(Namespace ns, Path dir, String name) throws Exception {
        engine.useStorage("keepsake", keepsake(ns), 5);
        return RunningJob.submit(engine, ns, Jobs.streaming(dir, name, 1, 1000), WAIT);
    }

    /** Scenario 2: stream, savepoint, restore, cancel; the savepoint survives and restores again. */
    @Test
    @TimedScenario("scenario 2 (stream, savepoint, restore, cancel, restore again, cancel), ms")
    void savepointSurvivesCancelOfTheRestoredJobAndRestoresAgain(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        RunningJob job = submitStreaming(ns, dir, "stream");
        long jobId = job.jobId();
        long savepointId = job.savepointAfter(2);
        List<SavepointHandle> kept = savepoints.list(jobId);
        assertThat(kept).singleElement().satisfies(h -> {
            assertThat(h.savepointId()).isEqualTo(KeepsakeCheckpointStorage.savepointId(savepointId, 1));
            assertThat(h.jobId()).isEqualTo(Long.toString(jobId));
            assertThat(h.meta().entryForPipeline(1).checkpointId()).isEqualTo(savepointId);
        });

        job.restoreAbove(savepointId, "a checkpoint after the restore");
        job.cancelAndAwaitCleanup("the terminal cleanup");

        List<SavepointHandle> afterCancel = savepoints.list(jobId);
        assertThat(afterCancel).as("the savepoint survives the cancel").hasSize(1);
        Map<Integer, CompletedCheckpoint> verified = savepoints.verify(afterCancel.get(0));
        assertThat(verified).containsOnlyKeys(1);
        assertThat(verified.get(1).checkpointId()).isEqualTo(savepointId);

        job.restore();
        job.awaitCheckpoints(1);
        assertThat(ns.checkpoints(jobId)).as("checkpoint ids continue after the savepoint")
                .allSatisfy(f -> assertThat(f.checkpointId()).isGreaterThan(savepointId));
        assertThat(PluginLog.text()).contains("Job " + jobId + " pipeline 1: newest state is savepoint "
                + KeepsakeCheckpointStorage.savepointId(savepointId, 1));
        job.cancelKeeping(savepoints, 1);
    }

    /**
     * An operator restores an older savepoint on purpose. After a first savepoint, a
     * restore and a second savepoint, {@code keepsake prepare-restore JOB <first>} (the library call
     * the command makes) writes the first savepoint's state as the job's newest checkpoint; {@code -r}
     * then restores it and the job's checkpoint ids continue above it.
     */
    @Test
    @TimedScenario("prepare-restore (two savepoints, prepare-restore of the first, restore), ms")
    void anOperatorRestoresAChosenOlderSavepointPreparedWithTheTool(@TempDir Path dir, Namespace ns,
                                                                    Savepoints savepoints) throws Exception {
        RunningJob job = submitStreaming(ns, dir, "chosen");
        long jobId = job.jobId();
        long first = job.savepointAfter(2);
        job.restoreAbove(first + 1, "two checkpoints after the restore");
        engine.savepoint(jobId);
        long second = ns.maxCheckpointId(jobId, 1);
        assertThat(savepoints.list(jobId)).hasSize(2);

        String chosen = KeepsakeCheckpointStorage.savepointId(first, 1);
        io.keepsake.reader.RestorePreparation.Prepared prepared;
        try (io.keepsake.storage.CheckpointStorage storage = io.keepsake.storage.CheckpointStorageFactories
                .find("localfile").create(keepsake(ns))) {
            prepared = new io.keepsake.reader.RestorePreparation(storage, (io.keepsake.storage.SavepointStorage) storage)
                    .prepare(Long.toString(jobId), List.of(chosen));
        }
        long restoresAs = second + 1;
        assertThat(prepared.pipelines()).singleElement().satisfies(p -> {
            assertThat(p.savepointId()).isEqualTo(chosen);
            assertThat(p.restoresAs()).isEqualTo(restoresAs);
        });
        Namespace.CheckpointFile file = ns.checkpoints(jobId).stream().filter(f -> f.checkpointId() == restoresAs)
                .findFirst().orElseThrow();
        CompletedCheckpoint written = io.keepsake.wire.LegacyCheckpointCodec.decodeFile(Files.readAllBytes(file.path()),
                "prepared");
        SavepointHandle firstHandle = savepoints.list(jobId).stream().filter(h -> h.savepointId().equals(chosen))
                .findFirst().orElseThrow();
        assertThat(written.taskStates()).as("the prepared file holds the chosen savepoint's state")
                .isEqualTo(savepoints.verify(firstHandle).get(1).taskStates());

        job.restoreAbove(restoresAs, "a checkpoint after the restore");
        assertThat(ns.checkpoints(jobId)).as("the engine restored the prepared state: ids continue from %s", restoresAs)
                .anySatisfy(f -> assertThat(f.checkpointId()).isEqualTo(restoresAs + 1));
        job.cancelKeeping(savepoints, 2);
    }

    /** Scenario 3: a restored batch job reaching FINISHED keeps its savepoint. */
    @Test
    @TimedScenario("scenario 3 (batch, savepoint, restore, FINISHED), ms")
    void restoredBatchJobFinishingKeepsTheSavepoint(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        engine.useStorage("keepsake", keepsake(ns), 5);
        Path conf = Jobs.batch(dir, "batch", 8, 1000);
        RunningJob job = RunningJob.submit(engine, ns, conf, WAIT);
        long jobId = job.jobId();
        long savepointId = job.savepointAfter(1);

        engine.restore(conf, jobId);
        engine.awaitStatus(jobId, "FINISHED", WAIT);
        EmbeddedEngine.await("the terminal cleanup", WAIT, () -> !Files.exists(ns.jobDir(jobId)));

        List<SavepointHandle> kept = savepoints.list(jobId);
        assertThat(kept).as("the savepoint survives FINISHED").hasSize(1);
        assertThat(savepoints.verify(kept.get(0)).get(1).checkpointId()).isEqualTo(savepointId);
    }

    /** Scenario 4: both pipelines of a two-pipeline job keep and restore their savepoint state. */
    @Test
    @TimedScenario("scenario 4 (two pipelines), ms")
    void everyPipelineOfATwoPipelineJobIsKeptAndRestored(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        engine.useStorage("keepsake", keepsake(ns), 5);
        RunningJob job = RunningJob.submit(engine, ns, Jobs.streaming(dir, "two-pipelines", 2, 1000), WAIT);
        long jobId = job.jobId();
        job.awaitAbove("checkpoints of both pipelines", 2, 0);
        engine.savepoint(jobId);
        Map<Integer, Long> savepointIds = new HashMap<>();
        ns.savepointFiles(jobId).forEach(f -> savepointIds.put(f.pipelineId(), f.checkpointId()));
        assertThat(savepointIds).containsOnlyKeys(1, 2);

        job.restore();
        EmbeddedEngine.await("checkpoints of both pipelines after the restore", WAIT,
                () -> ns.maxCheckpointId(jobId, 1) > savepointIds.get(1) && ns.maxCheckpointId(jobId, 2) > savepointIds.get(2));
        job.cancelAndAwaitCleanup("the terminal cleanup");

        List<SavepointHandle> kept = savepoints.list(jobId);
        assertThat(kept).extracting(SavepointHandle::savepointId).containsExactlyInAnyOrder(
                KeepsakeCheckpointStorage.savepointId(savepointIds.get(1), 1),
                KeepsakeCheckpointStorage.savepointId(savepointIds.get(2), 2));
        for (SavepointHandle h : kept) {
            assertThat(savepoints.verify(h)).hasSize(1);
        }

        job.restore();
        job.awaitAbove("checkpoints of both pipelines after the restore", 2, 0);
        for (int p = 1; p <= 2; p++) {
            int pipeline = p;
            assertThat(ns.checkpoints(jobId)).filteredOn(f -> f.pipelineId() == pipeline)
                    .allSatisfy(f -> assertThat(f.checkpointId()).isGreaterThan(savepointIds.get(pipeline)));
            assertThat(PluginLog.text()).contains("Job " + jobId + " pipeline " + p + ": newest state is savepoint");
        }
        job.cancelKeeping(savepoints, 2);
    }

    /** Scenario 5: with max-retained 2, checkpoints rotate and the savepoint does not. */
    @Test
    @TimedScenario("scenario 5 (rotation, max-retained 2), ms")
    void rotationRemovesCheckpointsButNeverSavepoints(@TempDir Path dir, Namespace ns, Savepoints savepoints)
            throws Exception {
        engine.useStorage("keepsake", keepsake(ns), 2);
        RunningJob job = RunningJob.submit(engine, ns, Jobs.streaming(dir, "rotation", 1, 500), WAIT);
        long jobId = job.jobId();
        EmbeddedEngine.await("rotation of the first checkpoints", WAIT,
                () -> ns.maxCheckpointId(jobId, 1) >= 4 && ns.checkpoints(jobId).stream().noneMatch(f -> f.checkpointId() == 1));
        engine.savepoint(jobId);
        long savepointId = ns.savepointFiles(jobId).get(0).checkpointId();

        job.restore();
        EmbeddedEngine.await("rotation of the first checkpoint after the restore", WAIT,
                () -> ns.maxCheckpointId(jobId, 1) >= savepointId + 4
                        && ns.checkpoints(jobId).stream().noneMatch(f -> f.checkpointId() == savepointId + 1));
        List<SavepointHandle> kept = savepoints.list(jobId);
        assertThat(kept).as("the savepoint does not rotate").singleElement()
                .satisfies(h -> assertThat(h.meta().entryForPipeline(1).checkpointId()).isEqualTo(savepointId));
        job.cancelKeeping(savepoints, 1);
    }

    /** Scenario 6: a namespace written by SeaTunnel's own plugin is taken over, and switching back works. */
    @Test
    @TimedScenario("scenario 6 (take over a SeaTunnel namespace, switch back), ms")
    void namespaceOfSeatunnelsOwnPluginIsTakenOverAndSwitchingBackWorks(@TempDir Path dir, Namespace ns,
                                                                       Savepoints savepoints) throws Exception {
        engine.useStorage("localfile", Map.of("namespace", ns.root() + "/"), 5);
        RunningJob job = RunningJob.submit(engine, ns, Jobs.streaming(dir, "switch", 1, 1000), WAIT);
        long jobId = job.jobId();
        long seatunnelSavepoint = job.savepointAfter(2);

        engine.useStorage("keepsake", keepsake(ns), 5);
        job.restoreAbove(seatunnelSavepoint, "a checkpoint after the take-over");
        engine.savepoint(jobId);
        long keepsakeSavepoint = ns.maxCheckpointId(jobId, 1);
        assertThat(savepoints.list(jobId)).singleElement()
                .satisfies(h -> assertThat(h.meta().entryForPipeline(1).checkpointId()).isEqualTo(keepsakeSavepoint));

        engine.useStorage("localfile", Map.of("namespace", ns.root() + "/"), 5);
        job.restoreAbove(keepsakeSavepoint, "a checkpoint after switching back");
        job.cancelAndAwaitCleanup("SeaTunnel's terminal cleanup");
        assertThat(savepoints.list(jobId)).as("SeaTunnel's cleanup does not reach the savepoint root").hasSize(1);
    }

    /** Scenario 9: the hdfs backend through the plugin, on file:/// with the engine's Hadoop 3.1.4. */
    @Test
    void hdfsBackendOnTheEnginesHadoopKeepsTheSavepoint(@TempDir Path dir, Namespace ns) throws Exception {
        long t0 = System.nanoTime();
        Map<String, String> config = Map.of("namespace", ns.root().toString(), "storage.type", "hdfs",
                "fs.defaultFS", "file:///");
        Savepoints savepoints = new Savepoints("hdfs", Map.of("namespace", ns.root().toString(),
                "storage.type", "local", "fs.defaultFS", "file:///"));
        engine.useStorage("keepsake", config, 5);
        RunningJob job = RunningJob.submit(engine, ns, Jobs.streaming(dir, "hdfs", 1, 1000), WAIT);
        long jobId = job.jobId();
        long savepointId = job.savepointAfter(2);
        job.restoreAbove(savepointId, "a checkpoint after the restore");
        job.cancelAndAwaitCleanup("the terminal cleanup");

        List<SavepointHandle> kept = savepoints.list(jobId);
        assertThat(kept).hasSize(1);
        assertThat(savepoints.verify(kept.get(0)).get(1).checkpointId()).isEqualTo(savepointId);
        assertThat(org.apache.hadoop.util.VersionInfo.getVersion()).startsWith("3.1.4");
        job.restore();
        job.awaitCheckpoints(1);
        assertThat(ns.checkpoints(jobId)).allSatisfy(f -> assertThat(f.checkpointId()).isGreaterThan(savepointId));
        engine.cancel(jobId);
        Figures.record("scenario 9 (hdfs backend on file:///, Hadoop "
                + org.apache.hadoop.util.VersionInfo.getVersion() + "), ms", millisSince(t0));
    }

    /**
     * The same engine state stored by SeaTunnel's {@code localfile} plugin and by this plugin gives
     * byte-identical files; the time per store of each is measured for the closing note.
     */
    @Test
    void checkpointFilesAreByteIdenticalToSeatunnelsAndTheOverheadIsMeasured(@TempDir Path dir) throws Exception {
        Namespace ns = new Namespace(dir.resolve("engine"));
        engine.useStorage("localfile", Map.of("namespace", ns.root() + "/"), 5);
        long jobId = engine.submit(Jobs.streaming(dir, "overhead", 1, 1000));
        engine.awaitStatus(jobId, "RUNNING", WAIT);
        // SeaTunnel's own localfile plugin writes a checkpoint file in place: a file read while it is
        // being written does not decode yet, so wait for one that does
        byte[][] whole = new byte[1][];
        EmbeddedEngine.await("a checkpoint written whole", WAIT, () -> {
            try {
                List<Namespace.CheckpointFile> files = ns.checkpoints(jobId);
                if (files.isEmpty()) {
                    return false;
                }
                byte[] bytes = Files.readAllBytes(files.get(0).path());
                io.keepsake.storage.PipelineStateCodec.decode(bytes, "engine file");
                whole[0] = bytes;
                return true;
            } catch (io.keepsake.storage.CheckpointCorruptedException | java.io.IOException
                     | java.io.UncheckedIOException stillBeingWritten) {
                return false;
            }
        });
        byte[] engineFile = whole[0];
        engine.cancel(jobId);
        io.keepsake.storage.PipelineState decoded = io.keepsake.storage.PipelineStateCodec.decode(engineFile, "engine file");
        CompletedCheckpoint checkpoint = io.keepsake.wire.LegacyCheckpointCodec.decodeCheckpoint(decoded.states(), "engine");

        Path seatunnelRoot = dir.resolve("seatunnel");
        Path keepsakeRoot = dir.resolve("keepsake");
        org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage seatunnel =
                new org.apache.seatunnel.engine.checkpoint.storage.localfile.LocalFileStorageFactory()
                        .create(Map.of("namespace", seatunnelRoot + "/"));
        org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage keepsake =
                new KeepsakeCheckpointStorageFactory().create(Map.of("namespace", keepsakeRoot.toString()));

        org.apache.seatunnel.engine.checkpoint.storage.PipelineState state = seatunnelState(decoded.jobId(),
                decoded.checkpointId(), decoded.states());
        seatunnel.storeCheckPoint(state);
        keepsake.storeCheckPoint(state);
        byte[] seatunnelBytes = Files.readAllBytes(new Namespace(seatunnelRoot).checkpoints(jobId).get(0).path());
        byte[] keepsakeBytes = Files.readAllBytes(new Namespace(keepsakeRoot).checkpoints(jobId).get(0).path());
        assertThat(keepsakeBytes).as("byte-identical to SeaTunnel's localfile").isEqualTo(seatunnelBytes);
        assertThat(keepsakeBytes).as("byte-identical to the engine's own file").isEqualTo(engineFile);
        assertThat(keepsake.getLatestCheckpointByJobIdAndPipelineId(decoded.jobId(), "1").getStates())
                .isEqualTo(decoded.states());

        int warmup = 100;
        int rounds = 300;
        long[] seatunnelNanos = new long[rounds];
        long[] keepsakeNanos = new long[rounds];
        List<org.apache.seatunnel.engine.checkpoint.storage.PipelineState> states = new java.util.ArrayList<>();
        for (int i = 0; i < warmup + rounds; i++) {
            states.add(seatunnelState(decoded.jobId(), 1000 + i,
                    withId(checkpoint, 1000 + i, io.keepsake.engine.CheckpointType.CHECKPOINT_TYPE)));
        }
        for (int i = 0; i < warmup + rounds; i++) {
            org.apache.seatunnel.engine.checkpoint.storage.PipelineState next = states.get(i);
            long a = System.nanoTime();
            seatunnel.storeCheckPoint(next);
            long b = System.nanoTime();
            keepsake.storeCheckPoint(next);
            long c = System.nanoTime();
            if (i >= warmup) {
                seatunnelNanos[i - warmup] = b - a;
                keepsakeNanos[i - warmup] = c - b;
            }
        }
        int saves = 40;
        long[] savepointNanos = new long[saves];
        for (int i = 0; i < saves; i++) {
            org.apache.seatunnel.engine.checkpoint.storage.PipelineState next = seatunnelState(decoded.jobId(), 5000 + i,
                    withId(checkpoint, 5000 + i, io.keepsake.engine.CheckpointType.SAVEPOINT_TYPE));
            long a = System.nanoTime();
            keepsake.storeCheckPoint(next);
            savepointNanos[i] = System.nanoTime() - a;
        }
        assertThat(Savepoints.local(new Namespace(keepsakeRoot)).list(jobId)).hasSize(saves);
        assertThat(new Namespace(keepsakeRoot).checkpoints(jobId)).hasSize(1 + warmup + rounds + saves);
        Figures.record("store of one engine checkpoint (" + decoded.states().length + " state bytes), median/p90 us,"
                + " SeaTunnel localfile", micros(seatunnelNanos));
        Figures.record("store of one engine checkpoint, median/p90 us, Keepsake plugin (local backend)",
                micros(keepsakeNanos));
        Figures.record("store of one engine savepoint (bundle committed + .ser), median/p90 us, Keepsake plugin",
                micros(savepointNanos));
    }

    private static org.apache.seatunnel.engine.checkpoint.storage.PipelineState seatunnelState(String jobId,
                                                                                              long checkpointId,
                                                                                              byte[] states) {
        return org.apache.seatunnel.engine.checkpoint.storage.PipelineState.builder().jobId(jobId).pipelineId(1)
                .checkpointId(checkpointId).states(states).build();
    }

    private static byte[] withId(CompletedCheckpoint c, long checkpointId, io.keepsake.engine.CheckpointType type) {
        return io.keepsake.wire.LegacyCheckpointCodec.encodeCheckpoint(new CompletedCheckpoint(c.jobId(), c.pipelineId(),
                checkpointId, c.triggerTimestamp(), type, c.completedTimestamp(), c.taskStates(), c.taskStatistics()));
    }

    private static String micros(long[] nanos) {
        long[] sorted = nanos.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1000 + " / " + sorted[(int) (sorted.length * 0.9)] / 1000;
    }

    static long millisSince(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
