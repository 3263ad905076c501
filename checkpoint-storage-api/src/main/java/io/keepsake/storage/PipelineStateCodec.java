package io.keepsake.storage;

import io.protostuff.Input;
import io.protostuff.LinkedBuffer;
import io.protostuff.Output;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;

import java.io.IOException;

/**
 * Reads and writes the legacy checkpoint file body exactly as SeaTunnel 2.3.x does: protostuff
 * format of {@code PipelineState} with fields numbered by declaration order (1 jobId, 2 pipelineId,
 * 3 checkpointId, 4 states). The layout is pinned here by hand, not derived by reflection, so a
 * refactoring of {@link PipelineState} can never shift it. Thread-safe and stateless.
 */
public final class PipelineStateCodec {

    private static final Schema<Builder> SCHEMA = new PipelineStateSchema();

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

    private static final class PipelineStateSchema implements Schema<Builder> {
        @Override
        public String getFieldName(int number) {
            return switch (number) {
                case 1 -> "jobId";
                case 2 -> "pipelineId";
                case 3 -> "checkpointId";
                case 4 -> "states";
                default -> null;
            };
        }

        @Override
        public int getFieldNumber(String name) {
            return switch (name) {
                case "jobId" -> 1;
                case "pipelineId" -> 2;
                case "checkpointId" -> 3;
                case "states" -> 4;
                default -> 0;
            };
        }

        @Override
        public boolean isInitialized(Builder message) {
            return true;
        }

        @Override
        public Builder newMessage() {
            return new Builder();
        }

        @Override
        public String messageName() {
            return "PipelineState";
        }

        @Override
        public String messageFullName() {
            return "org.apache.seatunnel.engine.checkpoint.storage.PipelineState";
        }

        @Override
        public Class<? super Builder> typeClass() {
            return Builder.class;
        }

        @Override
        public void mergeFrom(Input input, Builder message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> message.jobId = input.readString();
                    case 2 -> message.pipelineId = input.readInt32();
                    case 3 -> message.checkpointId = input.readInt64();
                    case 4 -> message.states = input.readByteArray();
                    default -> input.handleUnknownField(number, this);
                }
            }
        }

        @Override
        public void writeTo(Output output, Builder message) throws IOException {
            if (message.jobId != null) {
                output.writeString(1, message.jobId, false);
            }
            output.writeInt32(2, message.pipelineId, false);
            output.writeInt64(3, message.checkpointId, false);
            if (message.states != null) {
                output.writeByteArray(4, message.states, false);
            }
        }
    }
}
