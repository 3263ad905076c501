package io.keepsake.storage;

import java.util.List;

/**
 * The legacy checkpoint SPI, with the operations and meanings engines call today (SeaTunnel
 * 2.3.x). One file per pipeline per checkpoint under {@code <namespace>/<jobId>/}; "latest" means
 * the highest checkpoint id. Implementations are thread-safe. Nothing here ever touches the
 * savepoint root.
 */
public interface CheckpointStorage extends AutoCloseable {

    /**
     * Stores one pipeline's checkpoint durably and returns the file name it was stored under.
     *
     * @throws CheckpointStorageException when the write fails; no torn file is left behind
     */
    String storeCheckPoint(PipelineState state) throws CheckpointStorageException;

    /**
     * Writes one pipeline's checkpoint durably under a hidden name, to be made visible by
     * {@link StagedCheckpoint#publish()}; a storage that cannot stage does the whole store at publish.
     *
     * @throws CheckpointStorageException when the write fails; nothing is left behind
     */
    default StagedCheckpoint stageCheckPoint(PipelineState state) throws CheckpointStorageException {
        return new StagedCheckpoint() {
            @Override
            public String publish() throws CheckpointStorageException {
                return storeCheckPoint(state);
            }

            @Override
            public void close() {
            }
        };
    }

    /** Stores a checkpoint on a background thread; failures are logged with the job id. */
    void asyncStoreCheckPoint(PipelineState state) throws CheckpointStorageException;

    /** Every readable checkpoint of a job, all pipelines; empty when there is none. */
    List<PipelineState> getAllCheckpoints(String jobId) throws CheckpointStorageException;

    /** The checkpoint with the highest id of each pipeline of a job; empty when there is none. */
    List<PipelineState> getLatestCheckpoint(String jobId) throws CheckpointStorageException;

    /** The checkpoint with the highest id of one pipeline, or null when it has none. */
    PipelineState getLatestCheckpointByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException;

    /** Every readable checkpoint of one pipeline; empty when there is none. */
    List<PipelineState> getCheckpointsByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException;

    /**
     * One checkpoint by ids.
     *
     * @throws CheckpointStorageException when it does not exist or cannot be decoded
     */
    PipelineState getCheckpoint(String jobId, String pipelineId, String checkpointId)
            throws CheckpointStorageException;

    /**
     * Deletes every checkpoint of a job (terminal cleanup); savepoints are never touched.
     *
     * @throws KeepsakeException when the checkpoints cannot be deleted
     */
    void deleteCheckpoint(String jobId);

    /** Deletes one checkpoint of one pipeline (rotation). */
    void deleteCheckpoint(String jobId, String pipelineId, String checkpointId) throws CheckpointStorageException;

    /** Deletes several checkpoints of one pipeline (rotation). */
    void deleteCheckpoint(String jobId, String pipelineId, List<String> checkpointIdList)
            throws CheckpointStorageException;

    /** Releases threads and file-system handles; the default does nothing. */
    @Override
    default void close() {
    }
}
