package io.keepsake.reader;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Crash recovery takes the newest completed state of each pipeline, checkpoint or savepoint;
 * restoring a savepoint is explicit, by id or by path, and ignores newer checkpoints.
 */
class RecoverLatestVersusRestoreSavepointTest extends OnLocalStorage {

    private static final long JOB = 7;

    private SavepointRestorer restorer;

    @BeforeEach
    void setUp() {
        restorer = new SavepointRestorer(storage);
    }

    private void checkpoint(int pipeline, long checkpointId) throws Exception {
        CompletedCheckpoint cp = TestCheckpoints.of(JOB, pipeline, checkpointId, CheckpointType.CHECKPOINT_TYPE);
        storage.storeCheckPoint(new PipelineState(Long.toString(JOB), pipeline, checkpointId,
                LegacyCheckpointCodec.encodeCheckpoint(cp)));
    }

    private SavepointHandle savepoint(long checkpointId, int... pipelines) {
        List<Integer> ids = java.util.Arrays.stream(pipelines).boxed().toList();
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, Long.toString(JOB), ids)
                .kind(SavepointKind.MANUAL).open()) {
            for (int p : pipelines) {
                session.report(TestCheckpoints.savepointOf(JOB, p, checkpointId));
                session.pipelineSuspended(p);
            }
            return session.commit();
        }
    }

    @Test
    void recoveryAfterASavepointAndTwoLaterCheckpointsTakesTheNewestCheckpointOfEachPipeline() throws Exception {
        for (long c = 1; c <= 4; c++) {
            checkpoint(1, c);
            checkpoint(2, c);
        }
        SavepointHandle sp = savepoint(4, 1, 2);
        checkpoint(1, 5);
        checkpoint(2, 5);
        checkpoint(1, 6);
        checkpoint(2, 6);

        RestoredState recovered = restorer.recoverLatest(Long.toString(JOB));

        assertThat(recovered.checkpoints()).containsOnlyKeys(1, 2);
        assertThat(recovered.checkpoints().values()).extracting(CompletedCheckpoint::checkpointId)
                .containsExactly(6L, 6L);
        assertThat(recovered.checkpoints().get(1)).isEqualTo(TestCheckpoints.of(JOB, 1, 6, CheckpointType.CHECKPOINT_TYPE));
        assertThat(recovered.source()).isEqualTo(RestoredState.Source.LEGACY_CHECKPOINTS);
        assertThat(recovered.savepoint()).isEmpty();
        assertThat(recovered.origins().values()).allSatisfy(o -> assertThat(o.savepointId()).isEmpty());
        assertThat(recovered.nextCheckpointId()).isEqualTo(7);

        RestoredState onPurpose = restorer.restoreSavepoint(Long.toString(JOB), sp.savepointId());
        assertThat(onPurpose.source()).isEqualTo(RestoredState.Source.SAVEPOINT);
        assertThat(onPurpose.checkpoints().values()).extracting(CompletedCheckpoint::checkpointId)
                .containsExactly(4L, 4L);
        assertThat(restorer.restoreSavepointAt(sp.location()).checkpoints()).isEqualTo(onPurpose.checkpoints());
    }

    @Test
    void recoveryChoosesPerPipelineBetweenCheckpointFilesAndSavepoints() throws Exception {
        checkpoint(1, 3);
        checkpoint(2, 3);
        savepoint(4, 1, 2);
        checkpoint(1, 5);   // pipeline 1 moved on after the savepoint; pipeline 2 did not yet

        RestoredState recovered = restorer.recoverLatest(Long.toString(JOB));

        assertThat(recovered.source()).isEqualTo(RestoredState.Source.MIXED);
        assertThat(recovered.checkpoints().get(1).checkpointId()).isEqualTo(5);
        assertThat(recovered.checkpoints().get(2)).isEqualTo(TestCheckpoints.savepointOf(JOB, 2, 4));
        assertThat(recovered.origins().get(1).savepointId()).isEmpty();
        assertThat(recovered.origins().get(2).savepointId()).isPresent();
        assertThat(recovered.nextCheckpointId()).isEqualTo(6);
    }

    @Test
    void aSavepointAndACheckpointFileOfTheSameIdRecoverFromTheChecksummedSavepoint() throws Exception {
        checkpoint(1, 4);
        SavepointHandle sp = savepoint(4, 1);

        RestoredState recovered = restorer.recoverLatest(Long.toString(JOB));

        assertThat(recovered.source()).isEqualTo(RestoredState.Source.SAVEPOINT);
        assertThat(recovered.savepoint()).contains(sp);
        assertThat(recovered.origins().get(1).savepointId()).isEqualTo(Optional.of(sp.savepointId()));
        assertThat(recovered.warnings()).isEmpty();
    }

    @Test
    void recoveryFallsBackFromACorruptedNewestSavepointToTheCheckpointFilesOnlyWhenAskedTo() throws Exception {
        checkpoint(1, 3);
        SavepointHandle sp = savepoint(4, 1);
        Path payload = Path.of(sp.location(), sp.meta().manifest().get(0).file());
        byte[] bytes = Files.readAllBytes(payload);
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(payload, bytes);

        assertThatThrownBy(() -> restorer.recoverLatest(Long.toString(JOB)))
                .isInstanceOf(SavepointCorruptedException.class);
        RestoredState fallback = restorer.withFallbackPastCorrupted(true).recoverLatest(Long.toString(JOB));
        assertThat(fallback.checkpoints().get(1).checkpointId()).isEqualTo(3);
        assertThat(fallback.source()).isEqualTo(RestoredState.Source.LEGACY_CHECKPOINTS);
        assertThat(fallback.warnings()).singleElement().asString().contains(sp.savepointId(), "corrupted");
    }

    /**
     * A payload that is a directory or a FIFO is corruption like a flipped byte: recovery fails on
     * it without fallback, skips it with fallback, and never blocks on the FIFO.
     */
    @Test
    void recoveryFallsBackPastAPayloadThatIsADirectoryOrAFifo() throws Exception {
        SavepointHandle intact = savepoint(4, 1);
        SavepointHandle directory = savepoint(5, 1);
        SavepointHandle fifo = savepoint(6, 1);
        Path asDirectory = Path.of(directory.location(), directory.meta().manifest().get(0).file());
        Files.delete(asDirectory);
        Files.createDirectory(asDirectory);
        Path asFifo = Path.of(fifo.location(), fifo.meta().manifest().get(0).file());
        Files.delete(asFifo);
        Process mkfifo = new ProcessBuilder("mkfifo", asFifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).as("mkfifo " + asFifo).isZero();

        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertThatThrownBy(() -> restorer.recoverLatest(Long.toString(JOB)))
                    .isInstanceOf(SavepointCorruptedException.class).hasMessageContaining("not a regular file")
                    .hasMessageContaining(asFifo.toString());
            RestoredState fallback = restorer.withFallbackPastCorrupted(true).recoverLatest(Long.toString(JOB));
            assertThat(fallback.savepoint()).contains(intact);
            assertThat(fallback.checkpoints().get(1).checkpointId()).isEqualTo(4);
            assertThat(fallback.warnings()).hasSize(2).anySatisfy(w -> assertThat(w).contains(fifo.savepointId()))
                    .anySatisfy(w -> assertThat(w).contains(directory.savepointId(), "not a regular file"));
        });
    }

    @Test
    void aSavepointRestoresIntoANewJobIdAndThatJobsCleanupLeavesItAlone() throws Exception {
        SavepointHandle old = savepoint(4, 1, 2);
        String newJob = "8";

        // The engine restores job 7's savepoint on purpose and runs it as job 8: it re-stamps the job id.
        RestoredState restored = restorer.restoreSavepoint(Long.toString(JOB), old.savepointId());
        for (CompletedCheckpoint cp : restored.checkpoints().values()) {
            CompletedCheckpoint asNewJob = new CompletedCheckpoint(8, cp.pipelineId(), restored.nextCheckpointId(),
                    cp.triggerTimestamp(), CheckpointType.CHECKPOINT_TYPE, cp.completedTimestamp(), cp.taskStates(),
                    cp.taskStatistics());
            storage.storeCheckPoint(new PipelineState(newJob, cp.pipelineId(), asNewJob.checkpointId(),
                    LegacyCheckpointCodec.encodeCheckpoint(asNewJob)));
        }
        RestoredState recoveredNewJob = restorer.recoverLatest(newJob);
        assertThat(recoveredNewJob.checkpoints().values()).allSatisfy(cp -> {
            assertThat(cp.jobId()).isEqualTo(8);
            assertThat(cp.checkpointId()).isEqualTo(5);
        });
        assertThat(recoveredNewJob.checkpoints().get(1).taskStates()).isEqualTo(restored.checkpoints().get(1).taskStates());

        storage.deleteCheckpoint(newJob);   // job 8 finishes: its terminal cleanup
        storage.deleteSavepoints(newJob);

        assertThat(storage.listSavepoints(Long.toString(JOB))).containsExactly(old);
        assertThat(restorer.restoreSavepoint(Long.toString(JOB), old.savepointId()).checkpoints())
                .isEqualTo(restored.checkpoints());
    }
}
