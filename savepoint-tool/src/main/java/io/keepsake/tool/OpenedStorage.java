package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointStorage;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A storage the tool opened through its factory, seen through both SPIs (one object), with the
 * configuration it was opened with. Closing it closes the storage.
 *
 * @param backend       the factory id
 * @param configuration the configuration map given to the factory
 * @param checkpoints   the storage as the legacy checkpoint SPI
 * @param savepoints    the same storage as the savepoint capability
 */
public record OpenedStorage(String backend, Map<String, String> configuration, CheckpointStorage checkpoints,
                            SavepointStorage savepoints) implements AutoCloseable {

    /** Validates the components (and copies collections). */
    public OpenedStorage {
        Objects.requireNonNull(backend, "backend");
        configuration = Map.copyOf(configuration);
        Objects.requireNonNull(checkpoints, "checkpoints");
        Objects.requireNonNull(savepoints, "savepoints");
    }

    /** The storage as a {@link KeepsakeStorage}, which lists checkpoint files; empty for other storages. */
    public Optional<KeepsakeStorage> keepsake() {
        return checkpoints instanceof KeepsakeStorage k ? Optional.of(k) : Optional.empty();
    }

    /** Closes the storage and its file-system handles. */
    @Override
    public void close() {
        checkpoints.close();
    }
}
