package io.keepsake.wire;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatus;

import java.io.IOException;

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

    static CheckpointType checkpointType(int ordinal) throws WireFormatException {
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

    static SubtaskStatus subtaskStatus(int ordinal) throws WireFormatException {
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
}
