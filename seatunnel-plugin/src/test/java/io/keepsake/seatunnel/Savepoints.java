package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;

import java.util.List;
import java.util.Map;

/**
 * What an operator sees with {@code keepsake list/verify} on a namespace: the same public API the
 * tool uses (list the job's savepoints, read every payload with length and SHA-256 checked).
 */
final class Savepoints {

    private final String backend;
    private final Map<String, String> config;

    Savepoints(String backend, Map<String, String> keepsakeConfig) {
        this.backend = backend;
        this.config = keepsakeConfig;
    }

    static Savepoints local(Namespace ns) {
        return new Savepoints("localfile", Map.of("namespace", ns.root().toString()));
    }

    /** The job's complete savepoints, newest first ({@code keepsake list JOB}). */
    List<SavepointHandle> list(long jobId) throws Exception {
        try (CheckpointStorage storage = open()) {
            return ((SavepointStorage) storage).listSavepoints(Long.toString(jobId));
        }
    }

    /** Reads and checks one savepoint ({@code keepsake verify JOB SP}); returns its pipelines' checkpoints. */
    Map<Integer, CompletedCheckpoint> verify(SavepointHandle handle) throws Exception {
        try (CheckpointStorage storage = open()) {
            Map<Integer, CompletedCheckpoint> read = SavepointReaderRegistry.standard().read((SavepointStorage) storage, handle);
            for (CompletedCheckpoint c : read.values()) {
                if (c.checkpointType() != CheckpointType.SAVEPOINT_TYPE) {
                    throw new AssertionError("Savepoint " + handle.savepointId() + " holds a " + c.checkpointType());
                }
            }
            return read;
        }
    }

    private CheckpointStorage open() throws Exception {
        return CheckpointStorageFactories.find(backend).create(config);
    }
}
