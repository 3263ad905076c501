package io.keepsake.storage.hdfs;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.localdisk.ChannelOutputStream;
import io.keepsake.storage.spi.localdisk.LinkRename;
import io.keepsake.storage.spi.localdisk.LocalEntries;
import io.keepsake.storage.spi.localdisk.LocalRoots;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import static io.keepsake.storage.hdfs.HdfsErrors.withCause;
import static io.keepsake.storage.spi.localdisk.LocalEntries.linkRefused;
import static io.keepsake.storage.spi.localdisk.LocalEntries.lstat;

/**
 * The local disk under {@link HdfsFileSystem} when Hadoop's {@link RawLocalFileSystem} serves it,
 * where links and special files are real and Hadoop follows links. With {@code checked} (the
 * {@code file://} scheme), the roots are resolved once to real paths and before every primitive
 * each component below the root is checked with java.nio without following links
 * ({@code lstat}); opening refuses anything but a regular file, listings and stats are made with
 * java.nio (with each entry's real type, skipping names the JVM's encoding cannot represent),
 * recursive deletes walk without following links, and a regular file is renamed with
 * {@link LinkRename}, as the local-file backend renames one. These checks are by path, so a
 * directory swapped for a link between the check and Hadoop's call is not caught; the local-file
 * backend, which works relative to open directory handles, closes that window where this cannot.
 * Thread-safe. Paths are java.nio's; Hadoop's {@code Path} is named in full where a storage path
 * is mapped to a file.
 */
final class RawLocalDisk {

    private static final Logger LOG = LoggerFactory.getLogger(RawLocalDisk.class);

    private final RawLocalFileSystem local;
    private final boolean checked;
    private final LocalRoots roots = new LocalRoots();

    /**
     * @param local   Hadoop's raw local file system, which maps paths to files
     * @param checked true on the local disk itself ({@code file://}), where links are checked
     */
    RawLocalDisk(RawLocalFileSystem local, boolean checked) {
        this.local = local;
        this.checked = checked;
    }

    /** True on the local disk itself ({@code file://}), where links and special files are checked. */
    boolean checked() {
        return checked;
    }

    /**
     * Resolves a qualified root's existing part to its real path once, and remembers it.
     *
     * @param prefix the scheme and authority to put before the resolved path
     * @throws InvalidStorageArgumentException when it is not a path on this disk or cannot be resolved
     */
    String resolveRoot(String qualified, String root, String prefix) {
        Path normalized;
        try {
            normalized = local.pathToFile(new org.apache.hadoop.fs.Path(qualified)).toPath().normalize();
        } catch (RuntimeException e) {
            throw new InvalidStorageArgumentException("Cannot use storage root: not a path on this disk (" + root + ")");
        }
        return prefix + roots.resolve(normalized, root);
    }

    /** The file a storage path names. */
    Path file(String path) throws IOException {
        try {
            return local.pathToFile(new org.apache.hadoop.fs.Path(Objects.requireNonNull(path, "path"))).toPath();
        } catch (IllegalArgumentException e) {
            throw new FileSystemException(path, null, "not a valid path in this JVM's file-name encoding: "
                    + e.getMessage());
        }
    }

    /**
     * Checks that no component of {@code path} between its root and its last component is a
     * symbolic link; a missing component ends the check (the call then finds it missing).
     *
     * @throws FileSystemException naming the component that is a link
     */
    void check(String path) throws IOException {
        if (!checked) {
            return;
        }
        Path file = file(path);
        Path parent = file.getParent();
        if (parent == null) {
            return;
        }
        Path anchor = roots.anchorOf(file);
        if (!parent.startsWith(anchor) || parent.equals(anchor)) {
            return;
        }
        Path current = anchor;
        for (Path name : anchor.relativize(parent)) {
            current = current.resolve(name);
            Optional<BasicFileAttributes> a = lstat(current);
            if (a.isEmpty()) {
                return;
            }
            if (a.get().isSymbolicLink()) {
                throw linkRefused(current.toString(), null);
            }
        }
    }

    /** Refuses to overwrite anything but a regular file; fine when nothing is there. */
    void requireRegularIfPresent(String path) throws IOException {
        Optional<BasicFileAttributes> a = lstat(file(path));
        if (a.isPresent() && !a.get().isRegularFile()) {
            throw LocalEntries.refusal(path, a.get());
        }
    }

    /** Refuses to open anything but a regular file, without opening it. */
    void requireRegularFile(String path) throws IOException {
        BasicFileAttributes a = lstat(file(path)).orElseThrow(() -> new NoSuchFileException(path));
        if (!a.isRegularFile()) {
            throw LocalEntries.refusal(path, a);
        }
    }

