package io.keepsake.storage.spi;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.StorageOptions;

import java.io.IOException;

/**
 * What a backend's factory does with the two configured roots ({@value StorageOptions#NAMESPACE}
 * and {@value StorageOptions#SAVEPOINT_PATH}) before a storage is handed out: check their syntax
 * through the file system, naming the key of a bad one, and create both, namespace first. Stateless.
 */
public final class StorageRoots {

    private StorageRoots() {
    }

    /** What a backend says when creating a root failed. */
    @FunctionalInterface
    public interface CreateFailure {
        /** The error for {@code root}, whose creation failed with {@code cause}. */
        CheckpointStorageException of(String root, IOException cause);
    }

    /**
     * Checks both configured roots with {@link StorageFileSystem#normalizeRoot}; a refusal's message
     * starting {@code "Cannot use <what>"}, with {@code what} matching {@code refusedSubject} (a
     * regular expression), then names the key instead. On failure {@code fs} is closed.
     *
     * @throws InvalidStorageArgumentException when a root is malformed
     */
    public static void requireWellFormed(StorageFileSystem fs, StorageOptions options, String refusedSubject) {
        try {
            requireWellFormed(fs, options.namespace(), StorageOptions.NAMESPACE, refusedSubject);
            if (options.savepointPath() != null) {
                requireWellFormed(fs, options.savepointPath(), StorageOptions.SAVEPOINT_PATH, refusedSubject);
            }
        } catch (RuntimeException e) {
            try {
                fs.close();
            } catch (IOException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    private static void requireWellFormed(StorageFileSystem fs, String root, String key, String refusedSubject) {
        try {
            fs.normalizeRoot(root);
        } catch (InvalidStorageArgumentException e) {
            throw new InvalidStorageArgumentException(e.getMessage().replaceFirst("^Cannot use (" + refusedSubject + ")",
                    "Cannot use storage root " + key));
        }
    }

    /**
     * {@code root} as given, refused when it is null or blank: the first check of every
     * {@link StorageFileSystem#normalizeRoot}.
     *
     * @throws InvalidStorageArgumentException when the root is null or blank
     */
    public static String requireNonBlank(String root) {
        if (root == null || root.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is empty (" + root + ")");
        }
        return root;
    }

    /**
     * Creates the storage's namespace, then its savepoint root, with {@code fs}.
     *
     * @throws CheckpointStorageException {@code failure}'s error for the first root that could not be created
     */
    public static void create(StorageFileSystem fs, KeepsakeStorage storage, CreateFailure failure)
            throws CheckpointStorageException {
        String current = storage.namespace();
        try {
            fs.mkdirs(current);
            current = storage.savepointRoot();
            fs.mkdirs(current);
        } catch (IOException e) {
            throw failure.of(current, e);
        }
    }
}
