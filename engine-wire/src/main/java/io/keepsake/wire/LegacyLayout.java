package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;
import io.protostuff.Input;
import io.protostuff.LinkedBuffer;
import io.protostuff.Output;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The legacy v0 layout of a {@code CompletedCheckpoint}, pinned by hand: the bytes SeaTunnel 2.3.x
 * writes through protostuff 1.8.0's runtime schema with {@code preserve_null_elements=true}.
 *
 * <p>Facts this layout reproduces (checked against real files written by SeaTunnel 2.3.8):
 * <ul>
 *   <li>fields are numbered 1, 2, 3 ... in the engine's declaration order; nested messages,
 *       collections, maps and arrays are groups (start-group tag, content, end-group tag with the
 *       same field number), never length-delimited;</li>
 *   <li>primitive fields are always written, even when zero or false; null references are
 *       omitted; enums are written as their ordinal (varint) from a table pinned here;</li>
 *   <li>a {@code List} is a group holding field 1 once per non-null element, in order, and field 2
 *       (uint32) with the length of each run of null elements, written just before the next
 *       non-null element or at the end; an empty list is an empty group;</li>
 *   <li>a {@code Map} is a group holding field 1 once per entry in iteration order; each entry is
 *       a group with the key as field 1 and the value as field 2 (a boxed {@code Long} key is an
 *       int64 varint, an object key is a group); an empty map is an empty group;</li>
 *   <li>a {@code boolean[]} is a group holding its length as field 1 (int32) followed by one
 *       field 2 (bool varint) per element;</li>
 *   <li>an {@code int} is a plain int32 varint, so -1 takes ten bytes.</li>
 * </ul>
 *
 * <p>Decoding reads through {@link BoundedInput}; runs of nulls are charged to its expansion
 * budget. Unknown fields in messages are skipped (as protostuff does); unknown fields inside a
 * collection, map or array group are rejected (as protostuff does). Stateless and thread-safe.
 *
 * <p>Each {@code *Message} class below is the mutable form of one legacy message (a
 * {@code CompletedCheckpoint}, an {@code ActionStateKey}, a list, a map and its entries, ...): its
 * schema reads into it and writes from it, and its {@code build()} checks what was read and turns
 * it into the runtime value.
 */
final class LegacyLayout {

    /** Most null elements that runs of nulls in one input may expand to, in total. */
    public static final long MAX_EXPANDED_NULLS = 1L << 22;

    /** Legacy ordinals of {@link CheckpointType}, index = ordinal; pinned, never derived. */
    private static final CheckpointType[] CHECKPOINT_TYPES = {
        CheckpointType.CHECKPOINT_TYPE,
        CheckpointType.SCHEMA_CHANGE_BEFORE_POINT_TYPE,
        CheckpointType.SCHEMA_CHANGE_AFTER_POINT_TYPE,
        CheckpointType.SAVEPOINT_TYPE,
        CheckpointType.COMPLETED_POINT_TYPE,
    };

    /** Legacy ordinals of {@link SubtaskStatus}, index = ordinal; pinned, never derived. */
    private static final SubtaskStatus[] SUBTASK_STATUSES = {
        SubtaskStatus.RUNNING,
        SubtaskStatus.SAVEPOINT_PREPARE_CLOSE,
        SubtaskStatus.AUTO_PREPARE_CLOSE,
    };

    private LegacyLayout() {
    }

    /** Encodes a checkpoint exactly as SeaTunnel 2.3.x would. */
    public static byte[] encode(CompletedCheckpoint checkpoint) {
        return ProtostuffIOUtil.toByteArray(new CheckpointMessage(checkpoint), CHECKPOINT, LinkedBuffer.allocate(4096));
    }

    /**
     * Decodes the bytes of a legacy {@code CompletedCheckpoint}.
     *
     * @throws WireFormatException when the bytes do not follow the layout
     */
    public static CompletedCheckpoint decode(byte[] bytes) throws IOException {
        BoundedInput input = new BoundedInput(bytes, MAX_EXPANDED_NULLS);
        return input.readMessage(new CheckpointMessage(), CHECKPOINT).build();
    }

    static int checkpointTypeOrdinal(CheckpointType type) {
        for (int i = 0; i < CHECKPOINT_TYPES.length; i++) {
            if (CHECKPOINT_TYPES[i] == type) {
                return i;
            }
        }
        throw new IllegalStateException("Cannot encode checkpoint type: no legacy ordinal is pinned (" + type + ")");
    }

