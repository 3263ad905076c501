package io.keepsake.storage;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Why a savepoint exists; stored by its stable name. Only periodic ones have a retention. */
public enum SavepointKind {
    /** Taken by a user (stop-with-savepoint or an explicit trigger); kept until deleted. */
    MANUAL("manual"),
    /** Taken on a schedule; the oldest beyond {@code savepoint.periodic.max-retained} are deleted. */
    PERIODIC("periodic"),
    /** A job's last completed checkpoint, promoted on terminal failure so cleanup cannot lose it. */
    RETAINED_CHECKPOINT("retained-checkpoint");

    private final String stableName;

    SavepointKind(String stableName) {
        this.stableName = stableName;
    }

    /** The name written into {@code _metadata.ser}. */
    public String stableName() {
        return stableName;
    }

    /**
     * Looks a kind up by its stable name.
     *
     * @throws InvalidStorageArgumentException when no kind has that name
     */
    public static SavepointKind fromStableName(String name) {
        for (SavepointKind kind : values()) {
            if (kind.stableName.equals(name)) {
                return kind;
            }
        }
        throw new InvalidStorageArgumentException("Cannot read savepoint kind: unknown name (" + name
                + "); known names are " + Arrays.stream(values()).map(SavepointKind::stableName)
                .collect(Collectors.joining(", ")));
    }
}
