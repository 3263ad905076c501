package io.keepsake.engine;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * What a subtask was doing when it acknowledged a checkpoint. Formats store the constant's name
 * (or, in the legacy format, a pinned ordinal table); {@link #ordinal()} is never persisted.
 */
public enum SubtaskStatus {
    /** Running normally. */
    RUNNING,
    /** Preparing to close because of a savepoint. */
    SAVEPOINT_PREPARE_CLOSE,
    /** Preparing to close on its own (bounded input finished). */
    AUTO_PREPARE_CLOSE;

    private static final List<String> NAMES = Arrays.stream(values()).map(Enum::name).toList();

    /** Looks a status up by its constant name; empty when no status has that name. */
    public static Optional<SubtaskStatus> fromName(String name) {
        for (SubtaskStatus status : values()) {
            if (status.name().equals(name)) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }

    /** Returns every constant name, in declaration order. */
    public static List<String> names() {
        return NAMES;
    }
}
