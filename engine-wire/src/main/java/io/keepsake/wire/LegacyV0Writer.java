package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.TaskStatistics;
import io.protostuff.Input;
import io.protostuff.LinkedBuffer;
import io.protostuff.Output;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Writes the legacy v0 layout ({@link LegacyLayout} lists its rules) straight from the runtime
 * values, through write-only schemas: a schema here writes one legacy message (its fields by the
 * pinned numbers, nested messages, lists, maps and arrays as groups) and refuses to read, since
 * {@link LegacyV0Reader} reads. Null references are omitted, primitives always written. Stateless
 * and thread-safe.
 */
final class LegacyV0Writer {

    private LegacyV0Writer() {
    }

    /** The bytes of a {@code CompletedCheckpoint}, as SeaTunnel 2.3.x writes them. */
    static byte[] encode(CompletedCheckpoint checkpoint) {
        return ProtostuffIOUtil.toByteArray(checkpoint, CHECKPOINT, LinkedBuffer.allocate(4096));
    }

    /** Writes one value of a list element, map key or map value under a field number. */
    private interface ValueWriter<V> {
        void write(Output output, int number, V value) throws IOException;
    }

    /** A schema that only writes; reading goes through {@link LegacyV0Reader}. */
    private abstract static class WriteOnlySchema<T> extends LegacySchemaBase<T> {

        @SuppressWarnings({"unchecked", "rawtypes"})
        WriteOnlySchema(String messageName, Class<?> typeClass, String... fieldNames) {
            super(messageName, (Class) typeClass, fieldNames);
        }

        @Override
        public final T newMessage() {
            throw new UnsupportedOperationException("the legacy " + messageName() + " writer does not read");
        }

        @Override
        public final void mergeFrom(Input input, T message) {
            throw new UnsupportedOperationException("the legacy " + messageName() + " writer does not read");
        }
    }

    private static <V> ValueWriter<V> group(Schema<V> schema) {
        return (output, number, value) -> output.writeObject(number, value, schema, true);
    }

    // ---------------------------------------------------------------- List: field 1 values, field 2 null runs

    private static final class ListSchema<E> extends WriteOnlySchema<List<E>> {
        private final ValueWriter<E> element;

        ListSchema(ValueWriter<E> element) {
            super("List", List.class, "v", "n");
            this.element = element;
        }

        @Override
        public void writeTo(Output output, List<E> elements) throws IOException {
            int nulls = 0;
            for (E value : elements) {
                if (value == null) {
                    nulls++;
                    continue;
                }
                if (nulls != 0) {
                    output.writeUInt32(2, nulls, false);
                    nulls = 0;
                }
                element.write(output, 1, value);
            }
            if (nulls != 0) {
                output.writeUInt32(2, nulls, false);
            }
        }
    }

    // ---------------------------------------------------------------- Map: field 1 entries {1 key, 2 value}

    private static final class MapSchema<K, V> extends WriteOnlySchema<Map<K, V>> {
        private final EntrySchema<K, V> entrySchema;

        MapSchema(ValueWriter<K> key, ValueWriter<V> value) {
            super("Map", Map.class, "e");
            this.entrySchema = new EntrySchema<>(key, value);
        }

        @Override
        public void writeTo(Output output, Map<K, V> map) throws IOException {
            for (Map.Entry<K, V> entry : map.entrySet()) {
                output.writeObject(1, entry, entrySchema, true);
            }
        }
    }

    private static final class EntrySchema<K, V> extends WriteOnlySchema<Map.Entry<K, V>> {
        private final ValueWriter<K> key;
        private final ValueWriter<V> value;

        EntrySchema(ValueWriter<K> key, ValueWriter<V> value) {
            super("Entry", Map.Entry.class, "k", "v");
            this.key = key;
            this.value = value;
        }

        @Override
        public void writeTo(Output output, Map.Entry<K, V> entry) throws IOException {
            if (entry.getKey() != null) {
                key.write(output, 1, entry.getKey());
            }
            if (entry.getValue() != null) {
                value.write(output, 2, entry.getValue());
            }
        }
    }

    // ---------------------------------------------------------------- boolean[]: field 1 length, field 2 elements

    private static final Schema<boolean[]> BOOL_ARRAY = new WriteOnlySchema<>("boolean[]", boolean[].class,
            "length", "element") {
        @Override
        public void writeTo(Output output, boolean[] values) throws IOException {
            output.writeInt32(1, values.length, false);
            for (boolean value : values) {
                output.writeBool(2, value, true);
            }
        }
    };

    // ---------------------------------------------------------------- ActionStateKey: 1 name

    private static final Schema<ActionStateKey> KEY = new WriteOnlySchema<>("ActionStateKey", ActionStateKey.class,
            "name") {
        @Override
        public void writeTo(Output output, ActionStateKey key) throws IOException {
            if (key.name() != null) {
                output.writeString(1, key.name(), false);
            }
        }
    };

    // ---------------------------------------------------------------- ActionSubtaskState: 1 stateKey, 2 index, 3 state

    private static final ListSchema<byte[]> STATE_LIST =
            new ListSchema<>((output, number, value) -> output.writeByteArray(number, value, true));

