package example;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** An engine's whole use of Keepsake: checkpoints, stop-with-savepoint, crash recovery, restore on purpose. */
public final class EngineIntegrationExample {

    /** What the example hands back, so that a test can check it. */
    public record Outcome(SavepointHandle savepoint, RestoredState recovered, long nextCheckpointId,
                          RestoredState restored) {
    }

    /**
     * Runs a job with pipelines 1 and 2 against the local-file backend under {@code namespace}.
     *
     * @throws CheckpointStorageException when the storage cannot be opened or a checkpoint cannot be stored
     */
    public static Outcome run(String namespace, String jobId, CompletedCheckpoint checkpoint1,
                              CompletedCheckpoint checkpoint2, CompletedCheckpoint savepoint1,
                              CompletedCheckpoint savepoint2) throws CheckpointStorageException {
        // Every backend's factory returns a KeepsakeStorage: legacy checkpoints and savepoints in one object.
        try (KeepsakeStorage storage = (KeepsakeStorage) CheckpointStorageFactories.find("localfile") // or "hdfs"
                .create(Map.of("namespace", namespace))) {

            // Checkpoints: the legacy calls, unchanged (SeaTunnel 2.3.x layout and bytes).
            for (CompletedCheckpoint cp : List.of(checkpoint1, checkpoint2)) {
                storage.storeCheckPoint(new PipelineState(jobId, cp.pipelineId(), cp.checkpointId(),
                        LegacyCheckpointCodec.encodeCheckpoint(cp)));
            }

            // Stop-with-savepoint: each pipeline reports its savepoint checkpoint, from any thread.
            SavepointHandle savepoint;
            try (SavepointSaveSession session = SavepointSaveSession.builder(storage, jobId, List.of(1, 2))
                    .timeout(Duration.ofMinutes(10)).open()) {
                session.report(savepoint1);
                session.pipelineSuspended(1);
                session.report(savepoint2);
                session.pipelineSuspended(2);
                savepoint = session.commit();   // publishes only when every pipeline reported and suspended
            }                                   // close() without commit aborts: nothing becomes visible

            // Crash recovery: the newest completed state of each pipeline, checkpoint or savepoint.
            SavepointRestorer restorer = new SavepointRestorer(storage);
            RestoredState recovered = restorer.recoverLatest(jobId);
            long nextCheckpointId = recovered.nextCheckpointId();   // number the next checkpoints from here

            // Restoring a savepoint on purpose (also into a new job id): by id, or by path as Flink's -s.
            RestoredState restored = restorer.restoreSavepointAt(savepoint.location());
            Map<Integer, CompletedCheckpoint> byPipeline = restored.checkpoints();   // what the engine deploys
            return new Outcome(savepoint, recovered, nextCheckpointId, new RestoredState(restored.source(),
                    restored.savepoint(), byPipeline, restored.origins(), restored.warnings()));
        }
    }

    private EngineIntegrationExample() {
    }
}
