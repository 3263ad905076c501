package io.keepsake.storage.hdfs;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.hdfs.internal.HdfsSettings;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.local.RawLocalFs;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The storage primitives on the Hadoop {@link FileSystem} API, for the file system named by
 * {@code fs.defaultFS} of the given configuration: HDFS, the local disk ({@code file://}, always
 * through {@link RawLocalFileSystem}, so no {@code .crc} side files), or an object store whose
 * connector is on the classpath.
 *
 * <p>Contract, per file system:
 * <ul>
 *   <li>HDFS: {@code create(path, true)} is the NameNode's atomic create-if-absent; a file that
 *       exists or is still being written by another client is a {@link FileAlreadyExistsException}.
 *       {@code rename} is {@link FileContext#rename} with {@link Options.Rename#NONE}, one atomic
 *       NameNode operation that fails when the target exists, so this file system has
 *       {@link FsCapability#ATOMIC_DIRECTORY_RENAME}. {@code sync()} is {@code hsync()} (data on
 *       the DataNodes' disks); {@link #syncDirectory} is a no-op because the NameNode logs every
 *       namespace change durably before it answers.</li>
 *   <li>{@code file://}: Hadoop's own rename and create-if-absent are check-then-act there (a race
 *       can let both callers "win", and a losing directory rename is moved <em>inside</em> the
 *       winner), so the atomic rename capability is not claimed; create-if-absent first claims the
 *       name with an exclusive {@code createNewFile}, and directories are fsynced
 *       ({@link FsCapability#DIRECTORY_SYNC}).</li>
 *   <li>Any other scheme (an object store such as {@code s3a://}, {@code oss://} or {@code abfs://},
 *       or {@code viewfs://}, {@code o3fs://}, {@code ofs://}, whose primitives depend on what is
 *       behind them) is refused with {@link NonAtomicFileSystemException} before Hadoop
 *       instantiates anything, unless the caller accepts it explicitly; then neither capability is
 *       claimed, {@link FsCapability#NON_EXCLUSIVE_CREATE} is, {@code sync()} flushes and the object
 *       becomes durable when the stream closes.</li>
 * </ul>
 *
 * <p>Paths are strings: qualified ({@code hdfs://nn:8020/a/b}) or absolute ({@code /a/b}, resolved
 * against the file system); {@link #normalizeRoot} returns the qualified form, so every path the
 * protocol builds names the cluster. Every Hadoop error is translated at this boundary into an
 * {@link IOException} naming the path ({@code java.nio.file} types where one fits). When a
 * Kerberos login is given, every file-system call runs as that user, and the ticket is renewed
 * from the keytab before a call when it is close to expiry.
 *
 * <p>Links and special files: on HDFS the client refuses to resolve a symbolic link unless
 * symlinks are enabled for testing ({@code FileSystem.enableSymlinks}), so a link in any component
 * fails the call with an error rather than being followed, at no extra NameNode call; listings and
 * stats report links as {@link FileStatus.Type#SYMBOLIC_LINK}, and HDFS has no FIFOs or devices. On
 * the local disk ({@code file://}), where Hadoop's raw local file system follows links, the roots
 * given to {@link #normalizeRoot} are resolved once to real paths, and before every primitive each
 * component below the root is checked with java.nio without following links ({@code lstat}); open
 * refuses anything but a regular file before opening it, listings and stats are made with java.nio
 * (with each entry's real type, skipping names the JVM's encoding cannot represent), and recursive
 * deletes walk without following links. These local checks are by path, so a directory swapped for
 * a link between the check and Hadoop's call is not caught; the local-file backend, which works
 * relative to open directory handles, closes that window where this one cannot.
 *
 * <p>Each instance owns its {@link Configuration} copy and its own, uncached {@link FileSystem}
 * ({@link FileSystem#newInstance}), closed by {@link #close()}. The {@link FileContext} used for
 * renames has a client of its own that Hadoop offers no way to close; it holds no threads of its
 * own and becomes garbage with this object. Thread-safe. It deliberately does not retry: Hadoop's
 * client does, within its configured limits.
 */
public final class HdfsFileSystem implements StorageFileSystem {

    private static final Logger LOG = LoggerFactory.getLogger(HdfsFileSystem.class);

    private static final Pattern SCHEME = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*):(.*)", Pattern.DOTALL);

    private final Configuration configuration;
    private final UserGroupInformation user;
    private final FileSystem fs;
    private final FileContext fileContext;
    private final String scheme;
    private final String authority;
    private final RawLocalFileSystem local;
    private final Set<FsCapability> capabilities;
    /** The local disk itself ({@code file://}), where links and special files are real: checked with java.nio. */
    private final boolean localDisk;
    /** On the local disk: the real paths of configured roots (their existing part), below which no link is followed. */
    private final Set<java.nio.file.Path> localAnchors = ConcurrentHashMap.newKeySet();

    /**
     * Opens the file system named by {@code fs.defaultFS} of {@code configuration}, as the current user.
     *
     * @throws NonAtomicFileSystemException when the scheme is not one of {@link HdfsSettings#ATOMIC_SCHEMES}
     * @throws IOException                  when Hadoop cannot instantiate the file system (no connector for the scheme)
     */
    public HdfsFileSystem(Configuration configuration) throws IOException {
        this(configuration, null);
    }

    /**
     * Opens the file system named by {@code fs.defaultFS} of {@code configuration}; every call runs as
     * {@code user}; refuses a scheme that is not one of {@link HdfsSettings#ATOMIC_SCHEMES}.
     *
     * @param configuration copied; later changes to it have no effect here
     * @param user          the identity for every call (a Kerberos keytab login), or null for the current user
     * @throws NonAtomicFileSystemException when the scheme is not one of {@link HdfsSettings#ATOMIC_SCHEMES}
     * @throws IOException                  when Hadoop cannot instantiate the file system (no connector for the scheme)
     */
    public HdfsFileSystem(Configuration configuration, UserGroupInformation user) throws IOException {
        this(configuration, user, false);
    }

    /**
     * Opens the file system named by {@code fs.defaultFS} of {@code configuration}; every call runs as {@code user}.
     *
     * @param configuration copied; later changes to it have no effect here
     * @param user          the identity for every call (a Kerberos keytab login), or null for the current user
     * @param allowNonAtomicScheme true to accept a scheme outside {@link HdfsSettings#ATOMIC_SCHEMES}
     *                      ({@value HdfsSettings#ALLOW_NON_ATOMIC_SCHEME}): its create-if-absent is then taken as
     *                      check-then-act ({@link FsCapability#NON_EXCLUSIVE_CREATE})
     * @throws NonAtomicFileSystemException when the scheme is not one of {@link HdfsSettings#ATOMIC_SCHEMES} and
     *                                      {@code allowNonAtomicScheme} is false; nothing was instantiated
     * @throws IOException                  when Hadoop cannot instantiate the file system (no connector for the scheme)
     */
    public HdfsFileSystem(Configuration configuration, UserGroupInformation user, boolean allowNonAtomicScheme)
            throws IOException {
        Configuration own = new Configuration(configuration);
        URI defaultUri = FileSystem.getDefaultUri(own);
        boolean atomicScheme = HdfsSettings.isAtomicScheme(defaultUri.getScheme());
        if (!atomicScheme && !allowNonAtomicScheme) {
            throw HdfsSettings.refusal(defaultUri.getScheme(), defaultUri + " (" + HdfsSettings.FS_DEFAULT + ")");
        }
        if ("file".equalsIgnoreCase(defaultUri.getScheme())) {
            own.set("fs.file.impl", RawLocalFileSystem.class.getName());
            own.set("fs.AbstractFileSystem.file.impl", RawLocalFs.class.getName());
        }
        this.configuration = own;
        this.user = user;
        this.fs = call(() -> FileSystem.newInstance(defaultUri, own));
        try {
            URI uri = fs.getUri();
            this.fileContext = call(() -> FileContext.getFileContext(uri, own));
            this.scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            this.authority = uri.getAuthority() == null ? "" : uri.getAuthority();
        } catch (IOException | RuntimeException e) {
            closeQuietly(fs, e);
            throw e;
        }
        this.local = fs instanceof RawLocalFileSystem raw ? raw : null;
        this.localDisk = local != null && "file".equals(scheme);
        Set<FsCapability> caps = EnumSet.noneOf(FsCapability.class);
        if ("hdfs".equals(scheme)) {
            caps.add(FsCapability.ATOMIC_DIRECTORY_RENAME);
        } else if (local != null) {
            caps.add(FsCapability.DIRECTORY_SYNC);
        }
        if (!atomicScheme) {
            caps.add(FsCapability.NON_EXCLUSIVE_CREATE);
        }
        capabilities = caps;
        LOG.debug("Opened {} as {} with capabilities {}", uri(), user == null ? "the current user" : user.getUserName(),
                capabilities);
    }

    private static void closeQuietly(FileSystem fs, Exception primary) {
        try {
            fs.close();
        } catch (IOException e) {
            primary.addSuppressed(e);
        }
    }

    /** The file system's URI, such as {@code hdfs://nn:8020/} or {@code file:///}. */
    public URI uri() {
        return URI.create(scheme + "://" + authority + "/");
    }

    /** The identity every call runs as, or null for the current user. */
    UserGroupInformation user() {
        return user;
    }

    /** A copy of the Hadoop configuration this file system was opened with. */
    public Configuration hadoopConfiguration() {
        return new Configuration(configuration);
    }

    // ------------------------------------------------------------------ running as the user

    @FunctionalInterface
    private interface HadoopCall<T> {
        T run() throws IOException;
    }

    private <T> T call(HadoopCall<T> action) throws IOException {
        if (user == null) {
            return action.run();
        }
        try {
            user.checkTGTAndReloginFromKeytab();
        } catch (IOException e) {
            throw new IOException("Cannot renew the Kerberos login of " + user.getUserName() + " from its keytab: "
                    + e.getMessage(), e);
        }
        try {
            return user.doAs((PrivilegedExceptionAction<T>) action::run);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while calling the file system"
                    + " as " + user.getUserName());
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    private Path path(String path) {
        return new Path(java.util.Objects.requireNonNull(path, "path"));
    }

    // ------------------------------------------------------------------ primitives

    /**
     * Creates a file with its missing parents; on HDFS create-if-absent is one NameNode operation.
     *
     * @throws FileAlreadyExistsException when {@code mustCreate} and the file exists, or another client is still writing it
     */
    @Override
    public SyncableOutputStream create(String path, boolean mustCreate) throws IOException {
        return create(path, mustCreate, true);
    }

    /**
     * Creates a file whose parent must exist, with Hadoop's {@code createNonRecursive}: on HDFS one
     * NameNode call that fails when the parent is missing, so a parent removed meanwhile is never
     * recreated.
     *
     * @throws NoSuchFileException when the parent directory is missing
     */
    @Override
    public SyncableOutputStream createInExistingDirectory(String path, boolean mustCreate) throws IOException {
        return create(path, mustCreate, false);
    }

    private SyncableOutputStream create(String path, boolean mustCreate, boolean parents) throws IOException {
        Path p = path(path);
        checkLocal(path);
        if (localDisk && !mustCreate) {
            java.nio.file.Path file = localPath(path);
            Optional<java.nio.file.attribute.BasicFileAttributes> a = lstat(file);
            if (a.isPresent() && !a.get().isRegularFile()) {
                throw notRegular(path, a.get());
            }
        }
        if (localDisk && !parents) {
            return createLocalInExistingDirectory(path, mustCreate);
        }
        try {
            FSDataOutputStream out = call(() -> {
                if (mustCreate && local != null) {
                    claimLocal(path, p, parents);
                    return parents ? fs.create(p, true) : createNonRecursive(p, true);
                }
                return parents ? fs.create(p, !mustCreate) : createNonRecursive(p, !mustCreate);
            });
            return new HadoopOutput(out, path);
        } catch (RemoteException e) {
            if (isParentMissing(e)) {
                throw withCause(new NoSuchFileException(path, null, "the parent directory is missing"), e);
            }
            if (mustCreate && isBeingWritten(e)) {
                throw withCause(new FileAlreadyExistsException(path, null, "it exists and is still being written"), e);
            }
            throw translate(e, path, null);
        } catch (IOException e) {
            throw translate(e, path, null);
        }
    }

    /** On the local disk, a file channel opened without creating parents or following a final link. */
    private SyncableOutputStream createLocalInExistingDirectory(String path, boolean mustCreate) throws IOException {
        java.nio.file.Path file = localPath(path);
        java.nio.file.Path parent = file.getParent();
        Optional<java.nio.file.attribute.BasicFileAttributes> p = parent == null ? Optional.empty() : lstat(parent);
        if (p.isEmpty() || !p.get().isDirectory()) {
            throw new NoSuchFileException(path, null, "the parent directory is missing");
        }
        Set<java.nio.file.OpenOption> options = mustCreate
                ? Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                : Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                java.nio.file.LinkOption.NOFOLLOW_LINKS);
        try {
            return new LocalChannelOutput(FileChannel.open(file, options));
        } catch (NoSuchFileException e) {
            throw withCause(new NoSuchFileException(path, null, "the parent directory is missing"), e);
        } catch (FileAlreadyExistsException e) {
            throw withCause(new FileAlreadyExistsException(path, null, "it exists"), e);
        }
    }

    private FSDataOutputStream createNonRecursive(Path p, boolean overwrite) throws IOException {
        return fs.createNonRecursive(p, overwrite, configuration.getInt("io.file.buffer.size", 4096),
                fs.getDefaultReplication(p), fs.getDefaultBlockSize(p), null);
    }

    /** Creates the empty file with O_EXCL, which Hadoop's local create does not do. */
    private void claimLocal(String path, Path p, boolean parents) throws IOException {
        Path parent = p.getParent();
        if (parents && parent != null && !fs.mkdirs(parent)) {
            throw new FileSystemException(path, null, "cannot create the parent directory");
        }
        checkLocal(path);
        try {
            java.nio.file.Files.createFile(local.pathToFile(p).toPath());
        } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(path, null, "it exists");
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(path, null, "the parent directory is missing");
        }
    }

    private static boolean isParentMissing(RemoteException e) {
        String name = e.getClassName();
        return name != null && (name.endsWith(".FileNotFoundException") || name.endsWith(".ParentNotDirectoryException"));
    }

    private static boolean isBeingWritten(RemoteException e) {
        String name = e.getClassName();
        return name != null && (name.endsWith(".AlreadyBeingCreatedException") || name.endsWith(".RecoveryInProgressException"));
    }

    /**
     * Opens a file for reading; read errors name the file.
     *
     * @throws NoSuchFileException when nothing (or a directory) is there
     */
    @Override
    public InputStream open(String path) throws IOException {
        Path p = path(path);
        checkLocal(path);
        if (localDisk) {
            java.nio.file.attribute.BasicFileAttributes a = lstat(localPath(path))
                    .orElseThrow(() -> new NoSuchFileException(path));
            if (!a.isRegularFile()) {
                throw notRegular(path, a);
            }
        }
        try {
            return new HadoopInput(call(() -> fs.open(p)), path);
        } catch (IOException e) {
            throw translate(e, path, null);
        }
    }

    /** The entries of a directory; empty when it is missing or is a file (which Hadoop would list as itself). */
    @Override
    public List<FileStatus> list(String directory) throws IOException {
        if (localDisk) {
            return listLocal(directory);
        }
        Path p = path(directory);
        org.apache.hadoop.fs.FileStatus[] statuses;
        try {
            statuses = call(() -> fs.listStatus(p));
        } catch (FileNotFoundException e) {
            return List.of();
        } catch (IOException e) {
            throw translate(e, directory, null);
        }
        // Hadoop lists a file as itself; a file is not a directory with entries.
        if (statuses.length == 1 && !statuses[0].isDirectory() && statuses[0].getPath().equals(fs.makeQualified(p))) {
            return List.of();
        }
        List<FileStatus> out = new ArrayList<>(statuses.length);
        for (org.apache.hadoop.fs.FileStatus s : statuses) {
            String name = s.getPath().getName();
            out.add(toStatus(child(directory, name), name, s));
        }
        return out;
    }

    /** What Hadoop says about one path, or empty when nothing is there. */
    @Override
    public Optional<FileStatus> stat(String path) throws IOException {
        if (localDisk) {
            checkLocal(path);
            java.nio.file.Path file = localPath(path);
            String name = file.getFileName() == null ? "/" : file.getFileName().toString();
            return lstat(file).map(a -> localStatus(path, name, a));
        }
        Path p = path(path);
        try {
            org.apache.hadoop.fs.FileStatus s = call(() -> fs.getFileStatus(p));
            return Optional.of(toStatus(path, s.getPath().getName(), s));
        } catch (FileNotFoundException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw translate(e, path, null);
        }
    }

    private static FileStatus toStatus(String path, String name, org.apache.hadoop.fs.FileStatus s) {
        FileStatus.Type type = s.isSymlink() ? FileStatus.Type.SYMBOLIC_LINK
                : s.isDirectory() ? FileStatus.Type.DIRECTORY
                : s.isFile() ? FileStatus.Type.REGULAR_FILE : FileStatus.Type.OTHER;
        return new FileStatus(path, name, type, type == FileStatus.Type.REGULAR_FILE ? s.getLen() : 0,
                s.getModificationTime());
    }

    /**
     * Renames with {@link Options.Rename#NONE}: never replaces the target and never moves the source
     * inside an existing directory (which {@code FileSystem.rename} would do).
     *
     * @throws FileAlreadyExistsException when the target exists, even as an empty directory
     * @throws NoSuchFileException        when the source is missing
     */
    @Override
    public void rename(String source, String target) throws IOException {
        Path src = path(source);
        Path dst = path(target);
        checkLocal(source);
        checkLocal(target);
        if (localDisk) {
            java.nio.file.Path from = localPath(source);
            Optional<java.nio.file.attribute.BasicFileAttributes> a = lstat(from);
            if (a.isPresent() && a.get().isRegularFile()) {
                renameLocalFile(from, localPath(target), source, target);
                return;
            }
        }
        try {
            call(() -> {
                fileContext.rename(src, dst, Options.Rename.NONE);
                return null;
            });
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            throw withCause(new FileAlreadyExistsException(target, source, "rename target exists"), e);
        } catch (FileNotFoundException e) {
            if (!exists(src)) {
                throw withCause(new NoSuchFileException(source, target, "rename source is missing"), e);
            }
            throw withCause(new FileSystemException(source, target, "rename target's parent directory is missing"), e);
        } catch (IOException e) {
            throw translate(e, source, target);
        }
    }

    /**
     * A file on the local disk: Hadoop's local rename checks the target and then replaces it, so
     * link(2) claims the target instead (atomically, whole, failing when anything is there) and the
     * source name is removed after.
     */
    private static void renameLocalFile(java.nio.file.Path from, java.nio.file.Path to, String source, String target)
            throws IOException {
        try {
            java.nio.file.Files.createLink(to, from);
        } catch (FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(target, source, "rename target exists");
        } catch (NoSuchFileException e) {
            if (lstat(from).isEmpty()) {
                throw new NoSuchFileException(source, target, "rename source is missing");
            }
            throw new FileSystemException(source, target, "rename target's parent directory is missing");
        }
        java.nio.file.Files.delete(from);
    }

    private boolean exists(Path p) {
        try {
            return call(() -> fs.exists(p));
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Deletes a file or directory; a {@code false} from Hadoop while the path is still there is an error.
     *
     * @throws DirectoryNotEmptyException when a non-empty directory is deleted without {@code recursive}
     */
    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
        if (localDisk) {
            return deleteLocal(path, recursive);
        }
        Path p = path(path);
        boolean deleted;
        try {
            deleted = call(() -> fs.delete(p, recursive));
        } catch (PathIsNotEmptyDirectoryException e) {
            throw withCause(new DirectoryNotEmptyException(path), e);
        } catch (IOException e) {
            if (!recursive && isNonEmptyDirectory(p)) {
                throw withCause(new DirectoryNotEmptyException(path), e);
            }
            throw translate(e, path, null);
        }
        if (!deleted && exists(p)) {
            throw new FileSystemException(path, null, "the file system refused to delete it");
        }
        return deleted;
    }

    private boolean isNonEmptyDirectory(Path p) {
        try {
            return call(() -> fs.getFileStatus(p).isDirectory() && fs.listStatus(p).length > 0);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Creates a directory and its parents; fine when it exists.
     *
     * @throws FileAlreadyExistsException when a file is in the way
     */
    @Override
    public void mkdirs(String path) throws IOException {
        Path p = path(path);
        checkLocal(path);
        if (localDisk) {
            Optional<java.nio.file.attribute.BasicFileAttributes> a = lstat(localPath(path));
            if (a.isPresent() && a.get().isSymbolicLink()) {
                throw linkRefused(path);
            }
        }
        boolean made;
        try {
            made = call(() -> fs.mkdirs(p));
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            throw withCause(new FileAlreadyExistsException(path, null, "a file is in the way of the directory"), e);
        } catch (IOException e) {
            throw translate(e, path, null);
        }
        if (!made) {
            throw new FileSystemException(path, null, "the file system refused to create the directory");
        }
    }

    /** Fsyncs a directory on the local disk; a no-op on HDFS, whose NameNode logs changes durably, and on object stores. */
    @Override
    public void syncDirectory(String directory) throws IOException {
        if (local == null) {
            return;
        }
        checkLocal(directory);
        StorageFileSystem.fsyncLocalDirectory(localPath(directory));
    }

    /** Atomic directory rename on HDFS; directory sync on the local disk; nothing on other file systems. */
    @Override
    public Set<FsCapability> capabilities() {
        return capabilities;
    }

    /**
     * Qualifies and normalises a root; a path without scheme is resolved against this file system.
     *
     * @throws InvalidStorageArgumentException when it is empty, relative, has a {@code .} or {@code ..}
     *                                         segment, or names another file system
     */
    @Override
    public String normalizeRoot(String root) {
        if (root == null || root.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is empty (" + root + ")");
        }
        String rootScheme = null;
        String rootAuthority = null;
        String rest = root;
        Matcher m = SCHEME.matcher(root);
        if (m.matches()) {
            rootScheme = m.group(1);
            rest = m.group(2);
            if (rest.startsWith("//")) {
                int slash = rest.indexOf('/', 2);
                rootAuthority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
                rest = slash < 0 ? "/" : rest.substring(slash);
            }
        }
        if (!rest.startsWith("/")) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is not absolute (" + root + ")");
        }
        if ((rootScheme != null && !rootScheme.equalsIgnoreCase(scheme))
                || (rootAuthority != null && !rootAuthority.isEmpty() && !rootAuthority.equalsIgnoreCase(authority))) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is on another file system than "
                    + uri() + " (" + root + ")");
        }
        StringBuilder normalized = new StringBuilder();
        for (String segment : rest.split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new InvalidStorageArgumentException("Cannot use storage root: it has a '" + segment + "' segment ("
                        + root + ")");
            }
            if (segment.chars().anyMatch(Character::isISOControl)) {
                throw new InvalidStorageArgumentException("Cannot use storage root: it contains a control character ("
                        + root + ")");
            }
            if (!segment.isEmpty()) {
                normalized.append('/').append(segment);
            }
        }
        String qualified = scheme + "://" + authority + (normalized.length() == 0 ? "/" : normalized.toString());
        return localDisk ? resolveLocalRoot(qualified, root) : qualified;
    }

    // ------------------------------------------------------------------ the local disk without links

    private static final String LINK_REFUSED =
            "it is a symbolic link, and no path component below a storage root is followed through a link";

    /** Resolves a local root's existing part to its real path once, and remembers it as an anchor. */
    private String resolveLocalRoot(String qualified, String root) {
        java.nio.file.Path normalized;
        try {
            normalized = local.pathToFile(path(qualified)).toPath().normalize();
        } catch (RuntimeException e) {
            throw new InvalidStorageArgumentException("Cannot use storage root: not a path on this disk (" + root + ")");
        }
        java.nio.file.Path existing = normalized;
        while (existing.getParent() != null && !java.nio.file.Files.exists(existing, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        java.nio.file.Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            throw new InvalidStorageArgumentException("Cannot use storage root: cannot resolve " + existing + ": "
                    + e.getMessage() + " (" + root + ")");
        }
        localAnchors.add(real);
        java.nio.file.Path resolved = real.resolve(existing.relativize(normalized));
        return scheme + "://" + authority + resolved;
    }

    private java.nio.file.Path localPath(String path) throws IOException {
        try {
            return local.pathToFile(path(path)).toPath();
        } catch (IllegalArgumentException e) {
            throw new FileSystemException(path, null, "not a valid path in this JVM's file-name encoding: "
                    + e.getMessage());
        }
    }

    private java.nio.file.Path anchorOf(java.nio.file.Path file) {
        java.nio.file.Path best = null;
        for (java.nio.file.Path anchor : localAnchors) {
            if (file.startsWith(anchor) && (best == null || anchor.getNameCount() > best.getNameCount())) {
                best = anchor;
            }
        }
        return best != null ? best : file.getRoot();
    }

    /**
     * On the local disk, checks that no component of {@code path} between its root and its last
     * component is a symbolic link; a missing component ends the check (the call then finds it missing).
     *
     * @throws FileSystemException naming the component that is a link
     */
    private void checkLocal(String path) throws IOException {
        if (!localDisk) {
            return;
        }
        java.nio.file.Path file = localPath(path);
        java.nio.file.Path parent = file.getParent();
        if (parent == null) {
            return;
        }
        java.nio.file.Path anchor = anchorOf(file);
        if (!parent.startsWith(anchor) || parent.equals(anchor)) {
            return;
        }
        java.nio.file.Path current = anchor;
        for (java.nio.file.Path name : anchor.relativize(parent)) {
            current = current.resolve(name);
            Optional<java.nio.file.attribute.BasicFileAttributes> a = lstat(current);
            if (a.isEmpty()) {
                return;
            }
            if (a.get().isSymbolicLink()) {
                throw linkRefused(current.toString());
            }
        }
    }

    private static Optional<java.nio.file.attribute.BasicFileAttributes> lstat(java.nio.file.Path file) throws IOException {
        try {
            return Optional.of(java.nio.file.Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    private static FileSystemException linkRefused(String path) {
        return new FileSystemException(path, null, LINK_REFUSED);
    }

    private static FileSystemException notRegular(String path, java.nio.file.attribute.BasicFileAttributes a) {
        if (a.isSymbolicLink()) {
            return new FileSystemException(path, null, "refusing to follow a symbolic link: " + LINK_REFUSED);
        }
        if (a.isDirectory()) {
            return new FileSystemException(path, null, "it is a directory, not a regular file");
        }
        return new FileSystemException(path, null, "it is not a regular file (a FIFO, socket or device), so it is not opened");
    }

    private static FileStatus localStatus(String path, String name, java.nio.file.attribute.BasicFileAttributes a) {
        FileStatus.Type type = a.isSymbolicLink() ? FileStatus.Type.SYMBOLIC_LINK
                : a.isDirectory() ? FileStatus.Type.DIRECTORY
                : a.isRegularFile() ? FileStatus.Type.REGULAR_FILE : FileStatus.Type.OTHER;
        return new FileStatus(path, name, type, type == FileStatus.Type.REGULAR_FILE ? a.size() : 0,
                a.lastModifiedTime().toMillis());
    }

    private List<FileStatus> listLocal(String directory) throws IOException {
        checkLocal(directory);
        java.nio.file.Path dir = localPath(directory);
        Optional<java.nio.file.attribute.BasicFileAttributes> self = lstat(dir);
        if (self.isPresent() && self.get().isSymbolicLink()) {
            throw linkRefused(directory);
        }
        if (self.isEmpty() || !self.get().isDirectory()) {
            return List.of();
        }
        List<FileStatus> out = new ArrayList<>();
        try (java.nio.file.DirectoryStream<java.nio.file.Path> entries = java.nio.file.Files.newDirectoryStream(dir)) {
            for (java.nio.file.Path entry : entries) {
                java.nio.file.Path name = entry.getFileName();
                String text = name.toString();
                boolean representable;
                try {
                    representable = name.getFileSystem().getPath(text).equals(name);
                } catch (java.nio.file.InvalidPathException e) {
                    representable = false;
                }
                if (!representable) {
                    LOG.warn("Skipping an entry of {} whose name is not valid in this JVM's file-name encoding ({}) ({})",
                            directory, System.getProperty("sun.jnu.encoding"), text);
                    continue;
                }
                lstat(entry).ifPresent(a -> out.add(localStatus(child(directory, text), text, a)));
            }
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
            return List.of();
        }
        return out;
    }

    private boolean deleteLocal(String path, boolean recursive) throws IOException {
        checkLocal(path);
        java.nio.file.Path target = localPath(path);
        Optional<java.nio.file.attribute.BasicFileAttributes> a = lstat(target);
        if (a.isEmpty()) {
            return false;
        }
        if (a.get().isSymbolicLink() && recursive) {
            throw new FileSystemException(path, null, "not deleted recursively: " + LINK_REFUSED);
        }
        if (recursive && a.get().isDirectory()) {
            // walkFileTree does not follow links: a link inside is deleted as an entry, never entered.
            java.nio.file.Files.walkFileTree(target, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult visitFile(java.nio.file.Path file,
                                                               java.nio.file.attribute.BasicFileAttributes attrs)
                        throws IOException {
                    java.nio.file.Files.deleteIfExists(file);
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFileFailed(java.nio.file.Path file, IOException exc)
                        throws IOException {
                    if (exc instanceof NoSuchFileException) {
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }
                    throw exc;
                }

                @Override
                public java.nio.file.FileVisitResult postVisitDirectory(java.nio.file.Path dir, IOException exc)
                        throws IOException {
                    if (exc != null && !(exc instanceof NoSuchFileException)) {
                        throw exc;
                    }
                    java.nio.file.Files.deleteIfExists(dir);
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
            });
            return true;
        }
        try {
            return java.nio.file.Files.deleteIfExists(target);
        } catch (DirectoryNotEmptyException e) {
            throw new DirectoryNotEmptyException(path);
        }
    }

    /** Closes the Hadoop file system instance this object owns. */
    @Override
    public void close() throws IOException {
        fs.close();
    }

    @Override
    public String toString() {
        return "HdfsFileSystem[" + uri() + "]";
    }

    // ------------------------------------------------------------------ error translation

    private static <E extends IOException> E withCause(E e, Throwable cause) {
        e.initCause(cause);
        return e;
    }

    /** Translates a Hadoop error into a java.nio.file type where one fits, always naming the path. */
    static IOException translate(IOException e, String path, String other) {
        if (e instanceof FileSystemException) {
            return e;
        }
        if (e instanceof RemoteException remote) {
            IOException unwrapped = remote.unwrapRemoteException();
            if (unwrapped != remote) {
                return translate(unwrapped, path, other);
            }
        }
        String reason = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        if (e instanceof org.apache.hadoop.fs.FileAlreadyExistsException) {
            return withCause(new FileAlreadyExistsException(path, other, reason), e);
        }
        if (e instanceof FileNotFoundException) {
            return withCause(new NoSuchFileException(path, other, reason), e);
        }
        if (e instanceof PathIsNotEmptyDirectoryException) {
            return withCause(new DirectoryNotEmptyException(path), e);
        }
        if (e instanceof AccessControlException) {
            return withCause(new AccessDeniedException(path, other, reason), e);
        }
        if (e instanceof InterruptedIOException) {
            return e;
        }
        return withCause(new FileSystemException(path, other, e.getClass().getSimpleName() + ": " + reason), e);
    }

    /** Names the path in a stream error unless the message already does. */
    private static IOException named(IOException e, String path) {
        String message = e.getMessage();
        if (e instanceof FileSystemException || e instanceof InterruptedIOException
                || (message != null && message.contains(path))) {
            return e;
        }
        return translate(e, path, null);
    }

    // ------------------------------------------------------------------ streams

    /** A Hadoop output stream as a syncable stream: hsync where the stream has it, else flush. */
    private static final class HadoopOutput extends SyncableOutputStream {
        private final FSDataOutputStream out;
        private final String path;
        private final boolean hsync;

        HadoopOutput(FSDataOutputStream out, String path) {
            this.out = out;
            this.path = path;
            this.hsync = out.hasCapability(StreamCapabilities.HSYNC);
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                throw named(e, path);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                throw named(e, path);
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                out.flush();
            } catch (IOException e) {
                throw named(e, path);
            }
        }

        @Override
        public void sync() throws IOException {
            try {
                if (hsync) {
                    out.hsync();
                } else {
                    out.flush();
                }
            } catch (IOException e) {
                throw named(e, path);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                out.close();
            } catch (IOException e) {
                throw named(e, path);
            }
        }
    }

    /** A local file channel as a syncable stream: {@code sync()} is an fsync. */
    private static final class LocalChannelOutput extends SyncableOutputStream {
        private final FileChannel channel;

        LocalChannelOutput(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b, off, len);
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
        }

        @Override
        public void sync() throws IOException {
            channel.force(true);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** A Hadoop input stream whose errors name the file. */
    private static final class HadoopInput extends FilterInputStream {
        private final String path;

        HadoopInput(InputStream in, String path) {
            super(in);
            this.path = path;
        }

        @Override
        public int read() throws IOException {
            try {
                return in.read();
            } catch (IOException e) {
                throw named(e, path);
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return in.read(b, off, len);
            } catch (IOException e) {
                throw named(e, path);
            }
        }

        @Override
        public long skip(long n) throws IOException {
            try {
                return in.skip(n);
            } catch (IOException e) {
                throw named(e, path);
            }
        }

        @Override
        public int available() throws IOException {
            try {
                return in.available();
            } catch (IOException e) {
                throw named(e, path);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                in.close();
            } catch (IOException e) {
                throw named(e, path);
            }
        }
    }
}
