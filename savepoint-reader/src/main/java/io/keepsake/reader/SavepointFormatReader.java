package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;

import java.util.List;
import java.util.Map;

/**
 * Reads the savepoints of one format version into the engine's runtime checkpoints, verifying
 * every payload's length and SHA-256 on the way. Implementations are stateless and thread-safe.
 */
public interface SavepointFormatReader {

    /** The savepoint format version this reader reads. */
    int formatVersion();

    /**
     * Reads every pipeline's checkpoint of a savepoint, keyed by pipeline id.
     *
     * @throws SavepointCorruptedException   when any byte does not verify or decode
     * @throws SavepointResourcesExhaustedException when the JVM runs out of heap or stack decoding a payload
     * @throws SavepointStorageException when reading a payload fails
     * @throws SavepointIncompatibleException when the payload format is not this reader's
     */
    Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle);

    /**
     * Reads, verifies and decodes every payload of a savepoint without keeping the decoded state,
     * as a verifier does; returns the pipeline ids that checked, in order. The default reads
     * through {@link #read}; a reader that can check in bounded memory overrides it.
     *
     * @throws SavepointCorruptedException   when any byte does not verify or decode
     * @throws SavepointResourcesExhaustedException when the JVM runs out of heap or stack decoding a payload
     * @throws SavepointStorageException when reading a payload fails
     * @throws SavepointIncompatibleException when the payload format is not this reader's
     */
    default List<Integer> check(SavepointStorage storage, SavepointHandle handle) {
        return List.copyOf(read(storage, handle).keySet());
    }
}