    private static final Schema<ActionSubtaskState> SUBTASK = new WriteOnlySchema<>("ActionSubtaskState",
            ActionSubtaskState.class, "stateKey", "index", "state") {
        @Override
        public void writeTo(Output output, ActionSubtaskState subtask) throws IOException {
            if (subtask.stateKey() != null) {
                output.writeObject(1, subtask.stateKey(), KEY, false);
            }
            output.writeInt32(2, subtask.index(), false);
            if (subtask.state() != null) {
                output.writeObject(3, subtask.state(), STATE_LIST, false);
            }
        }
    };

    // ---------------------------------------------------------------- ActionState: 1 stateKey, 2 subtaskStates, 3 coordinatorState, 4 parallelism

    private static final ListSchema<ActionSubtaskState> SUBTASK_LIST = new ListSchema<>(group(SUBTASK));

    private static final Schema<ActionState> ACTION = new WriteOnlySchema<>("ActionState", ActionState.class,
            "stateKey", "subtaskStates", "coordinatorState", "parallelism") {
        @Override
        public void writeTo(Output output, ActionState action) throws IOException {
            if (action.stateKey() != null) {
                output.writeObject(1, action.stateKey(), KEY, false);
            }
            if (action.subtaskStates() != null) {
                output.writeObject(2, action.subtaskStates(), SUBTASK_LIST, false);
            }
            if (action.coordinatorState() != null) {
                output.writeObject(3, action.coordinatorState(), SUBTASK, false);
            }
            output.writeInt32(4, action.parallelism(), false);
        }
    };

    // ---------------------------------------------------------------- SubtaskStatistics: 1 subtaskIndex, 2 ackTimestamp, 3 stateSize, 4 subtaskStatus

    private static final Schema<SubtaskStatistics> SUBTASK_STATS = new WriteOnlySchema<>("SubtaskStatistics",
            SubtaskStatistics.class, "subtaskIndex", "ackTimestamp", "stateSize", "subtaskStatus") {
        @Override
        public void writeTo(Output output, SubtaskStatistics stats) throws IOException {
            output.writeInt32(1, stats.subtaskIndex(), false);
            output.writeInt64(2, stats.ackTimestamp(), false);
            output.writeInt64(3, stats.stateSize(), false);
            if (stats.subtaskStatus() != null) {
                output.writeEnum(4, LegacyLayout.subtaskStatusOrdinal(stats.subtaskStatus()), false);
            }
        }
    };

    // ---------------------------------------------------------------- TaskStatistics: 1 jobVertexId, 2 subtaskStats, 3 subtaskCompleted, 4 numAcknowledgedSubtasks, 5 latestAckedSubtaskStatistics

    private static final ListSchema<SubtaskStatistics> SUBTASK_STATS_LIST = new ListSchema<>(group(SUBTASK_STATS));

    private static final Schema<TaskStatistics> TASK_STATS = new WriteOnlySchema<>("TaskStatistics",
            TaskStatistics.class, "jobVertexId", "subtaskStats", "subtaskCompleted", "numAcknowledgedSubtasks",
            "latestAckedSubtaskStatistics") {
        @Override
        public void writeTo(Output output, TaskStatistics task) throws IOException {
            if (task.jobVertexId() != null) {
                output.writeInt64(1, task.jobVertexId(), false);
            }
            if (task.subtaskStats() != null) {
                output.writeObject(2, task.subtaskStats(), SUBTASK_STATS_LIST, false);
            }
            if (task.subtaskCompleted() != null) {
                output.writeObject(3, task.subtaskCompleted(), BOOL_ARRAY, false);
            }
            output.writeInt32(4, task.numAcknowledgedSubtasks(), false);
            if (task.latestAckedSubtaskStatistics() != null) {
                output.writeObject(5, task.latestAckedSubtaskStatistics(), SUBTASK_STATS, false);
            }
        }
    };

    // ---------------------------------------------------------------- CompletedCheckpoint: 1..9

    private static final MapSchema<ActionStateKey, ActionState> TASK_STATES_MAP =
            new MapSchema<>(group(KEY), group(ACTION));

    private static final MapSchema<Long, TaskStatistics> TASK_STATISTICS_MAP =
            new MapSchema<>((output, number, value) -> output.writeInt64(number, value, true), group(TASK_STATS));

    private static final Schema<CompletedCheckpoint> CHECKPOINT = new WriteOnlySchema<>("CompletedCheckpoint",
            CompletedCheckpoint.class, "jobId", "pipelineId", "checkpointId", "triggerTimestamp", "checkpointType",
            "completedTimestamp", "taskStates", "taskStatistics", "isRestored") {
        @Override
        public void writeTo(Output output, CompletedCheckpoint c) throws IOException {
            output.writeInt64(1, c.jobId(), false);
            output.writeInt32(2, c.pipelineId(), false);
            output.writeInt64(3, c.checkpointId(), false);
            output.writeInt64(4, c.triggerTimestamp(), false);
            if (c.checkpointType() != null) {
                output.writeEnum(5, LegacyLayout.checkpointTypeOrdinal(c.checkpointType()), false);
            }
            output.writeInt64(6, c.completedTimestamp(), false);
            if (c.taskStates() != null) {
                output.writeObject(7, c.taskStates(), TASK_STATES_MAP, false);
            }
            if (c.taskStatistics() != null) {
                output.writeObject(8, c.taskStatistics(), TASK_STATISTICS_MAP, false);
            }
            output.writeBool(9, c.restored(), false);
        }
    };
}
