package io.keepsake.storage.spi.objectstore;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The file-system primitives every object-store backend words the same way, over the store's
 * requests its subclass supplies: "directories" are name prefixes and {@link #mkdirs} leaves an
 * empty marker object {@code name/}; a created file appears, whole, when its stream's
 * {@code sync()} returns ({@link FsCapability#ATOMIC_FILE_CREATE}); a must-create is conditional
 * ({@code If-None-Match: *}) unless the store ignores conditions and the user opted in, when it
 * is a check then a write ({@link FsCapability#NON_EXCLUSIVE_CREATE}). There is no rename of
 * directories and no directory entry to sync. Thread-safe when the subclass's requests are.
 *
 * @param <P> the backend's location type
 */
public abstract class ObjectStoreFileSystem<P extends ObjectLocation<P>> implements StorageFileSystem {

    /** What messages call the store: "S3", "Azure". */
    private final String store;
    /** True to create with {@code If-None-Match: *}; false checks before writing. */
    protected final boolean conditionalWrites;
    /** Where the store is (its endpoint), for messages. */
    protected final String description;

    /**
     * A file system of {@code store}.
     *
     * @param store             what messages call the store: "S3", "Azure"
     * @param conditionalWrites true to create with {@code If-None-Match: *}; false (only when the
     *                          store ignores it and the user opted in) checks before writing, which
     *                          two racing creators can both pass
     * @param description       where the store is (its endpoint), for messages
     */
    protected ObjectStoreFileSystem(String store, boolean conditionalWrites, String description) {
        this.store = Objects.requireNonNull(store, "store");
        this.conditionalWrites = conditionalWrites;
        this.description = description;
    }

    /**
     * The location {@code path} names.
     *
     * @throws InvalidStorageArgumentException when the path has another form or names no bucket
     */
    protected abstract P path(String path);

    /**
     * The location of a file at {@code path}.
     *
     * @throws InvalidStorageArgumentException when the path names a bucket alone
     */
    protected abstract P requireFile(String path);

    /** True when an object is at {@code file} (a missing bucket is an error). */
    protected abstract boolean exists(P file) throws IOException;

    /** True when an object (a marker included) lies below the directory {@code directory}; {@code path} names it in messages. */
    protected abstract boolean anyBelow(P directory, String path) throws IOException;

    /** Writes the empty marker object of {@code directory}; {@code path} names it in messages. */
    protected abstract void putDirectoryMarker(P directory, String path) throws IOException;

    /** A stream that writes {@code file}, conditional when {@code conditional}. */
    protected abstract SyncableOutputStream newStream(P file, String path, boolean conditional);

    @Override
    public final SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        P p = requireFile(path);
        if (mustCreate && !conditionalWrites && exists(p)) {
            throw new FileAlreadyExistsException(path);
        }
        return newStream(p, path, mustCreate && conditionalWrites);
    }

    @Override
    public final SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        P p = requireFile(path);
        P parent = p.parent();
        if (!parent.name().isEmpty() && !anyBelow(parent, path)) {
            throw new NoSuchFileException(path, parent.toString(), "the parent directory is missing");
        }
        return create(path, mustCreate);
    }

    @Override
    public final void mkdirs(String path) throws IOException {
        P p = path(path);
        if (p.name().isEmpty()) {
            return;
        }
        if (exists(p)) {
            throw new FileAlreadyExistsException(path, null, "a file is there, not a directory");
        }
        putDirectoryMarker(p, path);
    }

    @Override
    public final void syncDirectory(String directory) {
        // An object is durable once the request that published it returned; there are no directory entries to sync.
    }

    @Override
    public final Set<FsCapability> capabilities() {
        return conditionalWrites ? EnumSet.of(FsCapability.ATOMIC_FILE_CREATE)
                : EnumSet.of(FsCapability.ATOMIC_FILE_CREATE, FsCapability.NON_EXCLUSIVE_CREATE);
    }

    @Override
    public final String normalizeRoot(String root) {
        if (root == null || root.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is empty (" + root + ")");
        }
        P p = path(root.trim());
        if (!p.name().isEmpty()) {
            for (String segment : p.name().split("/", -1)) {
                if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                    throw new InvalidStorageArgumentException("Cannot use storage root: it has an empty, . or .. segment ("
                            + root + ")");
                }
            }
        }
        return p.toString();
    }

    /**
     * An error the store answered with HTTP {@code status}, as an IOException naming the path, the
     * operation and the store: {@link AccessDeniedException} for 403.
     *
     * @param detail the status and the store's error code, as messages show them
     */
    protected final IOException answered(String path, String what, int status, String detail, RuntimeException e) {
        if (status == 403) {
            return withCause(new AccessDeniedException(path, null, store + " refused to " + what + ": " + detail
                    + " (" + description + ")"), e);
        }
        return new IOException(store + " failed to " + what + " " + path + ": " + detail + " (" + description + ")", e);
    }

    /** A request that got no answer from the store, as an IOException naming the path, the operation and the store. */
    protected final IOException unanswered(String path, String what, String message, Throwable cause) {
        return new IOException(store + " failed to " + what + " " + path + ": " + message + " (" + description + ")",
                cause);
    }

    /** {@code e} with {@code cause} set, to throw. */
    public static IOException withCause(IOException e, Throwable cause) {
        e.initCause(cause);
        return e;
    }
}
