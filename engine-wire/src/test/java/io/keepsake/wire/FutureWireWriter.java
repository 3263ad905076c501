package io.keepsake.wire;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * What a later engine-wire writer might emit: every v1 field, plus new top-level tags 100 (string),
 * 101 (a group holding a varint, bytes and a nested group) and 102 (int64), and in every action
 * state a new tag 50 (group) and 51 (fixed32), and in every subtask state tags 60 (fixed64) and 61
 * (string). The end marker stays last. The committed fixture {@code unknown-future-tags.wire} holds
 * what {@link #CHECKPOINT} writes for the golden checkpoint, so these schemas never change.
 */
final class FutureWireWriter {

    /** Writes a whole checkpoint as the later writer would. */
    static final Schema<WireCheckpoint> CHECKPOINT = new FutureCheckpointSchema();

    private FutureWireWriter() {
    }

    private static final class FutureCheckpointSchema extends WriteOnlySchema<WireCheckpoint> {
        FutureCheckpointSchema() {
            super(WireCheckpoint.class);
        }

        @Override
        public void writeTo(Output output, WireCheckpoint m) throws IOException {
            output.writeString(100, "written by engine-wire-v1.1", false);
            List<WireActionState> actions = m.actionStates;
            boolean complete = m.complete;
            m.actionStates = List.of();
            m.complete = false;
            try {
                WireCheckpoint.SCHEMA.writeTo(output, m);
            } finally {
                m.actionStates = actions;
                m.complete = complete;
            }
            for (WireActionState action : actions) {
                output.writeObject(7, action, new FutureActionSchema(), true);
            }
            output.writeObject(101, new byte[] {1, 2, 3}, new ExtraGroupSchema(), false);
            output.writeInt64(102, Long.MIN_VALUE, false);
            output.writeBool(9, complete, false);
        }
    }

    private static final class FutureActionSchema extends WriteOnlySchema<WireActionState> {
        FutureActionSchema() {
            super(WireActionState.class);
        }

        @Override
        public void writeTo(Output output, WireActionState m) throws IOException {
            output.writeObject(50, new byte[] {4}, new ExtraGroupSchema(), false);
            List<WireSubtaskState> subtasks = m.subtasks;
            m.subtasks = List.of();
            try {
                WireActionState.SCHEMA.writeTo(output, m);
            } finally {
                m.subtasks = subtasks;
            }
            for (WireSubtaskState subtask : subtasks) {
                output.writeObject(3, subtask, new FutureSubtaskSchema(), true);
            }
            output.writeFixed32(51, 7, false);
        }
    }

    private static final class FutureSubtaskSchema extends WriteOnlySchema<WireSubtaskState> {
        FutureSubtaskSchema() {
            super(WireSubtaskState.class);
        }

        @Override
        public void writeTo(Output output, WireSubtaskState m) throws IOException {
            WireSubtaskState.SCHEMA.writeTo(output, m);
            output.writeFixed64(60, 8L, false);
            output.writeString(61, "sha256?", false);
        }
    }

    /** A group holding a varint, bytes and a nested group one byte shorter, down to an empty group. */
    private static final class ExtraGroupSchema extends WriteOnlySchema<byte[]> {
        ExtraGroupSchema() {
            super(byte[].class);
        }

        @Override
        public void writeTo(Output output, byte[] m) throws IOException {
            if (m.length == 0) {
                return;
            }
            output.writeInt32(1, m.length, false);
            output.writeByteArray(2, m, false);
            output.writeObject(3, Arrays.copyOf(m, m.length - 1), this, false);
        }
    }

    /** The schemas of the later writer only write. */
    private abstract static class WriteOnlySchema<T> extends NamedFieldSchema<T> {
        WriteOnlySchema(Class<T> typeClass) {
            super("future", typeClass.getSimpleName(), typeClass);
        }

        @Override
        public T newMessage() {
            throw new UnsupportedOperationException("write-only schema");
        }

        @Override
        public void mergeFrom(Input input, T message) {
            throw new UnsupportedOperationException("write-only schema");
        }
    }
}
