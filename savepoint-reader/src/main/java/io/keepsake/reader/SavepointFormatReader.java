package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;

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
     * @throws io.keepsake.storage.SavepointCorruptedException   when any byte does not verify or decode
     * @throws io.keepsake.storage.SavepointIncompatibleException when the payload format is not this reader's
     */
    Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle);
}
