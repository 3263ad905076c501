package io.keepsake.storage;

/**
 * One legacy checkpoint file as it lies in a job's checkpoint folder, found by name alone
 * (nothing is read): {@code <millis>-<random>-<pipelineId>-<checkpointId>.ser}.
 *
 * @param jobId        the job whose folder holds it
 * @param pipelineId   the pipeline, from the name
 * @param checkpointId the checkpoint, from the name
 * @param fileName     the file's name
 * @param path         the file, in the backend's path syntax
 * @param length       its length in bytes
 */
public record CheckpointFile(String jobId, int pipelineId, long checkpointId, String fileName, String path,
                             long length) {
}
