package io.keepsake.seatunnel;

import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pipelines whose stop-with-savepoint failed because the savepoint could not be kept, and the
 * refusal of their later checkpoints that lets SeaTunnel 2.3.x end such a job.
 *
 * <p>Why: when storing a savepoint fails, the engine (2.3.8 and 2.3.4 both) cancels and restarts the
 * pipeline from its last checkpoint but leaves the job in {@code DOING_SAVEPOINT}, and nothing in the
 * engine ever leaves that state again: the job runs on, checkpointing, and never reaches
 * {@code SAVEPOINT_DONE}. Short of a cancel, the engine ends a job only when a pipeline fails more
 * often than {@code job.retry.times} allows, which is what a checkpoint store that keeps failing causes. So after a failed savepoint the pipeline's
 * later checkpoints are refused, and the job ends {@code FAILED} after the engine's retries, with
 * no state written after the last good checkpoint.
 *
 * <p>A refusal lasts until the job is restored ({@code -r} reads its latest state), its checkpoints
 * are deleted at its end, or a later savepoint of the pipeline is kept; a savepoint is never
 * refused, so {@code -s} can be tried again once the savepoint root is fixed. It covers one engine
 * member: the state is in memory. Thread-safe.
 */
final class FailedSavepoints {

    /** One failed stop-with-savepoint of one pipeline. */
    private record Failure(long checkpointId, String savepointId, String reason) {
    }

    private final Map<String, Failure> failures = new ConcurrentHashMap<>();

    /** Records that the savepoint of a pipeline at a checkpoint could not be kept. */
    void failed(String jobId, int pipelineId, long checkpointId, String savepointId, String reason) {
        failures.put(key(jobId, pipelineId), new Failure(checkpointId, savepointId, reason));
    }

    /** Forgets a pipeline's failure once one of its savepoints is kept. */
    void kept(String jobId, int pipelineId) {
        failures.remove(key(jobId, pipelineId));
    }

    /** Forgets a pipeline's failure when the job is restored from storage. */
    void restored(String jobId, int pipelineId) {
        failures.remove(key(jobId, pipelineId));
    }

    /** Forgets every failure of a job whose checkpoints are deleted at its end. */
    void ended(String jobId) {
        failures.keySet().removeIf(k -> k.startsWith(jobId + "/"));
    }

    /**
     * Refuses a checkpoint of a pipeline whose stop-with-savepoint failed before it.
     *
     * @throws CheckpointStorageException when the pipeline's savepoint at an earlier checkpoint could not be kept
     */
    void checkCheckpoint(String jobId, int pipelineId, long checkpointId) throws CheckpointStorageException {
        Failure failure = failures.get(key(jobId, pipelineId));
        if (failure != null && checkpointId > failure.checkpointId()) {
            throw new CheckpointStorageException("Cannot store checkpoint " + checkpointId + " of job " + jobId
                    + " pipeline " + pipelineId + ": the stop-with-savepoint of this pipeline failed at checkpoint "
                    + failure.checkpointId() + " (savepoint " + failure.savepointId() + " could not be kept: "
                    + failure.reason() + "), so its checkpoints are refused until the engine fails the job after"
                    + " job.retry.times restarts instead of leaving it in DOING_SAVEPOINT; once the savepoint root takes"
                    + " writes again, resume with `seatunnel.sh -r " + jobId + "` (from the newest checkpoint before"
                    + " the savepoint)");
        }
    }

    private static String key(String jobId, int pipelineId) {
        return jobId + "/" + pipelineId;
    }
}
