package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;

import java.util.Arrays;
import java.util.Objects;

/**
 * One pipeline's checkpoint as the legacy checkpoint SPI stores it: the job, the pipeline, the
 * checkpoint id and the engine's opaque state bytes. Encoded byte-compatibly with SeaTunnel
 * 2.3.x by {@link PipelineStateCodec}.
 *
 * @param jobId        the job id as a string (SeaTunnel job ids are decimal longs)
 * @param pipelineId   the pipeline within the job
 * @param checkpointId the checkpoint id; "latest" means the highest one
 * @param states       the engine's serialized checkpoint; never null
 */
public record PipelineState(String jobId, int pipelineId, long checkpointId, byte[] states) {

    /** Validates the components (and copies collections). */
    public PipelineState {
        Arguments.requireNonNull("create pipeline state", "jobId", jobId);
        Arguments.requireNonNull("create pipeline state", "states", states);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PipelineState other
                && jobId.equals(other.jobId)
                && pipelineId == other.pipelineId
                && checkpointId == other.checkpointId
                && Arrays.equals(states, other.states);
    }

    @Override
    public int hashCode() {
        return Objects.hash(jobId, pipelineId, checkpointId) * 31 + Arrays.hashCode(states);
    }

    @Override
    public String toString() {
        return "PipelineState[jobId=" + jobId + ", pipelineId=" + pipelineId
                + ", checkpointId=" + checkpointId + ", states=" + states.length + " bytes]";
    }
}
