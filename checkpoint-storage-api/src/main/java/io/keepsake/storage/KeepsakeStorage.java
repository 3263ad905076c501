package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;
import io.keepsake.storage.internal.ComposedStorage;
import io.keepsake.storage.spi.StorageFileSystem;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * A Keepsake storage: the legacy {@link CheckpointStorage} SPI and the {@link SavepointStorage}
 * capability in one object, over the primitives of one backend's {@link StorageFileSystem}. Every
 * backend's factory returns one; a backend contributes only the file system. Closing it closes
 * the file system. Thread-safe.
 */
public interface KeepsakeStorage extends CheckpointStorage, SavepointStorage {

    /**
     * Opens a storage of the backend named {@code backend}, configured by {@code options} (the
     * engine's string map: {@code namespace}, {@code savepoint.path}, the backend's own keys), with
     * its checkpoint and savepoint sides in one object and no cast. The backend is the factory
     * with that id ({@code localfile}, {@code hdfs}, {@code s3}; also an alias such as
     * {@code local}) found through {@link ServiceLoader} from the thread's context class
     * loader, so its jar must be on the class path. The map is not mutated. Close the storage.
     *
     * @throws InvalidStorageArgumentException when {@code backend} or {@code options} is null, no
     *                                         backend on the class path has that name (the message
     *                                         names it and the backends found), the backend's storage
     *                                         has no savepoint side, or an option is unknown, missing
     *                                         or conflicting
     * @throws StorageRootNotFoundException   with {@code create-roots=false}, when a root that must exist is missing
     * @throws CheckpointStorageException     when the storage cannot be reached or set up
     */
    static KeepsakeStorage open(String backend, Map<String, String> options) throws CheckpointStorageException {
        Arguments.requireNonNull("open Keepsake storage", "backend", backend);
        Arguments.requireNonNull("open Keepsake storage '" + backend + "'", "options",
                options);
        CheckpointStorageFactory factory = CheckpointStorageFactories.find(backend);
        CheckpointStorage storage = factory.create(options);
        if (storage instanceof KeepsakeStorage keepsake) {
            return keepsake;
        }
        InvalidStorageArgumentException refused = new InvalidStorageArgumentException("Cannot open Keepsake storage '"
                + backend + "': its factory " + factory.getClass().getName() + " made a "
                + (storage == null ? "null storage" : storage.getClass().getName()) + ", which has no savepoint side;"
                + " use a Keepsake backend (localfile, hdfs, s3)");
        if (storage != null) {
            try {
                storage.close();
            } catch (RuntimeException e) {
                refused.addSuppressed(e);
            }
        }
        throw refused;
    }

    /**
     * Opens a storage over {@code fs} with checkpoints in {@code namespace} and savepoints in
     * {@code savepointRoot}.
     *
     * @param savepointRoot       null for {@code <namespace>/savepoint}
     * @param periodicMaxRetained periodic savepoints kept per job; 0 keeps all
     * @throws InvalidStorageArgumentException when a root is not absolute, the roots overlap badly,
     *                                         or the retention is negative
     */
    static KeepsakeStorage open(StorageFileSystem fs, String namespace, String savepointRoot, int periodicMaxRetained) {
        return open(fs, StorageOptions.of(namespace, savepointRoot, periodicMaxRetained));
    }

    /**
     * Opens a storage over {@code fs} as {@code options} say (roots, retention, lease timeout).
     *
     * @throws InvalidStorageArgumentException when a root is not absolute or the roots overlap badly
     */
    static KeepsakeStorage open(StorageFileSystem fs, StorageOptions options) {
        return ComposedStorage.open(fs, options);
    }

    /** Opens a storage that keeps every periodic savepoint; see {@link #open(StorageFileSystem, String, String, int)}. */
    static KeepsakeStorage open(StorageFileSystem fs, String namespace, String savepointRoot) {
        return open(fs, namespace, savepointRoot, 0);
    }

    /**
     * Registers a listener told of this storage's savepoint commits and aborts, garbage
     * collections and, through the restorer, restores and verification failures; views made with
     * {@link #withSavepointRoot} share it.
     *
     * @throws InvalidStorageArgumentException when {@code listener} is null
     */
    void addListener(StorageListener listener);

    /**
     * Deletes one savepoint as {@link #deleteSavepoint} does, and says what went: every path it
     * removed, and every path it left with the reason.
     *
     * @throws SavepointNotFoundException when there is no such folder, or it holds nothing Keepsake wrote
     */
    DeletionReport deleteSavepointReporting(String jobId, String savepointId);

    /**
     * Deletes every savepoint of a job and its staging area as {@link #deleteSavepoints} does, and
     * says what went: every path it removed, and every path it left with the reason (a folder
     * holding only entries Keepsake did not write included).
     */
    DeletionReport deleteSavepointsReporting(String jobId);

    /** The registered listeners as one, for components that act on this storage's behalf (the restorer). */
    StorageListener listener();

    /** The checkpoint root, in the backend's path syntax. */
    String namespace();

    /** {@inheritDoc} The view shares this storage's file system; closing the view closes nothing. */
    @Override
    KeepsakeStorage withSavepointRoot(String root);

    /**
     * The legacy checkpoint files of a job, by pipeline then checkpoint id, found by name alone.
     *
     * @throws CheckpointStorageException when the job's folder cannot be listed
     */
    List<CheckpointFile> checkpointFiles(String jobId) throws CheckpointStorageException;

    /**
     * The job ids with a folder under the checkpoint root, sorted; the savepoint folder is not one.
     *
     * @throws CheckpointStorageException when the root cannot be listed
     */
    List<String> checkpointJobs() throws CheckpointStorageException;
}