    static int subtaskStatusOrdinal(SubtaskStatus status) {
        for (int i = 0; i < SUBTASK_STATUSES.length; i++) {
            if (SUBTASK_STATUSES[i] == status) {
                return i;
            }
        }
        throw new IllegalStateException("Cannot encode subtask status: no legacy ordinal is pinned (" + status + ")");
    }

    private static CheckpointType checkpointType(int ordinal) throws WireFormatException {
        if (ordinal < 0 || ordinal >= CHECKPOINT_TYPES.length) {
            StringBuilder known = new StringBuilder();
            for (int i = 0; i < CHECKPOINT_TYPES.length; i++) {
                known.append(i == 0 ? "" : ", ").append(i).append('=').append(CHECKPOINT_TYPES[i].typeName());
            }
            throw new WireFormatException("unknown checkpoint type ordinal; known ordinals are " + known
                    + " (" + ordinal + ")");
        }
        return CHECKPOINT_TYPES[ordinal];
    }

    private static SubtaskStatus subtaskStatus(int ordinal) throws WireFormatException {
        if (ordinal < 0 || ordinal >= SUBTASK_STATUSES.length) {
            StringBuilder known = new StringBuilder();
            for (int i = 0; i < SUBTASK_STATUSES.length; i++) {
                known.append(i == 0 ? "" : ", ").append(i).append('=').append(SUBTASK_STATUSES[i].name());
            }
            throw new WireFormatException("unknown subtask status ordinal; known ordinals are " + known
                    + " (" + ordinal + ")");
        }
        return SUBTASK_STATUSES[ordinal];
    }

    private static <T> T required(T value, String message, int field, String name) throws WireFormatException {
        if (value == null) {
            throw new WireFormatException(message + " lacks field " + field + " (" + name + ")");
        }
        return value;
    }

    // ---------------------------------------------------------------- element codecs

    /** Reads and writes one value of a list element, map key or map value. */
    private interface ValueCodec<V> {
        V read(Input input) throws IOException;

        void write(Output output, int number, V value) throws IOException;
    }

    private static final ValueCodec<byte[]> BYTES = new ValueCodec<>() {
        @Override
        public byte[] read(Input input) throws IOException {
            return input.readByteArray();
        }

        @Override
        public void write(Output output, int number, byte[] value) throws IOException {
            output.writeByteArray(number, value, true);
        }
    };

    private static final ValueCodec<Long> INT64 = new ValueCodec<>() {
        @Override
        public Long read(Input input) throws IOException {
            return input.readInt64();
        }

        @Override
        public void write(Output output, int number, Long value) throws IOException {
            output.writeInt64(number, value, true);
        }
    };

    private static final ValueCodec<ActionStateKey> KEY_VALUE = new ValueCodec<>() {
        @Override
        public ActionStateKey read(Input input) throws IOException {
            return input.mergeObject(new KeyMessage(), KEY).build();
        }

        @Override
        public void write(Output output, int number, ActionStateKey value) throws IOException {
            output.writeObject(number, new KeyMessage(value), KEY, true);
        }
    };

    private static final ValueCodec<ActionSubtaskState> SUBTASK_VALUE = new ValueCodec<>() {
        @Override
        public ActionSubtaskState read(Input input) throws IOException {
            return input.mergeObject(new SubtaskMessage(), SUBTASK).build();
        }

        @Override
        public void write(Output output, int number, ActionSubtaskState value) throws IOException {
            output.writeObject(number, new SubtaskMessage(value), SUBTASK, true);
        }
    };

    private static final ValueCodec<ActionState> ACTION_VALUE = new ValueCodec<>() {
        @Override
        public ActionState read(Input input) throws IOException {
            return input.mergeObject(new ActionMessage(), ACTION).build();
        }

        @Override
        public void write(Output output, int number, ActionState value) throws IOException {
            output.writeObject(number, new ActionMessage(value), ACTION, true);
        }
    };

    private static final ValueCodec<SubtaskStatistics> SUBTASK_STATS_VALUE = new ValueCodec<>() {
        @Override
        public SubtaskStatistics read(Input input) throws IOException {
            return input.mergeObject(new SubtaskStatsMessage(), SUBTASK_STATS).build();
        }

        @Override
        public void write(Output output, int number, SubtaskStatistics value) throws IOException {
            output.writeObject(number, new SubtaskStatsMessage(value), SUBTASK_STATS, true);
        }
    };

