package io.keepsake.storage.localfile;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.localdisk.LinkRename;
import io.keepsake.storage.spi.localdisk.LocalEntries;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.StorageRoots;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.keepsake.storage.localfile.LocalTree.explainLink;
import static io.keepsake.storage.localfile.LocalTree.nameOf;
import static io.keepsake.storage.localfile.LocalTree.parentOf;
import static io.keepsake.storage.localfile.LocalTree.path;

/**
 * The primitives on java.nio for a local (POSIX) disk. Files are fsynced through their channel,
 * directories by opening and forcing them. A directory is published by claiming the target with
 * an atomic {@code mkdir} (which fails when it exists) and then renaming the source onto that
 * empty directory in one {@code rename(2)}; a file is renamed by linking the target to it, which
 * fails when anything is there, and then removing the source name ({@link LinkRename}).
 *
 * <p>Links: a root given to {@link #normalizeRoot} is resolved once, there, to its real path (so
 * an operator's {@code /data -> /mnt/disk} works); below that resolved root no path component is
 * ever followed through a symbolic link, by any primitive. Where the platform offers a
 * {@link SecureDirectoryStream} (Linux), every path is walked from the root one directory at a
 * time with {@code openat(O_NOFOLLOW)}, and files are created, opened, stat'ed, renamed and
 * deleted relative to the directory handle that was checked, so a directory swapped for a link
 * after the check is not followed either. What java.nio cannot do relative to a handle, and so
 * still resolves the path from the root by name: {@code mkdir} (in {@link #mkdirs} and the
 * rename's target claim; the new directory is then opened without following links, so nothing
 * is written through a swapped component) and {@link #syncDirectory}; and a regular file swapped
 * for a FIFO between the type check and the open makes that open wait for a writer. Paths under
 * no configured root are checked from {@code /}. Elsewhere the same checks run by path (lstat of
 * every component before use), which narrows but does not close the window.
 *
 * <p>Only regular files are opened; FIFOs, sockets and devices are reported by {@link #list} and
 * {@link #stat} with {@link FileStatus.Type#OTHER} and refused by {@link #open} without opening
 * them. Entry names that the JVM's file-name encoding cannot represent are skipped by listings
 * with a warning. Thread-safe.
 *
 * <p>The walk from a root is {@link LocalTree}'s and each open directory a {@link LocalDirectory};
 * the types of entries and the refusals are {@link LocalEntries}', and a file is renamed with
 * {@link LinkRename}, as the HDFS backend's {@code file://} path renames one.
 */
public final class LocalFileSystem implements StorageFileSystem {

    private static final Logger LOG = LoggerFactory.getLogger(LocalFileSystem.class);

    private static final Set<FsCapability> CAPABILITIES =
            EnumSet.of(FsCapability.ATOMIC_DIRECTORY_RENAME, FsCapability.DIRECTORY_SYNC);

    /** The roots, and the way down from them without following a link. */
    private final LocalTree tree = new LocalTree();

    /** A local file system; every root should be passed through {@link #normalizeRoot} before use. */
    public LocalFileSystem() {
    }

    // ------------------------------------------------------------------ primitives

