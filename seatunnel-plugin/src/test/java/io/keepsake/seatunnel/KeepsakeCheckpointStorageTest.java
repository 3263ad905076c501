package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The read and write paths of the plugin without an engine, including the ones the engine does not call. */
class KeepsakeCheckpointStorageTest extends OnPluginStorage {

    private static final String JOB = "977";

    private Savepoints savepoints;

    @BeforeEach
    void readSavepoints() {
        savepoints = Savepoints.local(ns);
    }

    private static PipelineState state(int pipeline, long checkpointId, CheckpointType type) {
        return EngineStates.of(JOB, pipeline, checkpointId, type);
    }

    @Test
    void onlySavepointTypedStatesBecomeBundles() throws Exception {
        storage.storeCheckPoint(state(1, 1, CheckpointType.CHECKPOINT_TYPE));
        storage.storeCheckPoint(state(1, 2, CheckpointType.SAVEPOINT_TYPE));
        storage.storeCheckPoint(state(1, 3, CheckpointType.COMPLETED_POINT_TYPE));
        assertThat(savepoints.list(977)).extracting(SavepointHandle::savepointId)
                .containsExactly(KeepsakeCheckpointStorage.savepointId(2, 1));
        assertThat(ns.checkpoints(977)).extracting(Namespace.CheckpointFile::checkpointId).containsExactly(1L, 2L, 3L);
    }

