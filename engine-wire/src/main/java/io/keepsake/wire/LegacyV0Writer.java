package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;
import io.keepsake.storage.internal.FrozenSchema;
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

    /** The field table of a legacy message; its schema writes only (reading goes through {@link LegacyV0Reader}). */
    private static <T> FrozenSchema.Table<T> table(String messageName, Class<T> typeClass) {
        return FrozenSchema.table(messageName, LegacySchemaBase.FORMAT_NAME + "." + messageName, typeClass, () -> {
            throw new UnsupportedOperationException("the legacy " + messageName + " writer does not read");
        });
    }

    /** A message field holding a nested message of {@code schema}. */
    private static <V> FrozenSchema.ValueWriter<V> nested(Schema<V> schema) {
        return FrozenSchema.group(schema).writer();
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

    private static final Schema<ActionStateKey> KEY = table("ActionStateKey", ActionStateKey.class)
            .writeOnly("name", Output::writeString, ActionStateKey::name)
            .build();

    // ---------------------------------------------------------------- ActionSubtaskState: 1 stateKey, 2 index, 3 state

    private static final ListSchema<byte[]> STATE_LIST =
            new ListSchema<>((output, number, value) -> output.writeByteArray(number, value, true));

    private static final Schema<ActionSubtaskState> SUBTASK = table("ActionSubtaskState", ActionSubtaskState.class)
            .writeOnly("stateKey", nested(KEY), ActionSubtaskState::stateKey)
            .writeOnly("index", Output::writeInt32, ActionSubtaskState::index)
            .writeOnly("state", nested(STATE_LIST), ActionSubtaskState::state)
            .build();

    // ---------------------------------------------------------------- ActionState: 1 stateKey, 2 subtaskStates, 3 coordinatorState, 4 parallelism

    private static final ListSchema<ActionSubtaskState> SUBTASK_LIST = new ListSchema<>(group(SUBTASK));

    private static final Schema<ActionState> ACTION = table("ActionState", ActionState.class)
            .writeOnly("stateKey", nested(KEY), ActionState::stateKey)
            .writeOnly("subtaskStates", nested(SUBTASK_LIST), ActionState::subtaskStates)
            .writeOnly("coordinatorState", nested(SUBTASK), ActionState::coordinatorState)
            .writeOnly("parallelism", Output::writeInt32, ActionState::parallelism)
            .build();

    // ---------------------------------------------------------------- SubtaskStatistics: 1 subtaskIndex, 2 ackTimestamp, 3 stateSize, 4 subtaskStatus

    private static final Schema<SubtaskStatistics> SUBTASK_STATS = table("SubtaskStatistics", SubtaskStatistics.class)
            .writeOnly("subtaskIndex", Output::writeInt32, SubtaskStatistics::subtaskIndex)
            .writeOnly("ackTimestamp", Output::writeInt64, SubtaskStatistics::ackTimestamp)
            .writeOnly("stateSize", Output::writeInt64, SubtaskStatistics::stateSize)
            .writeOnly("subtaskStatus", LegacyV0Writer::writeSubtaskStatus, SubtaskStatistics::subtaskStatus)
            .build();

    // ---------------------------------------------------------------- TaskStatistics: 1 jobVertexId, 2 subtaskStats, 3 subtaskCompleted, 4 numAcknowledgedSubtasks, 5 latestAckedSubtaskStatistics

    private static final ListSchema<SubtaskStatistics> SUBTASK_STATS_LIST = new ListSchema<>(group(SUBTASK_STATS));

    private static final Schema<TaskStatistics> TASK_STATS = table("TaskStatistics", TaskStatistics.class)
            .writeOnly("jobVertexId", Output::writeInt64, TaskStatistics::jobVertexId)
            .writeOnly("subtaskStats", nested(SUBTASK_STATS_LIST), TaskStatistics::subtaskStats)
            .writeOnly("subtaskCompleted", nested(BOOL_ARRAY), TaskStatistics::subtaskCompleted)
            .writeOnly("numAcknowledgedSubtasks", Output::writeInt32, TaskStatistics::numAcknowledgedSubtasks)
            .writeOnly("latestAckedSubtaskStatistics", nested(SUBTASK_STATS),
                    TaskStatistics::latestAckedSubtaskStatistics)
            .build();

    // ---------------------------------------------------------------- CompletedCheckpoint: 1..9

    private static final MapSchema<ActionStateKey, ActionState> TASK_STATES_MAP =
            new MapSchema<>(group(KEY), group(ACTION));

    private static final MapSchema<Long, TaskStatistics> TASK_STATISTICS_MAP =
            new MapSchema<>((output, number, value) -> output.writeInt64(number, value, true), group(TASK_STATS));

    private static final Schema<CompletedCheckpoint> CHECKPOINT = table("CompletedCheckpoint",
                    CompletedCheckpoint.class)
            .writeOnly("jobId", Output::writeInt64, CompletedCheckpoint::jobId)
            .writeOnly("pipelineId", Output::writeInt32, CompletedCheckpoint::pipelineId)
            .writeOnly("checkpointId", Output::writeInt64, CompletedCheckpoint::checkpointId)
            .writeOnly("triggerTimestamp", Output::writeInt64, CompletedCheckpoint::triggerTimestamp)
            .writeOnly("checkpointType", LegacyV0Writer::writeCheckpointType, CompletedCheckpoint::checkpointType)
            .writeOnly("completedTimestamp", Output::writeInt64, CompletedCheckpoint::completedTimestamp)
            .writeOnly("taskStates", nested(TASK_STATES_MAP), CompletedCheckpoint::taskStates)
            .writeOnly("taskStatistics", nested(TASK_STATISTICS_MAP), CompletedCheckpoint::taskStatistics)
            .writeOnly("isRestored", Output::writeBool, CompletedCheckpoint::restored)
            .build();

    private static void writeCheckpointType(Output output, int tag, CheckpointType type, boolean repeated)
            throws IOException {
        output.writeEnum(tag, LegacyLayout.checkpointTypeOrdinal(type), repeated);
    }

    private static void writeSubtaskStatus(Output output, int tag, SubtaskStatus status, boolean repeated)
            throws IOException {
        output.writeEnum(tag, LegacyLayout.subtaskStatusOrdinal(status), repeated);
    }
}
