package io.keepsake.storage.localfile;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The primitives on java.nio for a local (POSIX) disk. Files are fsynced through their channel,
 * directories by opening and forcing them. A directory is published by claiming the target with
 * an atomic {@code mkdir} (which fails when it exists) and then renaming the source onto that
 * empty directory in one {@code rename(2)}; a file is published with an atomic rename after an
 * existence check on names that are unique by construction.
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
 */
public final class LocalFileSystem implements StorageFileSystem {

    private static final Logger LOG = LoggerFactory.getLogger(LocalFileSystem.class);

    private static final Set<FsCapability> CAPABILITIES =
            EnumSet.of(FsCapability.ATOMIC_DIRECTORY_RENAME, FsCapability.DIRECTORY_SYNC);

    private static final String LINK_REFUSED =
            "it is a symbolic link, and no path component below a storage root is followed through a link";

    /** Whether the JVM's file-name encoding maps ASCII names to and from their bytes one to one. */
    private static final boolean ASCII_NAMES_ROUND_TRIP = asciiNamesRoundTrip();

    /** The real paths of configured roots (their existing part), longest first when looked up. */
    private final Set<Path> anchors = ConcurrentHashMap.newKeySet();

    /** A local file system; every root should be passed through {@link #normalizeRoot} before use. */
    public LocalFileSystem() {
    }

    // ------------------------------------------------------------------ primitives