    /** Refuses a directory path that is itself a link. */
    void refuseLink(String path) throws IOException {
        Optional<BasicFileAttributes> a = lstat(file(path));
        if (a.isPresent() && a.get().isSymbolicLink()) {
            throw linkRefused(path, null);
        }
    }

    /** A file channel opened without creating parents or following a final link. */
    SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        Path file = file(path);
        Path parent = file.getParent();
        Optional<BasicFileAttributes> p = parent == null ? Optional.empty() : lstat(parent);
        if (p.isEmpty() || !p.get().isDirectory()) {
            throw new NoSuchFileException(path, null, "the parent directory is missing");
        }
        Set<OpenOption> options = mustCreate
                ? Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                : Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
        try {
            return new ChannelOutputStream(FileChannel.open(file, options));
        } catch (NoSuchFileException e) {
            throw withCause(new NoSuchFileException(path, null, "the parent directory is missing"), e);
        } catch (FileAlreadyExistsException e) {
            throw withCause(new FileAlreadyExistsException(path, null, "it exists"), e);
        }
    }

    /** Creates the empty file with O_EXCL, which Hadoop's local create does not do; its parent must exist. */
    void claim(String path) throws IOException {
        check(path);
        try {
            Files.createFile(file(path));
        } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(path, null, "it exists");
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(path, null, "the parent directory is missing");
        }
    }

    /** The entries of a directory with their real types; empty when it is missing or not a directory. */
    List<FileStatus> list(String directory, StorageFileSystem names) throws IOException {
        check(directory);
        Path dir = file(directory);
        Optional<BasicFileAttributes> self = lstat(dir);
        if (self.isPresent() && self.get().isSymbolicLink()) {
            throw linkRefused(directory, null);
        }
        if (self.isEmpty() || !self.get().isDirectory()) {
            return List.of();
        }
        List<FileStatus> out = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                Path name = entry.getFileName();
                String text = name.toString();
                if (!LocalEntries.representable(name)) {
                    LOG.warn("Skipping an entry of {} whose name is not valid in this JVM's file-name encoding ({}) ({})",
                            directory, LocalEntries.fileNameEncoding(), text);
                    continue;
                }
                lstat(entry).ifPresent(a -> out.add(LocalEntries.status(names.child(directory, text), text, a)));
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        }
        return out;
    }

    /** What is at {@code path} itself, a link reported as a link. */
    Optional<FileStatus> stat(String path) throws IOException {
        check(path);
        Path file = file(path);
        String name = file.getFileName() == null ? "/" : file.getFileName().toString();
        return lstat(file).map(a -> LocalEntries.status(path, name, a));
    }

    /**
     * Renames a regular file with {@link LinkRename}, since Hadoop's local rename checks the target
     * and then replaces it; false, doing nothing, when the source is not a regular file.
     */
    boolean renameRegularFile(String source, String target) throws IOException {
        Path from = file(source);
        Optional<BasicFileAttributes> a = lstat(from);
        if (a.isEmpty() || !a.get().isRegularFile()) {
            return false;
        }
        LinkRename.renameFile(from, file(target), source, target, () -> Files.delete(from));
        return true;
    }

    /** Deletes an entry, or a directory's tree with {@code recursive} without entering a link. */
    boolean delete(String path, boolean recursive) throws IOException {
        check(path);
        Path target = file(path);
        Optional<BasicFileAttributes> a = lstat(target);
        if (a.isEmpty()) {
            return false;
        }
        if (a.get().isSymbolicLink() && recursive) {
            throw new FileSystemException(path, null, "not deleted recursively: " + LocalEntries.LINK_REFUSED);
        }
        if (recursive && a.get().isDirectory()) {
            // walkFileTree does not follow links: a link inside is deleted as an entry, never entered.
            Files.walkFileTree(target, new TreeDeletion());
            return true;
        }
        try {
            return Files.deleteIfExists(target);
        } catch (DirectoryNotEmptyException e) {
            throw new DirectoryNotEmptyException(path);
        }
    }

    /** Fsyncs a directory after checking its path. */
    void sync(String directory) throws IOException {
        check(directory);
        StorageFileSystem.fsyncLocalDirectory(file(directory));
    }

    /** Deletes every entry of a tree, depth first; an entry already gone is fine. */
    private static final class TreeDeletion extends SimpleFileVisitor<Path> {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
            if (exc instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE;
            }
            throw exc;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
            if (exc != null && !(exc instanceof NoSuchFileException)) {
                throw exc;
            }
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
        }
    }
}
