package io.keepsake.wire;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatus;

import java.io.IOException;
import java.util.List;
import java.util.function.Function;

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
 * <p>The layout has one version and two sides: {@link LegacyV0Writer} writes the runtime values
 * through write-only schemas, {@link LegacyV0Reader} and {@link LegacyV0Groups} read them back
 * through mutable messages that check what was read. This class holds what both sides share: the
 * pinned enum ordinals and the limit on expanded nulls.
 */
final class LegacyLayout {

    /** Most null elements that runs of nulls in one input may expand to, in total. */
    public static final long MAX_EXPANDED_NULLS = 1L << 22;

    /** Legacy ordinals of {@link CheckpointType}, index = ordinal; pinned, never derived. */
    private static final PinnedOrdinals<CheckpointType> CHECKPOINT_TYPES = new PinnedOrdinals<>("checkpoint type",
            CheckpointType::typeName,
            CheckpointType.CHECKPOINT_TYPE,
            CheckpointType.SCHEMA_CHANGE_BEFORE_POINT_TYPE,
            CheckpointType.SCHEMA_CHANGE_AFTER_POINT_TYPE,
            CheckpointType.SAVEPOINT_TYPE,
            CheckpointType.COMPLETED_POINT_TYPE);

    /** Legacy ordinals of {@link SubtaskStatus}, index = ordinal; pinned, never derived. */
    private static final PinnedOrdinals<SubtaskStatus> SUBTASK_STATUSES = new PinnedOrdinals<>("subtask status",
            SubtaskStatus::name,
            SubtaskStatus.RUNNING,
            SubtaskStatus.SAVEPOINT_PREPARE_CLOSE,
            SubtaskStatus.AUTO_PREPARE_CLOSE);

    private LegacyLayout() {
    }

    /** Encodes a checkpoint exactly as SeaTunnel 2.3.x would. */
    public static byte[] encode(CompletedCheckpoint checkpoint) {
        return LegacyV0Writer.encode(checkpoint);
    }

    /**
     * Decodes the bytes of a legacy {@code CompletedCheckpoint}.
     *
     * @throws WireFormatException when the bytes do not follow the layout
     */
    public static CompletedCheckpoint decode(byte[] bytes) throws IOException {
        return LegacyV0Reader.decode(new BoundedInput(bytes, MAX_EXPANDED_NULLS));
    }

    static int checkpointTypeOrdinal(CheckpointType type) {
        return CHECKPOINT_TYPES.ordinal(type);
    }

    static int subtaskStatusOrdinal(SubtaskStatus status) {
        return SUBTASK_STATUSES.ordinal(status);
    }

    static CheckpointType checkpointType(int ordinal) throws WireFormatException {
        return CHECKPOINT_TYPES.value(ordinal);
    }

    static SubtaskStatus subtaskStatus(int ordinal) throws WireFormatException {
        return SUBTASK_STATUSES.value(ordinal);
    }

    /** The values of an enum by their pinned legacy ordinal (index = ordinal). */
    private static final class PinnedOrdinals<E> {
        private final String what;
        private final Function<E, String> name;
        private final List<E> values;

        @SafeVarargs
        PinnedOrdinals(String what, Function<E, String> name, E... values) {
            this.what = what;
            this.name = name;
            this.values = List.of(values);
        }

        int ordinal(E value) {
            int ordinal = values.indexOf(value);
            if (ordinal < 0) {
                throw new IllegalStateException("Cannot encode " + what + ": no legacy ordinal is pinned (" + value + ")");
            }
            return ordinal;
        }

        E value(int ordinal) throws WireFormatException {
            if (ordinal < 0 || ordinal >= values.size()) {
                StringBuilder known = new StringBuilder();
                for (int i = 0; i < values.size(); i++) {
                    known.append(i == 0 ? "" : ", ").append(i).append('=').append(name.apply(values.get(i)));
                }
                throw new WireFormatException("unknown " + what + " ordinal; known ordinals are " + known
                        + " (" + ordinal + ")");
            }
            return values.get(ordinal);
        }
    }
}
