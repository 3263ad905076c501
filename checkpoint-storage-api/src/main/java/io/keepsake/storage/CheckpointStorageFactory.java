package io.keepsake.storage;

import java.util.Map;
import java.util.ServiceLoader;

/**
 * Creates a storage from the engine's string configuration. Found through
 * {@link ServiceLoader}; see {@link CheckpointStorageFactories}. Implementations never
 * mutate the caller's map.
 */
public interface CheckpointStorageFactory {

    /** The id users put in their configuration, such as {@code localfile} or {@code hdfs}. */
    String factoryIdentifier();

    /**
     * Creates a storage; the result also implements {@link SavepointStorage} when the backend has
     * that capability.
     *
     * @throws CheckpointStorageException     when the storage cannot be reached or set up
     * @throws InvalidStorageArgumentException when a key is unknown, missing or conflicting
     */
    CheckpointStorage create(Map<String, String> configuration) throws CheckpointStorageException;
}
