package io.keepsake.engine;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The kind of a completed checkpoint. Each constant carries the engine's stable name, which is
 * what new formats store.
 *
 * <p>The declaration order happens to match the legacy engine's ordinals, but no codec relies on
 * {@link #ordinal()}: the legacy codec pins its own ordinal table, so reordering these constants
 * cannot change any byte format.
 */
public enum CheckpointType {
    /** A periodic checkpoint. */
    CHECKPOINT_TYPE("checkpoint"),
    /** The barrier taken before a schema change is applied. */
    SCHEMA_CHANGE_BEFORE_POINT_TYPE("schema-change-before-point"),
    /** The barrier taken after a schema change is applied. */
    SCHEMA_CHANGE_AFTER_POINT_TYPE("schema-change-after-point"),
    /** A savepoint taken on user request (stop-with-savepoint). */
    SAVEPOINT_TYPE("savepoint"),
    /** The final checkpoint of a finished bounded pipeline. */
    COMPLETED_POINT_TYPE("completed-point");

    private static final List<String> NAMES = Arrays.stream(values()).map(CheckpointType::typeName).toList();

    private final String typeName;

    CheckpointType(String typeName) {
        this.typeName = typeName;
    }

    /** Returns the stable name, such as {@code "savepoint"}. */
    public String typeName() {
        return typeName;
    }

    /** Looks a type up by its stable name; empty when no type has that name. */
    public static Optional<CheckpointType> fromName(String name) {
        for (CheckpointType type : values()) {
            if (type.typeName.equals(name)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    /** Returns every stable name, in declaration order. */
    public static List<String> names() {
        return NAMES;
    }

    @Override
    public String toString() {
        return typeName;
    }
}
