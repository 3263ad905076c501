package io.keepsake.reader;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sequence that loses savepoints in engines today, on the local backend found through
 * ServiceLoader: checkpoints with max-retained rotation, stop-with-savepoint, "upgrade" (a new
 * storage instance, as after a restart with new jars), restore with the same job id, more
 * checkpoints and rotation, finish, terminal cleanup. The savepoint is still listed, verifies and
 * restores again.
 */
class StopUpgradeRestoreFinishScenarioTest {

    private static final String JOB = "700000000000000777";
    private static final long JOB_ID = Long.parseLong(JOB);
    private static final int MAX_RETAINED = 2;
    private static final List<Integer> PIPELINES = List.of(1, 2);

    @TempDir
    Path temp;

    private CheckpointStorage openEngineStorage() throws Exception {
        return CheckpointStorageFactories.find("localfile").create(Map.of("namespace", temp.toString()));
    }

    /** What the engine's coordinator does per completed checkpoint: store it, then rotate beyond max-retained. */
    private static void checkpoint(CheckpointStorage storage, long checkpointId) throws Exception {
        for (int p : PIPELINES) {
            CompletedCheckpoint cp = TestCheckpoints.of(JOB_ID, p, checkpointId, CheckpointType.CHECKPOINT_TYPE);
            storage.storeCheckPoint(new PipelineState(JOB, p, checkpointId, LegacyCheckpointCodec.encodeCheckpoint(cp)));
            List<String> old = new ArrayList<>();
            for (PipelineState s : storage.getCheckpointsByJobIdAndPipelineId(JOB, Integer.toString(p))) {
                if (s.checkpointId() <= checkpointId - MAX_RETAINED) {
                    old.add(Long.toString(s.checkpointId()));
                }
            }
            storage.deleteCheckpoint(JOB, Integer.toString(p), old);
        }
    }

    @Test
    void theSavepointSurvivesRestoreRotationFinishAndTerminalCleanup() throws Exception {
        SavepointHandle savepoint;
        try (CheckpointStorage before = openEngineStorage()) {
            for (long c = 1; c <= 4; c++) {
                checkpoint(before, c);
            }
            assertThat(before.getCheckpointsByJobIdAndPipelineId(JOB, "1")).hasSize(MAX_RETAINED);
            // stop-with-savepoint
            try (SavepointSaveSession session = SavepointSaveSession.builder((SavepointStorage) before, JOB, PIPELINES).open()) {
                for (int p : PIPELINES) {
                    session.report(TestCheckpoints.savepointOf(JOB_ID, p, 5));
                    session.pipelineSuspended(p);
                }
                savepoint = session.commit();
            }
        }
        // "upgrade": new storage instance; restore with the same job id
        try (CheckpointStorage after = openEngineStorage()) {
            SavepointRestorer restorer = new SavepointRestorer(after, (SavepointStorage) after);
            RestoredState restored = restorer.recoverLatest(JOB);
            assertThat(restored.savepoint()).contains(savepoint);
            assertThat(restored.checkpoints()).containsEntry(1, TestCheckpoints.savepointOf(JOB_ID, 1, 5))
                    .containsEntry(2, TestCheckpoints.savepointOf(JOB_ID, 2, 5));
            for (long c = 6; c <= 10; c++) {
                checkpoint(after, c);
            }
            // finish, then terminal cleanup of the job
            after.deleteCheckpoint(JOB);
            assertThat(after.getAllCheckpoints(JOB)).isEmpty();

            SavepointStorage savepoints = (SavepointStorage) after;
            assertThat(savepoints.listSavepoints(JOB)).containsExactly(savepoint);
            assertThat(savepoints.readSavepoint(JOB, savepoint.savepointId()).payloads()).hasSize(2);
            assertThat(restorer.recoverLatest(JOB).checkpoints()).isEqualTo(restored.checkpoints());
        }
    }
}
