package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;

import java.util.Map;

/** Pipeline states as the engine hands them to the plugin: one pipeline's checkpoint without task states, legacy-encoded. */
final class EngineStates {

    private EngineStates() {
    }

    /** Checkpoint {@code checkpointId} of {@code pipeline}, triggered at {@code 10 + checkpointId} and completed at {@code 20 + checkpointId}. */
    static PipelineState of(String job, int pipeline, long checkpointId, CheckpointType type) {
        return of(job, pipeline, checkpointId, type, 10 + checkpointId, 20 + checkpointId);
    }

    /** Checkpoint {@code checkpointId} of {@code pipeline}, triggered and completed at the times given. */
    static PipelineState of(String job, int pipeline, long checkpointId, CheckpointType type, long triggeredAt,
                            long completedAt) {
        byte[] bytes = LegacyCheckpointCodec.encodeCheckpoint(new CompletedCheckpoint(Long.parseLong(job), pipeline,
                checkpointId, triggeredAt, type, completedAt, Map.of(), Map.of()));
        return PipelineState.builder().jobId(job).pipelineId(pipeline).checkpointId(checkpointId).states(bytes).build();
    }
}
