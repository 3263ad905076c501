package io.keepsake.storage.spi;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactory;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.StorageRootNotFoundException;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The shape every file-system backend's factory shares, written once: parse the engine's map
 * (the common keys plus the backend's own), open the backend's {@link StorageFileSystem}, compose
 * a {@link KeepsakeStorage} over it, and let the backend check or prepare its roots; on any
 * failure the file system is closed. With {@link StorageOptions#CREATE_ROOTS}{@code =false} the
 * backend's {@link #prepareRoots} is skipped and the roots are only looked at, so that opening
 * creates no root. Either way the backend's {@link #checkPrimitives} runs last: a check of what the
 * protocol rests on may not be skipped by a setting about roots. A backend names itself and its
 * keys and implements the two abstract hooks. Stateless and thread-safe.
 */
public abstract class FileSystemStorageFactory implements CheckpointStorageFactory {

    private final String identifier;
    private final Set<String> keys;
    private final List<String> prefixes;
    private final Set<String> storageTypes;

    /**
     * A factory with id {@code identifier} accepting the common keys plus {@code keys}, keys
     * starting with one of {@code prefixes}, and a {@code storage.type} among {@code storageTypes}.
     */
    protected FileSystemStorageFactory(String identifier, Set<String> keys, List<String> prefixes,
                                       Set<String> storageTypes) {
        this.identifier = identifier;
        // create-roots is taken out of the map before parsing; it is named here so that the list of
        // known keys in an unknown-key error shows it.
        Set<String> known = new HashSet<>(keys);
        known.add(StorageOptions.CREATE_ROOTS);
        this.keys = Set.copyOf(known);
        this.prefixes = List.copyOf(prefixes);
        this.storageTypes = Set.copyOf(storageTypes);
    }

    @Override
    public final String factoryIdentifier() {
        return identifier;
    }

    /**
     * Creates a storage over a new file system of this backend.
     *
     * @throws InvalidStorageArgumentException when a key is unknown, missing, malformed or conflicting
     * @throws StorageRootNotFoundException   with {@code create-roots=false}, when a root that must exist is missing
     * @throws CheckpointStorageException     when the file system cannot be opened, reached or written
     */
    @Override
    public final KeepsakeStorage create(Map<String, String> configuration) throws CheckpointStorageException {
        if (configuration == null) {
            throw new InvalidStorageArgumentException("Cannot configure " + identifier + " storage: the configuration"
                    + " is null");
        }
        Map<String, String> rest = new HashMap<>(configuration);
        boolean createRoots = createRoots(rest.remove(StorageOptions.CREATE_ROOTS));
        StorageOptions options = StorageOptions.parse(rest, identifier, keys, prefixes, storageTypes);
        StorageFileSystem fs = openFileSystem(options);
        KeepsakeStorage storage;
        try {
            storage = KeepsakeStorage.open(fs, options);
        } catch (RuntimeException e) {
            closeQuietly(fs, e);
            throw e;
        }
        try {
            if (createRoots) {
                prepareRoots(options, fs, storage);
            } else {
                requireRoot(fs, storage.namespace(), StorageOptions.NAMESPACE, true);
                requireRoot(fs, storage.savepointRoot(), StorageOptions.SAVEPOINT_PATH, options.savepointPath() != null);
            }
            checkPrimitives(options, fs, storage);
        } catch (CheckpointStorageException | RuntimeException e) {
            storage.close();
            throw e;
        }
        return storage;
    }

    /**
     * Opens this backend's file system for {@code options}.
     *
     * @throws CheckpointStorageException when it cannot be opened
     */
    protected abstract StorageFileSystem openFileSystem(StorageOptions options) throws CheckpointStorageException;

    /**
     * Checks, and where needed creates, the storage's roots before it is handed out.
     *
     * @throws CheckpointStorageException when a root cannot be reached or written
     */
    protected abstract void prepareRoots(StorageOptions options, StorageFileSystem fileSystem,
                                         KeepsakeStorage storage)
            throws CheckpointStorageException;

    /**
     * Checks that the store gives the primitives the protocol rests on, after the roots were
     * prepared or looked at, whatever {@link StorageOptions#CREATE_ROOTS} says; anything it writes
     * goes under the roots and is removed before it returns. Does nothing unless a backend overrides it.
     *
     * @throws CheckpointStorageException when the store lacks a primitive, or the check cannot be made
     */
    protected void checkPrimitives(StorageOptions options, StorageFileSystem fileSystem, KeepsakeStorage storage)
            throws CheckpointStorageException {
    }

    private boolean createRoots(String value) {
        if (value == null || value.trim().equalsIgnoreCase("true")) {
            return true;
        }
        if (value.trim().equalsIgnoreCase("false")) {
            return false;
        }
        throw new InvalidStorageArgumentException("Cannot configure " + identifier + " storage: "
                + StorageOptions.CREATE_ROOTS + " must be true or false (" + value + ")");
    }

    /** Looks at a root without creating it: a directory passes, a file fails, a missing one fails when it must exist. */
    private void requireRoot(StorageFileSystem fs, String root, String key, boolean mustExist)
            throws CheckpointStorageException {
        Optional<FileStatus> status;
        try {
            status = fs.stat(root);
        } catch (NoSuchFileException e) {
            throw new StorageRootNotFoundException("Cannot open " + identifier + " storage: the root for " + key
                    + " cannot be found: " + e.getMessage() + " (" + root + ")", e);
        } catch (IOException e) {
            throw new CheckpointStorageException("Cannot open " + identifier + " storage: reading the root for " + key
                    + " failed: " + e.getMessage() + " (" + root + ")", e);
        }
        if (status.isPresent() && status.get().type() == FileStatus.Type.SYMBOLIC_LINK) {
            throw new StorageRootNotFoundException("Cannot open " + identifier + " storage: the root for " + key
                    + " is a symbolic link, which Keepsake does not follow; configure the directory it points to"
                    + " (" + root + ")");
        }
        if (status.isPresent() && !status.get().directory()) {
            throw new StorageRootNotFoundException("Cannot open " + identifier + " storage: the root for " + key
                    + " is " + (status.get().regularFile() ? "a file" : "a FIFO, socket or device")
                    + ", not a directory (" + root + ")");
        }
        if (status.isEmpty() && mustExist) {
            throw new StorageRootNotFoundException("Cannot open " + identifier + " storage: the root for " + key
                    + " does not exist, and " + StorageOptions.CREATE_ROOTS + "=false creates nothing (" + root + ")");
        }
    }

    private static void closeQuietly(StorageFileSystem fs, Exception primary) {
        try {
            fs.close();
        } catch (IOException | RuntimeException e) {
            primary.addSuppressed(e);
        }
    }
}
