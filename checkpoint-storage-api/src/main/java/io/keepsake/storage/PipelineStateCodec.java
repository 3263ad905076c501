package io.keepsake.storage;

import io.keepsake.storage.internal.FrozenSchema;
import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;

/**
 * Reads and writes the legacy checkpoint file body exactly as SeaTunnel 2.3.x does: protostuff
 * format of {@code PipelineState} with fields numbered by declaration order (1 jobId, 2 pipelineId,
 * 3 checkpointId, 4 states). The layout is pinned here by hand, not derived by reflection, so a
 * refactoring of {@link PipelineState} can never shift it. Thread-safe and stateless.
 */
public final class PipelineStateCodec {

    private static final Schema<Builder> SCHEMA = FrozenSchema.table("PipelineState",
                    "org.apache.seatunnel.engine.checkpoint.storage.PipelineState", Builder.class, Builder::new)
            .string("jobId", b -> b.jobId, (b, v) -> b.jobId = v)
            .int32("pipelineId", b -> b.pipelineId, (b, v) -> b.pipelineId = v)
            .int64("checkpointId", b -> b.checkpointId, (b, v) -> b.checkpointId = v)
            .bytes("states", b -> b.states, (b, v) -> b.states = v)
            .build();

    private PipelineStateCodec() {
    }

    /** Encodes a pipeline state to the bytes SeaTunnel 2.3.x would write for it. */
    public static byte[] encode(PipelineState state) {
        Builder b = new Builder();
        b.jobId = state.jobId();
        b.pipelineId = state.pipelineId();
        b.checkpointId = state.checkpointId();
        b.states = state.states();
        return ProtostuffIOUtil.toByteArray(b, SCHEMA, LinkedBuffer.allocate(256));
    }

    /**
     * Decodes a legacy checkpoint file body.
     *
     * @param bytes  the file's bytes
     * @param source the file name, for the error message
     * @throws CheckpointCorruptedException when the bytes are not a complete pipeline state
     */
    public static PipelineState decode(byte[] bytes, String source) {
        Builder b = new Builder();
        try {
            ProtostuffIOUtil.mergeFrom(bytes, b, SCHEMA);
        } catch (RuntimeException | StackOverflowError e) {
            throw new CheckpointCorruptedException(source, "Cannot decode legacy pipeline state: "
                    + e.getMessage(), null, null, e);
        }
        if (b.jobId == null || b.states == null) {
            throw new CheckpointCorruptedException(source, "Cannot decode legacy pipeline state: "
                    + (b.jobId == null ? "jobId" : "states") + " is missing", "field present", "absent");
        }
        return new PipelineState(b.jobId, b.pipelineId, b.checkpointId, b.states);
    }

    /** Mutable holder protostuff fills in; never leaves this class. */
    private static final class Builder {
        String jobId;
        int pipelineId;
        long checkpointId;
        byte[] states;
    }
}