    private static final ValueCodec<TaskStatistics> TASK_STATS_VALUE = new ValueCodec<>() {
        @Override
        public TaskStatistics read(Input input) throws IOException {
            return input.mergeObject(new TaskStatsMessage(), TASK_STATS).build();
        }

        @Override
        public void write(Output output, int number, TaskStatistics value) throws IOException {
            output.writeObject(number, new TaskStatsMessage(value), TASK_STATS, true);
        }
    };

    // ---------------------------------------------------------------- List: field 1 values, field 2 null runs

    private static final class ListMessage<E> {
        final List<E> elements;

        ListMessage() {
            this.elements = new ArrayList<>();
        }

        ListMessage(List<E> elements) {
            this.elements = elements;
        }
    }

    private static final class ListSchema<E> extends LegacySchemaBase<ListMessage<E>> {
        private final ValueCodec<E> codec;
        private final String what;

        @SuppressWarnings({"unchecked", "rawtypes"})
        ListSchema(ValueCodec<E> codec, String what) {
            super("List", (Class) ListMessage.class, "v", "n");
            this.codec = codec;
            this.what = what;
        }

        @Override
        public ListMessage<E> newMessage() {
            return new ListMessage<>();
        }

        @Override
        public void writeTo(Output output, ListMessage<E> message) throws IOException {
            int nulls = 0;
            for (E element : message.elements) {
                if (element == null) {
                    nulls++;
                    continue;
                }
                if (nulls != 0) {
                    output.writeUInt32(2, nulls, false);
                    nulls = 0;
                }
                codec.write(output, 1, element);
            }
            if (nulls != 0) {
                output.writeUInt32(2, nulls, false);
            }
        }