    /** Creates a file, with its missing parent directories (each created or checked without following links). */
    @Override
    public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        Path file = p(path);
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
        Path file = p(path);
        parentOf(file, path);
        return createIn(file, path, mustCreate);
    }

    private SyncableOutputStream createIn(Path file, String path, boolean mustCreate) throws IOException {
        try (Dir dir = openDirectory(file.getParent(), path)) {
            Set<OpenOption> options = mustCreate
                    ? Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                    : Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            if (!mustCreate) {
                Optional<BasicFileAttributes> existing = dir.attributes(file.getFileName());
                if (existing.isPresent() && !existing.get().isRegularFile()) {
                    throw refusal(path, existing.get());
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
        Path file = p(path);
        parentOf(file, path);
        try (Dir dir = openDirectory(file.getParent(), path)) {
            BasicFileAttributes a = dir.attributes(file.getFileName())
                    .orElseThrow(() -> new NoSuchFileException(path));
            if (!a.isRegularFile()) {
                throw refusal(path, a);
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
                out.add(status(child(directory, name.toString()), name.toString(), attributes))));
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
        void visit(Dir dir, Path name) throws IOException;
    }

    /**
     * Reads a directory once and hands each entry's name to {@code visitor}, skipping (with a
     * warning) names this JVM cannot represent; nothing when it is missing or not a directory.
     */
    private void readDirectory(String directory, EntryVisitor visitor) throws IOException {
        Dir dir;
        try {
            dir = openDirectory(p(directory), directory);
        } catch (NoSuchFileException | NotDirectoryException e) {
            return;
        }
        try (dir) {
            for (Path entry : dir.entries()) {
                Path name = entry.getFileName();
                if (representable(name, name.toString())) {
                    visitor.visit(dir, name);
                } else {
                    LOG.warn("Skipping an entry of {} whose name is not valid in this JVM's file-name encoding"
                            + " ({}; a UTF-8 locale shows UTF-8 names) ({})", directory,
                            System.getProperty("sun.jnu.encoding"), name);
                }
            }
        }
    }

    /**
     * True when {@code text}, the name as this JVM decoded it, encodes back to the same bytes.
     * Under UTF-8, ISO-8859-1 or US-ASCII file-name encoding a name decoded to ASCII only came from
     * those very bytes (any other byte decodes to a non-ASCII character or a replacement), so only
     * other names, or every name under another encoding, are encoded again and compared; a lookup
     * reads every name of a job.
     */
    private static boolean representable(Path name, String text) {
        if (ASCII_NAMES_ROUND_TRIP) {
            boolean ascii = true;
            for (int i = 0; i < text.length() && ascii; i++) {
                ascii = text.charAt(i) < 0x80;
            }
            if (ascii) {
                return true;
            }
        }
        try {
            return name.getFileSystem().getPath(text).equals(name);
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /**
     * What is at one path, without following a link in any component below its root.
     *
     * @throws FileSystemException when a component above the last is a symbolic link
     */
    @Override
    public Optional<FileStatus> stat(String path) throws IOException {
        Path file = p(path);
        if (file.getParent() == null || isTrusted(file)) {
            try {
                return Optional.of(status(path, nameOf(file), Files.readAttributes(file, BasicFileAttributes.class)));
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        }
        Dir dir;
        try {
            dir = openDirectory(file.getParent(), path);
        } catch (NoSuchFileException | NotDirectoryException e) {
            return Optional.empty();
        }
        try (dir) {
            return dir.attributes(file.getFileName()).map(a -> status(path, nameOf(file), a));
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
        Path src = p(source);
        Path dst = p(target);
        parentOf(src, source);
        parentOf(dst, target);
        try (Dir from = openDirectory(src.getParent(), source); Dir to = openDirectory(dst.getParent(), target)) {
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
                // link(2) claims the target atomically (EEXIST when anything is there) with the whole
                // file, so two racing renames onto one name cannot both succeed and no reader ever
                // sees a partial target; then the source name goes.
                try {
                    Files.createLink(to.path.resolve(dst.getFileName()), from.path.resolve(src.getFileName()));
                } catch (FileAlreadyExistsException e) {
                    throw new FileAlreadyExistsException(target, source, "rename target exists");
                }
                from.deleteFile(src.getFileName());
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
        Path target = p(path);
        parentOf(target, path);
        Dir dir;
        try {
            dir = openDirectory(target.getParent(), path);
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
                throw new FileSystemException(path, null, "not deleted recursively: " + LINK_REFUSED);
            }
            if (!a.get().isDirectory()) {
                return deleteEntry(dir, name, false);
            }
            if (recursive) {
                try (Dir child = dir.directory(name, path)) {
                    deleteContents(child, path);
                } catch (NoSuchFileException e) {
                    return false;
                }
            }
            return deleteEntry(dir, name, true);
        }
    }

    private static void deleteContents(Dir dir, String path) throws IOException {
        List<Path> names = new ArrayList<>();
        for (Path entry : dir.entries()) {
            names.add(entry.getFileName());
        }
        for (Path name : names) {
            Optional<BasicFileAttributes> a = dir.attributes(name);
            if (a.isEmpty()) {
                continue;
            }
            if (a.get().isDirectory()) {
                String sub = path + "/" + name;
                try (Dir child = dir.directory(name, sub)) {
                    deleteContents(child, sub);
                } catch (NoSuchFileException e) {
                    continue;
                }
            }
            deleteEntry(dir, name, a.get().isDirectory());
        }
    }

    private static boolean deleteEntry(Dir dir, Path name, boolean directory) throws IOException {
        try {
            if (directory) {
                dir.deleteDirectory(name);
            } else {
                dir.deleteFile(name);
            }
            return true;
        } catch (NoSuchFileException e) {
            return false;
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
        Path target = p(path);
        Path anchor = anchorOf(target);
        Files.createDirectories(anchor);
        Dir dir = Dir.open(anchor);
        try {
            Path current = anchor;
            for (Path name : below(anchor, target)) {
                current = current.resolve(name);
                Dir next;
                try {
                    next = dir.directory(name, current.toString());
                } catch (NoSuchFileException missing) {
                    try {
                        Files.createDirectory(current);
                    } catch (FileAlreadyExistsException raced) {
                        // Another creator, or something in the way: opening it below tells which.
                    }
                    next = dir.directory(name, current.toString());
                }
                dir.close();
                dir = next;
            }
        } catch (NotDirectoryException e) {
            throw new FileAlreadyExistsException(path, e.getFile(), "a file is in the way of the directory");
        } finally {
            dir.close();
        }
    }

    /** Fsyncs a directory, after checking that no component below its root is a link. */
    @Override
    public void syncDirectory(String directory) throws IOException {
        Path dir = p(directory);
        openDirectory(dir, directory).close();
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
        if (root == null || root.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is empty (" + root + ")");
        }
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
        Path normalized = parsed.normalize();
        Path existing = normalized;
        while (existing.getParent() != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            throw new InvalidStorageArgumentException("Cannot use storage root: cannot resolve " + existing + ": "
                    + e.getMessage() + " (" + root + ")");
        }
        anchors.add(real);
        return real.resolve(existing.relativize(normalized)).toString();
    }

    private static boolean asciiNamesRoundTrip() {
        String encoding = System.getProperty("sun.jnu.encoding", "");
        try {
            java.nio.charset.Charset charset = java.nio.charset.Charset.forName(encoding);
            return charset.equals(java.nio.charset.StandardCharsets.UTF_8)
                    || charset.equals(java.nio.charset.StandardCharsets.ISO_8859_1)
                    || charset.equals(java.nio.charset.StandardCharsets.US_ASCII);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ walking without links

    private static Path p(String path) throws IOException {
        Objects.requireNonNull(path, "path");
        try {
            return Path.of(path);
        } catch (InvalidPathException e) {
            throw new FileSystemException(path, null, "not a valid path in this JVM's file-name encoding: "
                    + e.getMessage());
        }
    }

    private static Path parentOf(Path file, String path) throws IOException {
        if (!file.isAbsolute() || file.getParent() == null) {
            throw new FileSystemException(path, null, "not an absolute path below a directory");
        }
        return file.getParent();
    }

    private static String nameOf(Path file) {
        return file.getFileName() == null ? "/" : file.getFileName().toString();
    }

    /** The configured root (its resolved existing part) that holds {@code path}, else {@code /}. */
    private Path anchorOf(Path path) {
        Path best = null;
        for (Path anchor : anchors) {
            if (path.startsWith(anchor) && (best == null || anchor.getNameCount() > best.getNameCount())) {
                best = anchor;
            }
        }
        return best != null ? best : path.getRoot();
    }

    /** The components of {@code path} below {@code anchor}; none when they are equal. */
    private static List<Path> below(Path anchor, Path path) {
        List<Path> out = new ArrayList<>();
        if (!path.equals(anchor)) {
            anchor.relativize(path).forEach(out::add);
        }
        return out;
    }

    /** True when {@code path} is a configured root or above one, where links are the operator's choice. */
    private boolean isTrusted(Path path) {
        return anchors.stream().anyMatch(anchor -> anchor.startsWith(path));
    }

    /**
     * Opens {@code directory}, walking down from its root one component at a time without
     * following a link.
     *
     * @throws NoSuchFileException   when a component is missing
     * @throws NotDirectoryException when a component is a file
     * @throws FileSystemException   when a component is a symbolic link
     */
    private Dir openDirectory(Path directory, String forPath) throws IOException {
        if (isTrusted(directory)) {
            return Dir.open(directory);
        }
        Path anchor = anchorOf(directory);
        Dir dir = Dir.open(anchor);
        try {
            Path current = anchor;
            for (Path name : below(anchor, directory)) {
                current = current.resolve(name);
                Dir next = dir.directory(name, current.toString());
                dir.close();
                dir = next;
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            dir.close();
            if (e instanceof NoSuchFileException || e instanceof NotDirectoryException
                    || !(e instanceof FileSystemException fse) || fse.getFile() == null || fse.getFile().equals(forPath)) {
                throw e;
            }
            FileSystemException named = new FileSystemException(fse.getFile(), forPath, fse.getReason());
            named.initCause(e);
            throw named;
        }
    }

    private static IOException explainLink(Dir dir, Path name, String path, FileSystemException e) {
        try {
            Optional<BasicFileAttributes> a = dir.attributes(name);
            if (a.isPresent() && a.get().isSymbolicLink()) {
                FileSystemException refused = new FileSystemException(path, null, LINK_REFUSED);
                refused.initCause(e);
                return refused;
            }
        } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
        }
        return e;
    }

    private static FileSystemException refusal(String path, BasicFileAttributes a) {
        if (a.isSymbolicLink()) {
            return new FileSystemException(path, null, "refusing to follow a symbolic link: " + LINK_REFUSED);
        }
        if (a.isDirectory()) {
            return new FileSystemException(path, null, "it is a directory, not a regular file");
        }
        return new FileSystemException(path, null,
                "it is not a regular file (a FIFO, socket or device), so it is not opened");
    }

    private static FileStatus status(String path, String name, BasicFileAttributes a) {
        FileStatus.Type type = a.isSymbolicLink() ? FileStatus.Type.SYMBOLIC_LINK
                : a.isDirectory() ? FileStatus.Type.DIRECTORY
                : a.isRegularFile() ? FileStatus.Type.REGULAR_FILE
                : FileStatus.Type.OTHER;
        return new FileStatus(path, name, type, type == FileStatus.Type.REGULAR_FILE ? a.size() : 0,
                a.lastModifiedTime().toMillis());
    }

    private static FileChannel fileChannel(SeekableByteChannel channel, String path) throws IOException {
        if (channel instanceof FileChannel fc) {
            return fc;
        }
        channel.close();
        throw new FileSystemException(path, null, "the platform gave a channel that cannot be synced");
    }

    /**
     * An open directory: a {@link SecureDirectoryStream} (every call relative to the open handle)
     * where the platform has one, else the directory's path with an lstat before every step.
     */
    private abstract static class Dir implements AutoCloseable {

        static Dir open(Path directory) throws IOException {
            DirectoryStream<Path> stream = Files.newDirectoryStream(directory);
            if (stream instanceof SecureDirectoryStream<Path> secure) {
                return new Secure(secure, directory);
            }
            stream.close();
            return new ByPath(directory);
        }

        final Path path;

        Dir(Path path) {
            this.path = path;
        }

        /** The attributes of an entry, never following a link; empty when it is absent. */
        abstract Optional<BasicFileAttributes> attributes(Path name) throws IOException;

        /** Opens a sub-directory without following a link. */
        abstract Dir directory(Path name, String forPath) throws IOException;

        abstract SeekableByteChannel channel(Path name, Set<OpenOption> options) throws IOException;

        /** The entries, read once. */
        abstract List<Path> entries() throws IOException;

        abstract void deleteFile(Path name) throws IOException;

        abstract void deleteDirectory(Path name) throws IOException;

        abstract void move(Path name, Dir target, Path targetName) throws IOException;

        @Override
        public abstract void close() throws IOException;

        static FileSystemException linkRefused(String path, IOException cause) {
            FileSystemException e = new FileSystemException(path, null, LINK_REFUSED);
            if (cause != null) {
                e.initCause(cause);
            }
            return e;
        }

        /** Fails with a clear error when {@code name} is a link or not a directory. */
        void requireDirectory(Path name, String forPath, IOException cause) throws IOException {
            Optional<BasicFileAttributes> a = attributes(name);
            if (a.isEmpty()) {
                throw new NoSuchFileException(forPath);
            }
            if (a.get().isSymbolicLink()) {
                throw linkRefused(forPath, cause);
            }
            if (!a.get().isDirectory()) {
                throw new NotDirectoryException(forPath);
            }
            if (cause != null) {
                throw cause;
            }
        }
    }

    private static final class Secure extends Dir {
        private final SecureDirectoryStream<Path> stream;

        Secure(SecureDirectoryStream<Path> stream, Path path) {
            super(path);
            this.stream = stream;
        }

        @Override
        Optional<BasicFileAttributes> attributes(Path name) throws IOException {
            try {
                return Optional.of(stream.getFileAttributeView(name, BasicFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS).readAttributes());
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        }

        @Override
        Dir directory(Path name, String forPath) throws IOException {
            // Opening by name uses open(2) without O_DIRECTORY, which blocks on a FIFO until a
            // writer comes: look first, so anything but a directory is refused without an open.
            requireDirectory(name, forPath, null);
            SecureDirectoryStream<Path> child;
            try {
                child = stream.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                // O_NOFOLLOW refused it, or it is missing or a file: say which.
                requireDirectory(name, forPath, e);
                throw e;
            }
            return new Secure(child, path.resolve(name));
        }

        @Override
        SeekableByteChannel channel(Path name, Set<OpenOption> options) throws IOException {
            return stream.newByteChannel(name, options);
        }

        @Override
        List<Path> entries() {
            List<Path> out = new ArrayList<>();
            stream.iterator().forEachRemaining(out::add);
            return out;
        }

        @Override
        void deleteFile(Path name) throws IOException {
            stream.deleteFile(name);
        }

        @Override
        void deleteDirectory(Path name) throws IOException {
            stream.deleteDirectory(name);
        }

        @Override
        void move(Path name, Dir target, Path targetName) throws IOException {
            stream.move(name, ((Secure) target).stream, targetName);
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }

    private static final class ByPath extends Dir {
        ByPath(Path path) {
            super(path);
        }

        @Override
        Optional<BasicFileAttributes> attributes(Path name) throws IOException {
            try {
                return Optional.of(Files.readAttributes(path.resolve(name), BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS));
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        }

        @Override
        Dir directory(Path name, String forPath) throws IOException {
            requireDirectory(name, forPath, null);
            return new ByPath(path.resolve(name));
        }

        @Override
        SeekableByteChannel channel(Path name, Set<OpenOption> options) throws IOException {
            return FileChannel.open(path.resolve(name), options);
        }

        @Override
        List<Path> entries() throws IOException {
            List<Path> out = new ArrayList<>();
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(path)) {
                stream.forEach(out::add);
            }
            out.sort(Comparator.naturalOrder());
            return out;
        }

        @Override
        void deleteFile(Path name) throws IOException {
            Files.delete(path.resolve(name));
        }

        @Override
        void deleteDirectory(Path name) throws IOException {
            Path dir = path.resolve(name);
            if (Files.isSymbolicLink(dir)) {
                throw linkRefused(dir.toString(), null);
            }
            Files.delete(dir);
        }

        @Override
        void move(Path name, Dir target, Path targetName) throws IOException {
            Files.move(path.resolve(name), target.path.resolve(targetName), StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void close() {
        }
    }
}
