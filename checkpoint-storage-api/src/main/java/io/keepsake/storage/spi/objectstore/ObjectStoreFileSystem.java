package io.keepsake.storage.spi.objectstore;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.StorageRoots;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The file-system primitives every object-store backend words the same way, over the store's
 * requests its subclass supplies: "directories" are name prefixes and {@link #mkdirs} leaves an
 * empty marker object {@code name/}; a created file appears, whole, when its stream's
 * {@code sync()} returns ({@link FsCapability#ATOMIC_FILE_CREATE}); a must-create is conditional
 * ({@code If-None-Match: *}) unless the store ignores conditions and the user opted in, when it
 * is a check then a write ({@link FsCapability#NON_EXCLUSIVE_CREATE}). A directory's listing
 * and a stat are built here from the subclass's flat listings and its stat of one object; a file
 * is renamed by copy then delete, a directory never; there is no directory entry to sync. The
 * subclass's client errors become IOExceptions worded here, naming the path, the operation and
 * the store. Thread-safe when the subclass's requests are.
 *
 * @param <P> the backend's location type
 */
public abstract class ObjectStoreFileSystem<P extends ObjectLocation<P>> implements StorageFileSystem {

    private final StoreWords words;
    private final Class<? extends RuntimeException> clientErrors;
    /** True to create with {@code If-None-Match: *}; false checks before writing. */
    protected final boolean conditionalWrites;
    /** Where the store is (its endpoint), for messages. */
    protected final String description;

    /**
     * What a backend's messages call the store and its parts.
     *
     * @param store    the store, as in "S3 failed to list": "S3", "Azure"
     * @param fullName the store, as in "S3 has no directory rename": "S3", "Azure Blob Storage"
     * @param scope    what holds the objects: "bucket", "container"
     * @param item     what names an object in it: "key", "blob"
     */
    public record StoreWords(String store, String fullName, String scope, String item) {
    }

    /** One request of the store's client, whose errors are unchecked. */
    @FunctionalInterface
    public interface Request<T> {
        /** Sends the request and returns its answer. */
        T run();
    }

    /**
     * A file system of the store {@code words} name.
     *
     * @param words             what messages call the store and its parts
     * @param clientErrors      the unchecked errors of the store's client, which become IOExceptions naming the
     *                          path; any other error of a request goes to the caller as it is
     * @param conditionalWrites true to create with {@code If-None-Match: *}; false (only when the
     *                          store ignores it and the user opted in) checks before writing, which
     *                          two racing creators can both pass
     * @param description       where the store is (its endpoint), for messages
     */
    protected ObjectStoreFileSystem(StoreWords words, Class<? extends RuntimeException> clientErrors,
                                    boolean conditionalWrites, String description) {
        this.words = Objects.requireNonNull(words, "words");
        this.clientErrors = Objects.requireNonNull(clientErrors, "clientErrors");
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
    public final P requireFile(String path) {
        P p = path(path);
        if (p.name().isEmpty()) {
            throw new InvalidStorageArgumentException("Cannot use " + words.store() + " path as a file: it names a "
                    + words.scope() + ", not a " + words.item() + " (" + path + ")");
        }
        return p;
    }

    /**
     * Every object below the directory {@code directory} (its marker included), page after page;
     * {@code path} names it in messages.
     */
    protected abstract List<StoredObject> listBelow(P directory, String path) throws IOException;

    /**
     * True when the store answered that there is no such object, as opposed to no such bucket
     * (container), which is an error.
     */
    protected abstract boolean isNoSuchObject(RuntimeException error);

    /**
     * An error of the store's client as an IOException naming the path, the operation ({@code what})
     * and the store: {@link #answered} when the store answered, else {@link #unanswered}.
     */
    protected abstract IOException translate(String path, String what, RuntimeException error);

    /** The object at {@code file}, empty when there is none (a missing bucket is an error). */
    protected abstract Optional<StoredObject> object(P file) throws IOException;

    /**
     * One object below the directory {@code directory} (its marker included), with one request,
     * empty when there is none; {@code path} names it in messages.
     */
    protected abstract Optional<StoredObject> firstBelow(P directory, String path) throws IOException;

    /** True when an object is at {@code file} (a missing bucket is an error). */
    protected final boolean exists(P file) throws IOException {
        return object(file).isPresent();
    }

    /**
     * True when an object (a marker included) lies below the directory {@code directory}, checked
     * before a file is created in it; {@code path} names the file in messages.
     */
    protected boolean anyBelow(P directory, String path) throws IOException {
        return firstBelow(directory, path).isPresent();
    }

    /** Writes the empty marker object of {@code directory}; {@code path} names it in messages. */
    protected abstract void putDirectoryMarker(P directory, String path) throws IOException;

    /** A stream that writes {@code file}, conditional when {@code conditional}. */
    protected abstract SyncableOutputStream newStream(P file, String path, boolean conditional);

    /** The files and directories right below {@code directory}, from one flat listing of every object below it. */
    @Override
    public final List<FileStatus> list(String directory) throws IOException {
        P dir = path(directory);
        String prefix = dir.directoryPrefix();
        PrefixListing out = new PrefixListing(this, directory);
        for (StoredObject o : listBelow(dir, directory)) {
            out.add(o.name().substring(prefix.length()), o.size(), o.modified());
        }
        return out.statuses();
    }

    /**
     * What is at {@code path}: an object (a file), or a prefix with objects below it (a directory,
     * as new as the first object a listing shows), or nothing; the top of a bucket is always a directory.
     */
    @Override
    public final Optional<FileStatus> stat(String path) throws IOException {
        P p = path(path);
        String name = p.lastSegment();
        if (!p.name().isEmpty()) {
            Optional<StoredObject> object = object(p);
            if (object.isPresent()) {
                return Optional.of(new FileStatus(path, name, false, object.get().size(), object.get().modified()));
            }
        }
        Optional<StoredObject> first = firstBelow(p, path);
        if (first.isEmpty()) {
            return p.name().isEmpty() ? Optional.of(new FileStatus(path, "", true, 0, 0)) : Optional.empty();
        }
        return Optional.of(new FileStatus(path, name, true, 0, first.get().modified()));
    }

    /**
     * The error of opening {@code path}, where the store has no object: a directory is "not a file",
     * anything else {@link NoSuchFileException}.
     */
    public final IOException notAFile(String path) throws IOException {
        if (stat(path).map(FileStatus::directory).orElse(false)) {
            return new FileSystemException(path, null, "is a directory, not a file");
        }
        return new NoSuchFileException(path);
    }

    /**
     * One request whose client errors become IOExceptions naming {@code path} and the operation
     * {@code what} ({@link #translate}); for the backend's classes that send requests.
     */
    public final <T> T call(String path, String what, Request<T> request) throws IOException {
        try {
            return request.run();
        } catch (RuntimeException e) {
            throw translated(path, what, e);
        }
    }

    /**
     * What {@code request} answers about the object at {@code p}, empty when the store says there is
     * none ({@link #isNoSuchObject}); a missing bucket (container) and every other client error is an
     * IOException.
     */
    protected final <T> Optional<T> ifExists(P p, Request<T> request) throws IOException {
        try {
            return Optional.of(request.run());
        } catch (RuntimeException e) {
            if (isNoSuchObject(e)) {
                return Optional.empty();
            }
            throw translated(p.toString(), "stat", e);
        }
    }

    /** {@code error} {@linkplain #translate translated} when it is the client's; any other error is thrown as it is. */
    private IOException translated(String path, String what, RuntimeException error) {
        if (!clientErrors.isInstance(error)) {
            throw error;
        }
        return translate(path, what, error);
    }

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

    /**
     * Renames a file by {@linkplain #moveObject copying it and deleting the source}, which is neither
     * atomic nor cheap; directories are refused. The protocol never calls it here (no rename
     * capability is claimed).
     */
    @Override
    public final void rename(String source, String target) throws IOException {
        P from = requireFile(source);
        P to = requireFile(target);
        if (!exists(from)) {
            if (stat(source).isPresent()) {
                throw new IOException("Cannot rename " + source + ": " + words.fullName() + " has no directory rename ("
                        + target + ")");
            }
            throw new NoSuchFileException(source);
        }
        if (stat(target).isPresent()) {
            throw new FileAlreadyExistsException(target);
        }
        moveObject(from, to, source, target);
    }

    /**
     * Copies the object at {@code from} to {@code to}, where nothing is, then deletes {@code from};
     * {@code source} and {@code target} name them in messages.
     */
    protected abstract void moveObject(P from, P to, String source, String target) throws IOException;

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
        StorageRoots.requireNonBlank(root);
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
     * operation, the status, the store's error code and the store: {@link AccessDeniedException} for 403.
     *
     * @param code the store's error code, or null when it gave none
     */
    protected final IOException answered(String path, String what, int status, String code, RuntimeException e) {
        String detail = "HTTP " + status + (code == null ? "" : " " + code);
        if (status == 403) {
            return withCause(new AccessDeniedException(path, null, words.store() + " refused to " + what + ": " + detail
                    + " (" + description + ")"), e);
        }
        return new IOException(words.store() + " failed to " + what + " " + path + ": " + detail + " (" + description
                + ")", e);
    }

    /** A request that got no answer from the store, as an IOException naming the path, the operation and the store. */
    protected final IOException unanswered(String path, String what, String message, Throwable cause) {
        return new IOException(words.store() + " failed to " + what + " " + path + ": " + message + " (" + description + ")",
                cause);
    }

    /** {@code e} with {@code cause} set, to throw. */
    public static IOException withCause(IOException e, Throwable cause) {
        e.initCause(cause);
        return e;
    }
}
