package io.keepsake.engine;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;

import java.util.Collection;
import java.util.List;

/**
 * Promotes a failed job's latest completed checkpoint into a savepoint bundle of kind
 * retained-checkpoint, so that it survives the job's terminal cleanup and can be restored once
 * the job is fixed. Stateless.
 */
public final class RetainedCheckpoints {

    private RetainedCheckpoints() {
    }

    /**
     * Saves the given checkpoints (one per pipeline) as a retained-checkpoint savepoint.
     *
     * @throws SavepointStorageException when the bundle cannot be committed
     */
    public static SavepointHandle retain(SavepointStorage storage, String jobId, Collection<CompletedCheckpoint> latest) {
        List<Integer> pipelines = latest.stream().map(CompletedCheckpoint::pipelineId).toList();
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, jobId, pipelines)
                .kind(SavepointKind.RETAINED_CHECKPOINT).open()) {
            for (CompletedCheckpoint cp : latest) {
                session.report(cp);
                session.pipelineSuspended(cp.pipelineId());
            }
            return session.commit();
        }
    }

    /**
     * Reads the job's latest checkpoint of each pipeline from the legacy checkpoint storage
     * (SeaTunnel 2.3.x encoding) and saves them as a retained-checkpoint savepoint.
     *
     * @throws SavepointNotFoundException when the job has no checkpoint
     * @throws SavepointStorageException  when a checkpoint cannot be read or the bundle committed
     */
    public static SavepointHandle retainLatest(CheckpointStorage checkpoints, SavepointStorage savepoints, String jobId) {
        List<LegacyCheckpoints.Decoded> latest = LegacyCheckpoints.latest(checkpoints, jobId);
        if (latest.isEmpty()) {
            throw new SavepointNotFoundException("Cannot retain the latest checkpoint of job " + jobId
                    + ": it has no completed checkpoint");
        }
        return retain(savepoints, jobId, latest.stream().map(LegacyCheckpoints.Decoded::checkpoint).toList());
    }
}
