package io.keepsake.storage.localfile;

import io.keepsake.storage.spi.FileSystemStorage;
import io.keepsake.storage.spi.StorageFileSystem;

/**
 * Checkpoints and savepoints on a local disk (factory id {@code localfile}): both SPIs over
 * {@link LocalFileSystem}; files and directories fsynced before publication; savepoints
 * published by atomic rename. Thread-safe.
 */
public class LocalFileStorage extends FileSystemStorage {

    /** A storage rooted at {@code namespace}, savepoints in {@code savepointRoot} (null for the default). */
    public LocalFileStorage(String namespace, String savepointRoot) {
        this(new LocalFileSystem(), namespace, savepointRoot);
    }

    /** A storage over other local primitives (a fault injector, in tests). */
    public LocalFileStorage(StorageFileSystem fs, String namespace, String savepointRoot) {
        super(fs, namespace, savepointRoot);
    }

    /** A storage that keeps at most {@code periodicMaxRetained} periodic savepoints per job (0 keeps all). */
    public LocalFileStorage(StorageFileSystem fs, String namespace, String savepointRoot, int periodicMaxRetained) {
        super(fs, namespace, savepointRoot, periodicMaxRetained);
    }
}