    @Test
    void stateThatDoesNotDecodeIsStoredAsACheckpointOnlyAndARestoreDoesNotTakeIt() throws Exception {
        PipelineState odd = PipelineState.builder().jobId(JOB).pipelineId(1).checkpointId(1)
                .states(new byte[] {(byte) 0xff, 1, 2, 3}).build();
        storage.storeCheckPoint(odd);
        assertThat(savepoints.list(977)).isEmpty();
        Path file;
        try (var files = Files.list(ns.jobDir(977))) {
            file = files.filter(f -> f.getFileName().toString().endsWith("-1-1.ser")).findFirst().orElseThrow();
        }
        assertThatThrownBy(() -> storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1"))
                .as("a state the engine could not decode either is not restored as if it were whole")
                .isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("Cannot restore job 977 pipeline 1: no state of it reads back whole")
                .hasMessageContaining(file.toString());
    }

    @Test
    void everyReadSeesTheKeptSavepointAfterCleanup() throws Exception {
        PipelineState savepoint = state(1, 3, CheckpointType.SAVEPOINT_TYPE);
        storage.storeCheckPoint(state(1, 1, CheckpointType.CHECKPOINT_TYPE));
        storage.storeCheckPoint(state(1, 2, CheckpointType.CHECKPOINT_TYPE));
        storage.storeCheckPoint(savepoint);
        storage.storeCheckPoint(state(2, 1, CheckpointType.CHECKPOINT_TYPE));
        storage.deleteCheckpoint(JOB);
        assertThat(ns.jobDir(977)).doesNotExist();

        PipelineState latest = storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1");
        assertThat(latest.getCheckpointId()).isEqualTo(3);
        assertThat(latest.getStates()).as("re-encoded byte-exactly").isEqualTo(savepoint.getStates());
        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "2")).isNull();
        assertThat(storage.getAllCheckpoints(JOB)).singleElement().isEqualTo(latest);
        assertThat(storage.getLatestCheckpoint(JOB)).singleElement().isEqualTo(latest);
        assertThat(storage.getCheckpointsByJobIdAndPipelineId(JOB, "1")).singleElement().isEqualTo(latest);
        assertThat(storage.getCheckpoint(JOB, "1", "3")).isEqualTo(latest);
        assertThatThrownBy(() -> storage.getCheckpoint(JOB, "1", "2")).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("checkpoint 2 of job 977");
    }

    @Test
    void rotationLeavesTheSavepointAndTheHighestIdWins() throws Exception {
        storage.storeCheckPoint(state(1, 4, CheckpointType.SAVEPOINT_TYPE));
        storage.storeCheckPoint(state(1, 5, CheckpointType.CHECKPOINT_TYPE));
        storage.deleteCheckpoint(JOB, "1", List.of("4"));
        assertThat(((KeepsakeCheckpointStorage) storage).awaitRetention(Duration.ofSeconds(30)))
                .as("the rotation ran on the retention worker").isTrue();
        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").getCheckpointId()).isEqualTo(5);
        assertThat(storage.getAllCheckpoints(JOB)).extracting(PipelineState::getCheckpointId).containsExactly(4L, 5L);
        storage.deleteCheckpoint(JOB, "1", "5");
        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").getCheckpointId()).isEqualTo(4);
        assertThat(savepoints.list(977)).hasSize(1);
    }

    @Test
    void aCorruptedSavepointIsRefusedNamingIt() throws Exception {
        storage.storeCheckPoint(state(1, 6, CheckpointType.SAVEPOINT_TYPE));
        storage.deleteCheckpoint(JOB);
        Path payload = payloadIn(ns.root().resolve("savepoint").resolve(JOB)
                .resolve(KeepsakeCheckpointStorage.savepointId(6, 1)), 1);
        byte[] bytes = Files.readAllBytes(payload);
        bytes[bytes.length - 1] ^= 0x01;
        Files.write(payload, bytes);
        assertThatThrownBy(() -> storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1"))
                .isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining(KeepsakeCheckpointStorage.savepointId(6, 1)).hasMessageContaining("job 977");
    }

    private Path bundleFile(long checkpointId, int pipeline, String file) {
        return ns.root().resolve("savepoint").resolve(JOB)
                .resolve(KeepsakeCheckpointStorage.savepointId(checkpointId, pipeline)).resolve(file);
    }

    /** The payload of {@code pipeline} in a bundle folder: {@code pipeline-<pid>.<attemptId>.wire}. */
    private static Path payloadIn(Path folder, int pipeline) throws Exception {
        try (var files = Files.list(folder)) {
            return files.filter(f -> f.getFileName().toString().startsWith("pipeline-" + pipeline + ".")
                    && f.getFileName().toString().endsWith(".wire")).findFirst()
                    .orElseThrow(() -> new AssertionError("no payload of pipeline " + pipeline + " in " + folder));
        }
    }

    private static void flipOneByte(Path file) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(file, bytes);
    }

    /**
     * Restores pipeline 1 of the job, which must give back the state stored as {@code checkpointId}
     * of {@code type}; returns what the plugin logged meanwhile.
     */
    private String restoresLogging(long checkpointId, CheckpointType type) throws Exception {
        String before = PluginLog.text();
        PipelineState latest = storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1");
        assertThat(latest.getCheckpointId()).isEqualTo(checkpointId);
        assertThat(latest.getStates()).isEqualTo(state(1, checkpointId, type).getStates());
        return PluginLog.text().substring(before.length());
    }

    @Test
    void aDamagedOlderSavepointDoesNotBlockRestoringNewerCheckpoints() throws Exception {
        storage.storeCheckPoint(state(1, 3, CheckpointType.SAVEPOINT_TYPE));
        for (long id = 4; id <= 6; id++) {
            storage.storeCheckPoint(state(1, id, CheckpointType.CHECKPOINT_TYPE));
        }
        flipOneByte(bundleFile(3, 1, "_metadata.ser"));
        flipOneByte(payloadIn(bundleFile(3, 1, ""), 1));

        String log = restoresLogging(6, CheckpointType.CHECKPOINT_TYPE);

        assertThat(log).as("the older bundle is not even read")
                .doesNotContain(KeepsakeCheckpointStorage.savepointId(3, 1));
    }

    @Test
    void aDamagedNewestSavepointIsSkippedNamedAtErrorAndTheNextNewestStateRestores() throws Exception {
        storage.storeCheckPoint(state(1, 2, CheckpointType.SAVEPOINT_TYPE));
        storage.storeCheckPoint(state(1, 3, CheckpointType.CHECKPOINT_TYPE));
        storage.storeCheckPoint(state(1, 4, CheckpointType.SAVEPOINT_TYPE));
        storage.storeCheckPoint(state(1, 5, CheckpointType.SAVEPOINT_TYPE));
        storage.deleteCheckpoint(JOB);
        flipOneByte(bundleFile(5, 1, "_metadata.ser"));
        flipOneByte(payloadIn(bundleFile(4, 1, ""), 1));

        String log = restoresLogging(2, CheckpointType.SAVEPOINT_TYPE);

        assertThat(log).contains("ERROR").contains("Skipped savepoint " + KeepsakeCheckpointStorage.savepointId(5, 1)
                        + " of job 977")
                .contains("Skipped savepoint " + KeepsakeCheckpointStorage.savepointId(4, 1) + " of job 977")
                .contains("Job 977 pipeline 1 restores from savepoint " + KeepsakeCheckpointStorage.savepointId(2, 1));
    }

    @Test
    void aDamagedSavepointNewerThanTheCheckpointFilesFallsBackToTheNewestFile() throws Exception {
        storage.storeCheckPoint(state(1, 7, CheckpointType.CHECKPOINT_TYPE));
        storage.storeCheckPoint(state(1, 8, CheckpointType.SAVEPOINT_TYPE));
        storage.deleteCheckpoint(JOB, "1", "8");
        flipOneByte(bundleFile(8, 1, "_metadata.ser"));

        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").getCheckpointId()).isEqualTo(7);
    }

    @Test
    void whenNoStateOfAPipelineReadsBackTheRestoreIsRefusedNamingTheBundles() throws Exception {
        storage.storeCheckPoint(state(1, 2, CheckpointType.SAVEPOINT_TYPE));
        storage.storeCheckPoint(state(1, 3, CheckpointType.SAVEPOINT_TYPE));
        storage.deleteCheckpoint(JOB);
        flipOneByte(bundleFile(2, 1, "_metadata.ser"));
        flipOneByte(bundleFile(3, 1, "_metadata.ser"));

        assertThatThrownBy(() -> storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1"))
                .isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("Cannot restore job 977 pipeline 1")
                .hasMessageContaining(KeepsakeCheckpointStorage.savepointId(2, 1))
                .hasMessageContaining(KeepsakeCheckpointStorage.savepointId(3, 1))
                .hasMessageNotContaining("fall back to older state");
    }

    @Test
    void pipelinesSavingAtTheSameTimeEachKeepTheirBundle() throws Exception {
        int pipelines = 4;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(pipelines);
        try {
            List<Future<String>> stores = new ArrayList<>();
            for (int p = 1; p <= pipelines; p++) {
                PipelineState s = state(p, 8, CheckpointType.SAVEPOINT_TYPE);
                stores.add(pool.submit(() -> {
                    start.await();
                    return storage.storeCheckPoint(s);
                }));
            }
            start.countDown();
            for (Future<String> f : stores) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(savepoints.list(977)).hasSize(pipelines);
        for (int p = 1; p <= pipelines; p++) {
            assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, Integer.toString(p)).getStates())
                    .isEqualTo(state(p, 8, CheckpointType.SAVEPOINT_TYPE).getStates());
        }
    }

    @Test
    void storingTheSameSavepointTwiceKeepsOneBundle() throws Exception {
        storage.storeCheckPoint(state(1, 9, CheckpointType.SAVEPOINT_TYPE));
        storage.storeCheckPoint(state(1, 9, CheckpointType.SAVEPOINT_TYPE));
        assertThat(savepoints.list(977)).hasSize(1);
    }

    private static PipelineState savepointWithTrigger(long checkpointId, long triggerTimestamp) {
        return EngineStates.of(JOB, 1, checkpointId, CheckpointType.SAVEPOINT_TYPE, triggerTimestamp, triggerTimestamp + 1);
    }

    @Test
    void aSavepointWhoseIdHoldsAnotherStateIsKeptUnderTheNextNameAndRestored() throws Exception {
        storage.storeCheckPoint(savepointWithTrigger(5, 100));
        storage.deleteCheckpoint(JOB);
        PipelineState again = savepointWithTrigger(5, 200);
        storage.storeCheckPoint(again);

        assertThat(savepoints.list(977)).extracting(SavepointHandle::savepointId).containsExactlyInAnyOrder(
                KeepsakeCheckpointStorage.savepointId(5, 1), KeepsakeCheckpointStorage.savepointId(5, 1) + "-2");
        storage.deleteCheckpoint(JOB);
        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").getStates())
                .as("the savepoint completed last wins the tie on checkpoint 5").isEqualTo(again.getStates());
    }

    @Test
    void aDamagedBundleOfTheSameIdDoesNotCountAsTheSavepointKept() throws Exception {
        PipelineState savepoint = state(1, 5, CheckpointType.SAVEPOINT_TYPE);
        storage.storeCheckPoint(savepoint);
        storage.deleteCheckpoint(JOB);
        flipOneByte(payloadIn(bundleFile(5, 1, ""), 1));
        String before = PluginLog.text();

        storage.storeCheckPoint(savepoint);

        assertThat(savepoints.list(977)).extracting(SavepointHandle::savepointId)
                .contains(KeepsakeCheckpointStorage.savepointId(5, 1) + "-2");
        assertThat(PluginLog.text().substring(before.length())).contains("fails its checks")
                .doesNotContain("is already kept");
        storage.deleteCheckpoint(JOB);
        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").getStates()).isEqualTo(savepoint.getStates());
    }

    @Test
    void aBundleWhoseMetadataDoesNotVerifyDoesNotCountAsTheSavepointKept() throws Exception {
        PipelineState savepoint = state(1, 5, CheckpointType.SAVEPOINT_TYPE);
        storage.storeCheckPoint(savepoint);
        flipOneByte(bundleFile(5, 1, "_metadata.ser"));
        storage.storeCheckPoint(savepoint);
        storage.storeCheckPoint(savepoint);

        assertThat(savepoints.list(977)).extracting(SavepointHandle::savepointId).as("the third store finds -2 kept")
                .containsExactly(KeepsakeCheckpointStorage.savepointId(5, 1) + "-2");
    }

    @Test
    void restoreOrdersSavepointsOfOneCheckpointByTheirMetadataNotTheirNames() throws Exception {
        SavepointStorage side = ((KeepsakeCheckpointStorage) storage).savepointSide();
        String base = KeepsakeCheckpointStorage.savepointId(5, 1);
        PipelineState older = savepointWithTrigger(5, 100);
        keep(side, base + "-1", older);
        long completed = keep(side, base + "-9", older).meta().completedTimestamp();
        while (System.currentTimeMillis() <= completed) {
            Thread.onSpinWait(); // the next commit completes in a later millisecond
        }
        PipelineState newer = savepointWithTrigger(5, 200);
        keep(side, base + "-5", newer);

        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").getStates())
                .as("completed last, though its name sorts neither first nor last").isEqualTo(newer.getStates());
    }

    private static SavepointHandle keep(SavepointStorage side, String savepointId, PipelineState state) {
        try (SavepointSaveSession session = SavepointSaveSession.builder(side, JOB, List.of(1))
                .kind(SavepointKind.MANUAL).savepointId(savepointId).open()) {
            session.report(LegacyCheckpointCodec.decodeCheckpoint(state.getStates(), savepointId));
            session.pipelineSuspended(1);
            return session.commit();
        }
    }

    @Test
    void badIdsAreRefusedNamingThem() {
        assertThatThrownBy(() -> storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "one"))
                .isInstanceOf(CheckpointStorageException.class).hasMessageContaining("one");
        assertThatThrownBy(() -> storage.getCheckpoint(JOB, "1", "x")).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("(x)");
    }
}