    /** Creates a file, with its missing parent directories (each created or checked without following links). */
    @Override
    public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        Path file = path(path);
        Path parent = parentOf(file, path);
        mkdirs(parent.toString());
        return createIn(file, path, mustCreate);
    }

    /**
     * Creates a file whose parent directory must exist; the file is created relative to the checked
     * parent directory handle, so a parent removed meanwhile is never recreated.
     *
     * @throws NoSuchFileException when the parent directory is missing
     */
    @Override
    public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        Path file = path(path);
        parentOf(file, path);
        return createIn(file, path, mustCreate);
    }

    private SyncableOutputStream createIn(Path file, String path, boolean mustCreate) throws IOException {
        try (LocalDirectory dir = tree.openDirectory(file.getParent(), path)) {
            Set<OpenOption> options = mustCreate
                    ? Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                    : Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            if (!mustCreate) {
                Optional<BasicFileAttributes> existing = dir.attributes(file.getFileName());
                if (existing.isPresent() && !existing.get().isRegularFile()) {
                    throw LocalEntries.refusal(path, existing.get());
                }
            }
            try {
                return new ChannelOutput(fileChannel(dir.channel(file.getFileName(), options), path), path);
            } catch (FileSystemException e) {
                throw explainLink(dir, file.getFileName(), path, e);
            }
        }
    }

    /**
     * Opens a regular file for reading; a link, a FIFO, a socket, a device or a directory is refused
     * without being opened.
     *
     * @throws NoSuchFileException when nothing is there
     */
    @Override
    public InputStream open(String path) throws IOException {
        return Channels.newInputStream(openChannel(path));
    }

    /** The file's own channel, opened as {@link #open} opens it. */
    @Override
    public SeekableByteChannel openChannel(String path) throws IOException {
        Path file = path(path);
        parentOf(file, path);
        try (LocalDirectory dir = tree.openDirectory(file.getParent(), path)) {
            BasicFileAttributes a = dir.attributes(file.getFileName())
                    .orElseThrow(() -> new NoSuchFileException(path));
            if (!a.isRegularFile()) {
                throw LocalEntries.refusal(path, a);
            }
            try {
                return dir.channel(file.getFileName(), Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
            } catch (FileSystemException e) {
                throw explainLink(dir, file.getFileName(), path, e);
            }
        }
    }

    /**
     * The entries of a directory with their types, links and special files included; empty when it
     * is missing or not a directory.
     *
     * @throws FileSystemException when a component of the directory's path is a symbolic link
     */
    @Override
    public List<FileStatus> list(String directory) throws IOException {
        List<FileStatus> out = new ArrayList<>();
        readDirectory(directory, (dir, name) -> dir.attributes(name).ifPresent(attributes ->
                out.add(LocalEntries.status(child(directory, name.toString()), name.toString(), attributes))));
        return out;
    }

    /** The names only: one directory read, no status call per entry (what a lookup in a large job needs). */
    @Override
    public List<String> listNames(String directory) throws IOException {
        List<String> out = new ArrayList<>();
        readDirectory(directory, (dir, name) -> out.add(name.toString()));
        return out;
    }

    /** What a listing does with one entry's name, the directory still open. */
    private interface EntryVisitor {
        void visit(LocalDirectory dir, Path name) throws IOException;
    }

    /**
     * Reads a directory once and hands each entry's name to {@code visitor}, skipping (with a
     * warning) names this JVM cannot represent; nothing when it is missing or not a directory.
     */
    private void readDirectory(String directory, EntryVisitor visitor) throws IOException {
        LocalDirectory dir;
        try {
            dir = tree.openDirectory(path(directory), directory);
        } catch (NoSuchFileException | NotDirectoryException e) {
            return;
        }
        try (dir) {
            for (Path entry : dir.entries()) {
                Path name = entry.getFileName();
                if (LocalEntries.representable(name)) {
                    visitor.visit(dir, name);
                } else {
                    LOG.warn("Skipping an entry of {} whose name is not valid in this JVM's file-name encoding"
                            + " ({}; a UTF-8 locale shows UTF-8 names) ({})", directory,
                            LocalEntries.fileNameEncoding(), name);
                }
            }
        }
    }

    /**
     * What is at one path, without following a link in any component below its root.
     *
     * @throws FileSystemException when a component above the last is a symbolic link
     */
    @Override
    public Optional<FileStatus> stat(String path) throws IOException {
        Path file = path(path);
        if (file.getParent() == null || tree.roots().isTrusted(file)) {
            try {
                return Optional.of(LocalEntries.status(path, nameOf(file), Files.readAttributes(file, BasicFileAttributes.class)));
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        }
        LocalDirectory dir;
        try {
            dir = tree.openDirectory(file.getParent(), path);
        } catch (NoSuchFileException | NotDirectoryException e) {
            return Optional.empty();
        }
        try (dir) {
            return dir.attributes(file.getFileName()).map(a -> LocalEntries.status(path, nameOf(file), a));
        }
    }

    /**
     * Renames a file or directory relative to the checked parent directories; never replaces a target.
     *
     * @throws FileAlreadyExistsException when the target exists
     * @throws NoSuchFileException        when the source is missing
     */
    @Override
    public void rename(String source, String target) throws IOException {
        Path src = path(source);
        Path dst = path(target);
        parentOf(src, source);
        parentOf(dst, target);
        try (LocalDirectory from = tree.openDirectory(src.getParent(), source);
             LocalDirectory to = tree.openDirectory(dst.getParent(), target)) {
            BasicFileAttributes a = from.attributes(src.getFileName())
                    .orElseThrow(() -> new NoSuchFileException(source, target, "rename source is missing"));
            if (a.isDirectory()) {
                // Claim the target: mkdir fails when anything, a link included, is there.
                Files.createDirectory(dst);
                try {
                    from.move(src.getFileName(), to, dst.getFileName());
                } catch (IOException | RuntimeException e) {
                    try {
                        to.deleteDirectory(dst.getFileName());
                    } catch (IOException notOurs) {
                        e.addSuppressed(notOurs);
                    }
                    throw e;
                }
            } else if (a.isRegularFile()) {
                LinkRename.renameFile(from.path.resolve(src.getFileName()), to.path.resolve(dst.getFileName()),
                        source, target, () -> from.deleteFile(src.getFileName()));
            } else {
                if (to.attributes(dst.getFileName()).isPresent()) {
                    throw new FileAlreadyExistsException(target, source, "rename target exists");
                }
                from.move(src.getFileName(), to, dst.getFileName());
            }
        }
    }

    /**
     * Deletes a file, link or special file (the entry itself, never a link's target), or a directory
     * with {@code recursive}; the walk never leaves the directory through a link.
     *
     * @throws FileSystemException when a component above the last is a symbolic link, or a recursive
     *                             delete is asked of a link (which Keepsake never creates)
     */
    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
        Path target = path(path);
        parentOf(target, path);
        LocalDirectory dir;
        try {
            dir = tree.openDirectory(target.getParent(), path);
        } catch (NoSuchFileException | NotDirectoryException e) {
            return false;
        }
        try (dir) {
            Path name = target.getFileName();
            Optional<BasicFileAttributes> a = dir.attributes(name);
            if (a.isEmpty()) {
                return false;
            }
            if (recursive && a.get().isSymbolicLink()) {
                throw new FileSystemException(path, null, "not deleted recursively: " + LocalEntries.LINK_REFUSED);
            }
            if (!a.get().isDirectory()) {
                return dir.deleteEntry(name, false);
            }
            if (recursive) {
                try (LocalDirectory child = dir.directory(name, path)) {
                    child.deleteContents(path);
                } catch (NoSuchFileException e) {
                    return false;
                }
            }
            return dir.deleteEntry(name, true);
        }
    }

    /**
     * Creates a directory and its missing parents below the root, checking that none is a link.
     *
     * @throws FileAlreadyExistsException when a file is in the way
     * @throws FileSystemException        when a component is a symbolic link
     */
    @Override
    public void mkdirs(String path) throws IOException {
        tree.mkdirs(path(path), path);
    }

    /** Fsyncs a directory, after checking that no component below its root is a link. */
    @Override
    public void syncDirectory(String directory) throws IOException {
        Path dir = path(directory);
        tree.openDirectory(dir, directory).close();
        StorageFileSystem.fsyncLocalDirectory(dir);
    }

    @Override
    public Set<FsCapability> capabilities() {
        return CAPABILITIES;
    }

    /**
     * Checks a configured root and resolves its existing part to a real path once, here; links
     * above the root are accepted this way, links below it never.
     *
     * @throws InvalidStorageArgumentException when it is empty, relative, has a {@code .} or {@code ..}
     *                                         segment, or cannot be resolved
     */
    @Override
    public String normalizeRoot(String root) {
        StorageRoots.requireNonBlank(root);
        String path = root.startsWith("file://") ? root.substring("file://".length()) : root;
        Path parsed;
        try {
            parsed = Path.of(path);
        } catch (RuntimeException e) {
            throw new InvalidStorageArgumentException("Cannot use storage root: not a path (" + root + ")");
        }
        if (!parsed.isAbsolute()) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is not absolute (" + root + ")");
        }
        for (Path part : parsed) {
            String s = part.toString();
            if (s.equals("..") || s.equals(".")) {
                throw new InvalidStorageArgumentException("Cannot use storage root: it has a '" + s + "' segment ("
                        + root + ")");
            }
        }
        return tree.roots().resolve(parsed.normalize(), root).toString();
    }

    private static FileChannel fileChannel(SeekableByteChannel channel, String path) throws IOException {
        if (channel instanceof FileChannel fc) {
            return fc;
        }
        channel.close();
        throw new FileSystemException(path, null, "the platform gave a channel that cannot be synced");
    }
}
