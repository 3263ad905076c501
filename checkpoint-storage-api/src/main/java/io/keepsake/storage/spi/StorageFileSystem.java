package io.keepsake.storage.spi;

import io.keepsake.storage.KeepsakeStorage;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The small file-system primitive SPI a backend supplies; the commit protocol, validation and
 * checksums are written once on top of it ({@link KeepsakeStorage#open}). Paths are strings in the
 * backend's syntax with {@code /} separators; the protocol only ever joins validated names onto
 * configured roots with {@link #child}. Native errors are translated to {@link IOException}s that
 * name the path: {@link FileAlreadyExistsException} when a must-create or rename
 * target exists, {@link NoSuchFileException} when a source is missing.
 * Implementations are thread-safe.
 */
public interface StorageFileSystem extends Closeable {

    /**
     * Creates a file, with its missing parent directories, and opens it for writing.
     *
     * @param mustCreate true to fail with {@code FileAlreadyExistsException} when it exists, in one
     *                   atomic step: two racing creators cannot both succeed (with
     *                   {@link FsCapability#ATOMIC_FILE_CREATE} the step is the stream's
     *                   {@code sync()}, which may then fail with it); false to overwrite
     */
    SyncableOutputStream create(String path, boolean mustCreate) throws IOException;

    /**
     * Creates a file in a directory that must already exist and opens it for writing; unlike
     * {@link #create}, it never creates a missing parent, so a writer whose directory was removed
     * under it (by another process's gc, say) finds out instead of silently recreating it. The
     * default checks the parent and then calls {@link #create}, which leaves a window between the
     * two; the bundled backends override it with a create that cannot recreate the parent.
     *
     * @param mustCreate true to fail with {@code FileAlreadyExistsException} when it exists; false to overwrite
     * @throws NoSuchFileException when the parent directory is missing (or is not a directory)
     */
    default SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        int slash = path.lastIndexOf('/');
        String parent = slash <= 0 ? "/" : path.substring(0, slash);
        Optional<FileStatus> status = stat(parent);
        if (status.isEmpty() || !status.get().directory()) {
            throw new NoSuchFileException(path, parent, "the parent directory is missing");
        }
        return create(path, mustCreate);
    }

    /**
     * Opens a regular file for reading; anything else (a directory, a link, a FIFO, a device) is
     * refused without being opened, so a read never blocks on a special file.
     *
     * @throws NoSuchFileException when it is absent
     */
    InputStream open(String path) throws IOException;

    /**
     * Opens a regular file that the caller reads from its start to its end, expecting it to be
     * {@code expectedLength} bytes long, with the same refusals as {@link #open}. The stream gives
     * exactly what {@link #open} gives, every byte of the file in order up to its real end whatever
     * its real length, so a caller that checks the bytes sees a file that is shorter or longer
     * than it expected. A backend where one stream is slower than several (an object store) may
     * fetch ranges of the file ahead, several at once, each starting at a whole multiple of
     * {@code alignment} bytes; the default is {@link #open}.
     *
     * @param expectedLength the length the caller expects, at least 0
     * @param alignment      the caller's unit of work in bytes (a payload's chunk size), at least 1
     * @throws NoSuchFileException when it is absent
     */
    default InputStream openWhole(String path, long expectedLength, int alignment) throws IOException {
        return open(path);
    }

    /**
     * Opens a regular file for reading as a channel that fills direct buffers without a copy through
     * the heap, with the same refusals as {@link #open}; or returns null, without any I/O, when this
     * file system reads through {@link #open} only, which is the default. The local disk has one;
     * readers of large payloads prefer it.
     *
     * @throws NoSuchFileException when it is absent
     */
    default ReadableByteChannel openChannel(String path) throws IOException {
        return null;
    }

    /**
     * The entries of a directory, in no particular order, each with its {@link FileStatus.Type};
     * empty when it does not exist. Entries whose names cannot be represented are skipped.
     */
    List<FileStatus> list(String directory) throws IOException;

    /**
     * The names in a directory, in no particular order, without their types, sizes or times;
     * empty when it does not exist. What {@link #list} gives without a status per entry: where a
     * status costs a call per entry (a local disk), a backend overrides this with a listing that
     * reads names only. The default lists and drops the statuses.
     */
    default List<String> listNames(String directory) throws IOException {
        return list(directory).stream().map(FileStatus::name).toList();
    }

    /** What the file system says about one path, or empty when nothing is there. */
    Optional<FileStatus> stat(String path) throws IOException;

    /**
     * Renames a file or directory; never replaces an existing target. With
     * {@link FsCapability#ATOMIC_DIRECTORY_RENAME}, the rename of a directory is one atomic step:
     * of two racing renames of one source, or onto one target, exactly one succeeds, and the
     * directory appears under the target with every entry or not at all (the commit protocol decides
     * an attempt with it). On a file system without {@link FsCapability#ATOMIC_FILE_CREATE}, the
     * rename of a regular file must claim its target in one atomic step with the whole file (two
     * racing renames onto one target cannot both succeed, and no reader sees part of it); the
     * removal of the source name may be a second step (a {@code link} then an {@code unlink}),
     * since the protocol only renames a temporary file that no other actor touches. Object stores,
     * whose created files appear whole anyway, need not rename at all; the protocol never renames
     * on them.
     *
     * @throws FileAlreadyExistsException when the target exists
     * @throws NoSuchFileException        when the source is missing
     */
    void rename(String source, String target) throws IOException;

    /**
     * Deletes a file, or a directory with {@code recursive}; returns false when nothing was there.
     * One atomic step for a file or an empty directory (a non-recursive delete of a directory that
     * has entries fails); the protocol removes everything it owns file by file and never asks a
     * recursive delete of a folder another actor may write into.
     */
    boolean delete(String path, boolean recursive) throws IOException;

    /** Creates a directory and its missing parents; fine when it exists. */
    void mkdirs(String path) throws IOException;

    /** Makes a directory's entries durable where the file system needs it; a no-op elsewhere. */
    void syncDirectory(String directory) throws IOException;

    /** The optional powers this file system has. */
    Set<FsCapability> capabilities();

    /**
     * The uploads begun below {@code directory} (at any depth) and neither completed nor aborted;
     * garbage collection aborts those a dead writer left. The default, for file systems where a
     * created file exists from the start, has none.
     */
    default List<PendingUpload> pendingUploads(String directory) throws IOException {
        return List.of();
    }

    /** Aborts one pending upload; fine when it is already gone. The default does nothing. */
    default void abortUpload(PendingUpload upload) throws IOException {
    }

    /** Joins a validated name onto a directory path. */
    default String child(String directory, String name) {
        return directory.endsWith("/") ? directory + name : directory + "/" + name;
    }

    /** Normalises a configured root and checks that it is absolute, without {@code .} or {@code ..} segments. */
    String normalizeRoot(String root);

    /**
     * Forces a local directory's entries to disk (POSIX {@code fsync} on the directory), for
     * backends whose files live on the local disk; a link in the last component is not followed.
     *
     * @throws IOException when the directory cannot be opened or forced
     */
    static void fsyncLocalDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory,
                StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            channel.force(true);
        }
    }

    /** Releases handles; the default does nothing. */
    @Override
    default void close() throws IOException {
    }
}