        @Override
        public void mergeFrom(Input input, ListMessage<E> message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> message.elements.add(codec.read(input));
                    case 2 -> {
                        int nulls = input.readUInt32();
                        bounded(input).reserveExpansion(nulls, "a run of nulls in " + what);
                        for (int i = 0; i < nulls; i++) {
                            message.elements.add(null);
                        }
                    }
                    default -> throw new WireFormatException(what + " holds field " + number
                            + ", but a list holds only fields 1 and 2 (" + number + ")");
                }
            }
        }
    }

    // ---------------------------------------------------------------- Map: field 1 entries {1 key, 2 value}

    private static final class MapMessage<K, V> {
        final Map<K, V> map;

        MapMessage() {
            this.map = new LinkedHashMap<>();
        }

        MapMessage(Map<K, V> map) {
            this.map = map;
        }
    }

    private static final class MapEntryMessage<K, V> {
        K key;
        V value;
    }

    private static final class MapSchema<K, V> extends LegacySchemaBase<MapMessage<K, V>> {
        private final String what;
        private final EntrySchema<K, V> entrySchema;

        @SuppressWarnings({"unchecked", "rawtypes"})
        MapSchema(ValueCodec<K> keyCodec, ValueCodec<V> valueCodec, String what) {
            super("Map", (Class) MapMessage.class, "e");
            this.what = what;
            this.entrySchema = new EntrySchema<>(keyCodec, valueCodec, what);
        }

        @Override
        public MapMessage<K, V> newMessage() {
            return new MapMessage<>();
        }

        @Override
        public void writeTo(Output output, MapMessage<K, V> message) throws IOException {
            for (Map.Entry<K, V> e : message.map.entrySet()) {
                MapEntryMessage<K, V> entry = new MapEntryMessage<>();
                entry.key = e.getKey();
                entry.value = e.getValue();
                output.writeObject(1, entry, entrySchema, true);
            }
        }

        @Override
        public void mergeFrom(Input input, MapMessage<K, V> message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                if (number != 1) {
                    throw new WireFormatException(what + " holds field " + number
                            + ", but a map holds only entries in field 1 (" + number + ")");
                }
                MapEntryMessage<K, V> entry = input.mergeObject(new MapEntryMessage<>(), entrySchema);
                required(entry.key, "an entry of " + what, 1, "key");
                required(entry.value, "an entry of " + what, 2, "value");
                if (message.map.containsKey(entry.key)) {
                    throw new WireFormatException(what + " holds a key twice (" + entry.key + ")");
                }
                message.map.put(entry.key, entry.value);
            }
        }
    }

    private static final class EntrySchema<K, V> extends LegacySchemaBase<MapEntryMessage<K, V>> {
        private final ValueCodec<K> keyCodec;
        private final ValueCodec<V> valueCodec;
        private final String what;

        @SuppressWarnings({"unchecked", "rawtypes"})
        EntrySchema(ValueCodec<K> keyCodec, ValueCodec<V> valueCodec, String what) {
            super("Entry", (Class) MapEntryMessage.class, "k", "v");
            this.keyCodec = keyCodec;
            this.valueCodec = valueCodec;
            this.what = what;
        }

        @Override
        public MapEntryMessage<K, V> newMessage() {
            return new MapEntryMessage<>();
        }

        @Override
        public void writeTo(Output output, MapEntryMessage<K, V> message) throws IOException {
            if (message.key != null) {
                keyCodec.write(output, 1, message.key);
            }
            if (message.value != null) {
                valueCodec.write(output, 2, message.value);
            }
        }

        @Override
        public void mergeFrom(Input input, MapEntryMessage<K, V> message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> message.key = keyCodec.read(input);
                    case 2 -> message.value = valueCodec.read(input);
                    default -> throw new WireFormatException("an entry of " + what + " holds field " + number
                            + ", but an entry holds only fields 1 and 2 (" + number + ")");
                }
            }
        }
    }

    // ---------------------------------------------------------------- boolean[]: field 1 length, field 2 elements

    private static final class BoolArrayMessage {
        boolean[] values;

        BoolArrayMessage() {
        }

        BoolArrayMessage(boolean[] values) {
            this.values = values;
        }
    }

    private static final Schema<BoolArrayMessage> BOOL_ARRAY = new LegacySchemaBase<>("boolean[]",
            BoolArrayMessage.class,
            "length", "element") {
        @Override
        public BoolArrayMessage newMessage() {
            return new BoolArrayMessage();
        }

        @Override
        public void writeTo(Output output, BoolArrayMessage message) throws IOException {
            output.writeInt32(1, message.values.length, false);
            for (boolean value : message.values) {
                output.writeBool(2, value, true);
            }
        }

        @Override
        public void mergeFrom(Input input, BoolArrayMessage message) throws IOException {
            int number = input.readFieldNumber(this);
            if (number != 1) {
                throw new WireFormatException("a boolean[] must start with its length in field 1 (" + number + ")");
            }
            int length = input.readInt32();
            BoundedInput bounded = bounded(input);
            if (length < 0 || length > bounded.remaining() / 2) {
                throw new WireFormatException("a boolean[] declares a length that is negative or exceeds the input ("
                        + length + " declared, " + bounded.remaining() + " bytes remain)");
            }
            boolean[] values = new boolean[length];
            for (int i = 0; i < length; i++) {
                number = input.readFieldNumber(this);
                if (number != 2) {
                    throw new WireFormatException("a boolean[] of length " + length + " has field " + number
                            + " where element " + i + " (field 2) belongs (" + number + ")");
                }
                values[i] = input.readBool();
            }
            number = input.readFieldNumber(this);
            if (number != 0) {
                throw new WireFormatException("a boolean[] of length " + length + " has more fields than elements ("
                        + number + ")");
            }
            message.values = values;
        }
    };

    // ---------------------------------------------------------------- ActionStateKey: 1 name

    private static final class KeyMessage {
        String name;

        KeyMessage() {
        }

        KeyMessage(ActionStateKey key) {
            this.name = key.name();
        }

        ActionStateKey build() throws WireFormatException {
            return new ActionStateKey(required(name, "an ActionStateKey", 1, "name"));
        }
    }

    private static final Schema<KeyMessage> KEY = new LegacySchemaBase<>("ActionStateKey",
            KeyMessage.class, "name") {
        @Override
        public KeyMessage newMessage() {
            return new KeyMessage();
        }

        @Override
        public void writeTo(Output output, KeyMessage message) throws IOException {
            if (message.name != null) {
                output.writeString(1, message.name, false);
            }
        }

        @Override
        public void mergeFrom(Input input, KeyMessage message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                if (number == 1) {
                    message.name = input.readString();
                } else {
                    input.handleUnknownField(number, this);
                }
            }
        }
    };

    // ---------------------------------------------------------------- ActionSubtaskState: 1 stateKey, 2 index, 3 state

    private static final class SubtaskMessage {
        ActionStateKey stateKey;
        int index;
        List<byte[]> state;

        SubtaskMessage() {
        }

        SubtaskMessage(ActionSubtaskState s) {
            this.stateKey = s.stateKey();
            this.index = s.index();
            this.state = s.state();
        }

        ActionSubtaskState build() throws WireFormatException {
            return new ActionSubtaskState(required(stateKey, "an ActionSubtaskState", 1, "stateKey"), index,
                    required(state, "an ActionSubtaskState", 3, "state"));
        }
    }

    private static final ListSchema<byte[]> STATE_LIST = new ListSchema<>(BYTES, "ActionSubtaskState.state");

    private static final Schema<SubtaskMessage> SUBTASK = new LegacySchemaBase<>("ActionSubtaskState",
            SubtaskMessage.class,
            "stateKey", "index", "state") {
        @Override
        public SubtaskMessage newMessage() {
            return new SubtaskMessage();
        }

        @Override
        public void writeTo(Output output, SubtaskMessage message) throws IOException {
            if (message.stateKey != null) {
                output.writeObject(1, new KeyMessage(message.stateKey), KEY, false);
            }
            output.writeInt32(2, message.index, false);
            if (message.state != null) {
                output.writeObject(3, new ListMessage<>(message.state), STATE_LIST, false);
            }
        }

        @Override
        public void mergeFrom(Input input, SubtaskMessage message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> message.stateKey = KEY_VALUE.read(input);
                    case 2 -> message.index = input.readInt32();
                    case 3 -> message.state = input.mergeObject(new ListMessage<>(), STATE_LIST).elements;
                    default -> input.handleUnknownField(number, this);
                }
            }
        }
    };

    // ---------------------------------------------------------------- ActionState: 1 stateKey, 2 subtaskStates, 3 coordinatorState, 4 parallelism

    private static final class ActionMessage {
        ActionStateKey stateKey;
        List<ActionSubtaskState> subtaskStates;
        ActionSubtaskState coordinatorState;
        int parallelism;

        ActionMessage() {
        }

        ActionMessage(ActionState a) {
            this.stateKey = a.stateKey();
            this.subtaskStates = a.subtaskStates();
            this.coordinatorState = a.coordinatorState();
            this.parallelism = a.parallelism();
        }

        ActionState build() throws WireFormatException {
            return new ActionState(required(stateKey, "an ActionState", 1, "stateKey"),
                    required(subtaskStates, "an ActionState", 2, "subtaskStates"), coordinatorState, parallelism);
        }
    }

    private static final ListSchema<ActionSubtaskState> SUBTASK_LIST =
            new ListSchema<>(SUBTASK_VALUE, "ActionState.subtaskStates");

    private static final Schema<ActionMessage> ACTION = new LegacySchemaBase<>("ActionState",
            ActionMessage.class,
            "stateKey", "subtaskStates", "coordinatorState", "parallelism") {
        @Override
        public ActionMessage newMessage() {
            return new ActionMessage();
        }

        @Override
        public void writeTo(Output output, ActionMessage message) throws IOException {
            if (message.stateKey != null) {
                output.writeObject(1, new KeyMessage(message.stateKey), KEY, false);
            }
            if (message.subtaskStates != null) {
                output.writeObject(2, new ListMessage<>(message.subtaskStates), SUBTASK_LIST, false);
            }
            if (message.coordinatorState != null) {
                output.writeObject(3, new SubtaskMessage(message.coordinatorState), SUBTASK, false);
            }
            output.writeInt32(4, message.parallelism, false);
        }

        @Override
        public void mergeFrom(Input input, ActionMessage message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> message.stateKey = KEY_VALUE.read(input);
                    case 2 -> message.subtaskStates = input.mergeObject(new ListMessage<>(), SUBTASK_LIST).elements;
                    case 3 -> message.coordinatorState = SUBTASK_VALUE.read(input);
                    case 4 -> message.parallelism = input.readInt32();
                    default -> input.handleUnknownField(number, this);
                }
            }
        }
    };

    // ---------------------------------------------------------------- SubtaskStatistics: 1 subtaskIndex, 2 ackTimestamp, 3 stateSize, 4 subtaskStatus

    private static final class SubtaskStatsMessage {
        int subtaskIndex;
        long ackTimestamp;
        long stateSize;
        SubtaskStatus subtaskStatus;

        SubtaskStatsMessage() {
        }

        SubtaskStatsMessage(SubtaskStatistics s) {
            this.subtaskIndex = s.subtaskIndex();
            this.ackTimestamp = s.ackTimestamp();
            this.stateSize = s.stateSize();
            this.subtaskStatus = s.subtaskStatus();
        }

        SubtaskStatistics build() throws WireFormatException {
            return new SubtaskStatistics(subtaskIndex, ackTimestamp, stateSize,
                    required(subtaskStatus, "a SubtaskStatistics", 4, "subtaskStatus"));
        }
    }

    private static final Schema<SubtaskStatsMessage> SUBTASK_STATS = new LegacySchemaBase<>("SubtaskStatistics",
            SubtaskStatsMessage.class, "subtaskIndex", "ackTimestamp", "stateSize", "subtaskStatus") {
        @Override
        public SubtaskStatsMessage newMessage() {
            return new SubtaskStatsMessage();
        }

        @Override
        public void writeTo(Output output, SubtaskStatsMessage message) throws IOException {
            output.writeInt32(1, message.subtaskIndex, false);
            output.writeInt64(2, message.ackTimestamp, false);
            output.writeInt64(3, message.stateSize, false);
            if (message.subtaskStatus != null) {
                output.writeEnum(4, subtaskStatusOrdinal(message.subtaskStatus), false);
            }
        }

        @Override
        public void mergeFrom(Input input, SubtaskStatsMessage message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> message.subtaskIndex = input.readInt32();
                    case 2 -> message.ackTimestamp = input.readInt64();
                    case 3 -> message.stateSize = input.readInt64();
                    case 4 -> message.subtaskStatus = subtaskStatus(input.readEnum());
                    default -> input.handleUnknownField(number, this);
                }
            }
        }
    };

    // ---------------------------------------------------------------- TaskStatistics: 1 jobVertexId, 2 subtaskStats, 3 subtaskCompleted, 4 numAcknowledgedSubtasks, 5 latestAckedSubtaskStatistics

    private static final class TaskStatsMessage {
        Long jobVertexId;
        List<SubtaskStatistics> subtaskStats;
        boolean[] subtaskCompleted;
        int numAcknowledgedSubtasks;
        SubtaskStatistics latestAcked;

        TaskStatsMessage() {
        }

        TaskStatsMessage(TaskStatistics t) {
            this.jobVertexId = t.jobVertexId();
            this.subtaskStats = t.subtaskStats();
            this.subtaskCompleted = t.subtaskCompleted();
            this.numAcknowledgedSubtasks = t.numAcknowledgedSubtasks();
            this.latestAcked = t.latestAckedSubtaskStatistics();
        }

        TaskStatistics build() throws WireFormatException {
            return new TaskStatistics(required(jobVertexId, "a TaskStatistics", 1, "jobVertexId"),
                    required(subtaskStats, "a TaskStatistics", 2, "subtaskStats"),
                    required(subtaskCompleted, "a TaskStatistics", 3, "subtaskCompleted"),
                    numAcknowledgedSubtasks, latestAcked);
        }
    }

    private static final ListSchema<SubtaskStatistics> SUBTASK_STATS_LIST =
            new ListSchema<>(SUBTASK_STATS_VALUE, "TaskStatistics.subtaskStats");

    private static final Schema<TaskStatsMessage> TASK_STATS = new LegacySchemaBase<>("TaskStatistics",
            TaskStatsMessage.class,
            "jobVertexId", "subtaskStats", "subtaskCompleted", "numAcknowledgedSubtasks",
            "latestAckedSubtaskStatistics") {
        @Override
        public TaskStatsMessage newMessage() {
            return new TaskStatsMessage();
        }

        @Override
        public void writeTo(Output output, TaskStatsMessage message) throws IOException {
            if (message.jobVertexId != null) {
                output.writeInt64(1, message.jobVertexId, false);
            }
            if (message.subtaskStats != null) {
                output.writeObject(2, new ListMessage<>(message.subtaskStats), SUBTASK_STATS_LIST, false);
            }
            if (message.subtaskCompleted != null) {
                output.writeObject(3, new BoolArrayMessage(message.subtaskCompleted), BOOL_ARRAY, false);
            }
            output.writeInt32(4, message.numAcknowledgedSubtasks, false);
            if (message.latestAcked != null) {
                output.writeObject(5, new SubtaskStatsMessage(message.latestAcked), SUBTASK_STATS, false);
            }
        }

        @Override
        public void mergeFrom(Input input, TaskStatsMessage message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> message.jobVertexId = input.readInt64();
                    case 2 -> message.subtaskStats =
                            input.mergeObject(new ListMessage<>(), SUBTASK_STATS_LIST).elements;
                    case 3 -> message.subtaskCompleted = input.mergeObject(new BoolArrayMessage(), BOOL_ARRAY).values;
                    case 4 -> message.numAcknowledgedSubtasks = input.readInt32();
                    case 5 -> message.latestAcked = SUBTASK_STATS_VALUE.read(input);
                    default -> input.handleUnknownField(number, this);
                }
            }
        }
    };

    // ---------------------------------------------------------------- CompletedCheckpoint: 1..9

    private static final MapSchema<ActionStateKey, ActionState> TASK_STATES_MAP =
            new MapSchema<>(KEY_VALUE, ACTION_VALUE, "CompletedCheckpoint.taskStates");

    private static final MapSchema<Long, TaskStatistics> TASK_STATISTICS_MAP =
            new MapSchema<>(INT64, TASK_STATS_VALUE, "CompletedCheckpoint.taskStatistics");

    private static final class CheckpointMessage {
        long jobId;
        int pipelineId;
        long checkpointId;
        long triggerTimestamp;
        CheckpointType checkpointType;
        long completedTimestamp;
        Map<ActionStateKey, ActionState> taskStates;
        Map<Long, TaskStatistics> taskStatistics;
        boolean restored;

        CheckpointMessage() {
        }

        CheckpointMessage(CompletedCheckpoint c) {
            this.jobId = c.jobId();
            this.pipelineId = c.pipelineId();
            this.checkpointId = c.checkpointId();
            this.triggerTimestamp = c.triggerTimestamp();
            this.checkpointType = c.checkpointType();
            this.completedTimestamp = c.completedTimestamp();
            this.taskStates = c.taskStates();
            this.taskStatistics = c.taskStatistics();
            this.restored = c.restored();
        }

        CompletedCheckpoint build() throws WireFormatException {
            String what = "the CompletedCheckpoint";
            return new CompletedCheckpoint(jobId, pipelineId, checkpointId, triggerTimestamp,
                    required(checkpointType, what, 5, "checkpointType"), completedTimestamp,
                    required(taskStates, what, 7, "taskStates"), required(taskStatistics, what, 8, "taskStatistics"),
                    restored);
        }
    }

    private static final Schema<CheckpointMessage> CHECKPOINT = new LegacySchemaBase<>("CompletedCheckpoint",
            CheckpointMessage.class, "jobId", "pipelineId", "checkpointId", "triggerTimestamp", "checkpointType",
            "completedTimestamp", "taskStates", "taskStatistics", "isRestored") {
        @Override
        public CheckpointMessage newMessage() {
            return new CheckpointMessage();
        }

        @Override
        public void writeTo(Output output, CheckpointMessage message) throws IOException {
            output.writeInt64(1, message.jobId, false);
            output.writeInt32(2, message.pipelineId, false);
            output.writeInt64(3, message.checkpointId, false);
            output.writeInt64(4, message.triggerTimestamp, false);
            if (message.checkpointType != null) {
                output.writeEnum(5, checkpointTypeOrdinal(message.checkpointType), false);
            }
            output.writeInt64(6, message.completedTimestamp, false);
            if (message.taskStates != null) {
                output.writeObject(7, new MapMessage<>(message.taskStates), TASK_STATES_MAP, false);
            }
            if (message.taskStatistics != null) {
                output.writeObject(8, new MapMessage<>(message.taskStatistics), TASK_STATISTICS_MAP, false);
            }
            output.writeBool(9, message.restored, false);
        }

        @Override
        public void mergeFrom(Input input, CheckpointMessage message) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> message.jobId = input.readInt64();
                    case 2 -> message.pipelineId = input.readInt32();
                    case 3 -> message.checkpointId = input.readInt64();
                    case 4 -> message.triggerTimestamp = input.readInt64();
                    case 5 -> message.checkpointType = checkpointType(input.readEnum());
                    case 6 -> message.completedTimestamp = input.readInt64();
                    case 7 -> message.taskStates = input.mergeObject(new MapMessage<>(), TASK_STATES_MAP).map;
                    case 8 -> message.taskStatistics = input.mergeObject(new MapMessage<>(), TASK_STATISTICS_MAP).map;
                    case 9 -> message.restored = input.readBool();
                    default -> input.handleUnknownField(number, this);
                }
            }
        }
    };
}
