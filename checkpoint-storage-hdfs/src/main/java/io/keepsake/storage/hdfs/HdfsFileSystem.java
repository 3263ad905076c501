package io.keepsake.storage.hdfs;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.hdfs.internal.HdfsSettings;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.StorageRoots;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.local.RawLocalFs;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

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
 * the local disk ({@code file://}), where Hadoop's raw local file system follows links,
 * {@link RawLocalDisk} checks every path below the roots without following links first.
 *
 * <p>Each instance owns its {@link Configuration} copy and its own, uncached {@link FileSystem}
 * ({@link FileSystem#newInstance}), closed by {@link #close()}. The {@link FileContext} used for
 * renames has a client of its own that Hadoop offers no way to close; it holds no threads of its
 * own and becomes garbage with this object. Thread-safe. It deliberately does not retry: Hadoop's
 * client does, within its configured limits.
 */
public final class HdfsFileSystem implements StorageFileSystem {

    private static final Logger LOG = LoggerFactory.getLogger(HdfsFileSystem.class);

    private final Configuration configuration;
    private final AsUser asUser;
    private final HadoopListing listing;
    private final HadoopCalls hadoop;
    private final FileSystem fs;
    private final String scheme;
    private final String authority;
    /** The local disk when Hadoop's raw local file system serves it, else null. */
    private final RawLocalDisk local;
    private final Set<FsCapability> capabilities;
    /** The local disk itself ({@code file://}), where links and special files are real: checked with java.nio. */
    private final boolean localDisk;

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
        this.asUser = new AsUser(user);
        this.fs = asUser.call(() -> FileSystem.newInstance(defaultUri, own));
        try {
            URI uri = fs.getUri();
            FileContext fileContext = asUser.call(() -> FileContext.getFileContext(uri, own));
            this.scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            this.authority = uri.getAuthority() == null ? "" : uri.getAuthority();
            this.local = fs instanceof RawLocalFileSystem raw ? new RawLocalDisk(raw, "file".equals(scheme)) : null;
            this.listing = new HadoopListing(fs, asUser);
            this.hadoop = new HadoopCalls(fs, fileContext, own, asUser, local);
        } catch (IOException | RuntimeException e) {
            closeQuietly(fs, e);
            throw e;
        }
        this.localDisk = local != null && local.checked();
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
        LOG.debug("Opened {} as {} with capabilities {}", uri(), asUser.name(), capabilities);
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
        return asUser.user();
    }

    /** A copy of the Hadoop configuration this file system was opened with. */
    public Configuration hadoopConfiguration() {
        return new Configuration(configuration);
    }

    /** The Hadoop path of {@code path}, whose links are checked first on the local disk ({@code file://}). */
    private Path checked(String path) throws IOException {
        Path p = path(path);
        if (localDisk) {
            local.check(path);
        }
        return p;
    }

    private Path path(String path) {
        return new Path(Objects.requireNonNull(path, "path"));
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
        Path p = checked(path);
        if (localDisk && !mustCreate) {
            local.requireRegularIfPresent(path);
        }
        if (localDisk && !parents) {
            return local.createInExistingDirectory(path, mustCreate);
        }
        return hadoop.create(p, path, mustCreate, parents);
    }

    /**
     * Opens a file for reading; read errors name the file.
     *
     * @throws NoSuchFileException when nothing (or a directory) is there
     */
    @Override
    public InputStream open(String path) throws IOException {
        Path p = checked(path);
        if (localDisk) {
            local.requireRegularFile(path);
        }
        return hadoop.open(p, path);
    }

    /** The entries of a directory; empty when it is missing or is a file (which Hadoop would list as itself). */
    @Override
    public List<FileStatus> list(String directory) throws IOException {
        return localDisk ? local.list(directory, this) : listing.list(directory, this);
    }

    /** What is at one path, or empty when nothing is there. */
    @Override
    public Optional<FileStatus> stat(String path) throws IOException {
        return localDisk ? local.stat(path) : listing.stat(path);
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
        Path src = checked(source);
        Path dst = checked(target);
        if (localDisk && local.renameRegularFile(source, target)) {
            return;
        }
        hadoop.rename(src, dst, source, target);
    }

    /**
     * Deletes a file or directory; a {@code false} from Hadoop while the path is still there is an error.
     *
     * @throws DirectoryNotEmptyException when a non-empty directory is deleted without {@code recursive}
     */
    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
        if (localDisk) {
            return local.delete(path, recursive);
        }
        Path p = path(path);
        return hadoop.delete(p, path, recursive);
    }

    /**
     * Creates a directory and its parents; fine when it exists.
     *
     * @throws FileAlreadyExistsException when a file is in the way
     */
    @Override
    public void mkdirs(String path) throws IOException {
        Path p = checked(path);
        if (localDisk) {
            local.refuseLink(path);
        }
        hadoop.mkdirs(p, path);
    }

    /** Fsyncs a directory on the local disk; a no-op on HDFS, whose NameNode logs changes durably, and on object stores. */
    @Override
    public void syncDirectory(String directory) throws IOException {
        if (local == null) {
            return;
        }
        local.sync(directory);
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
        StorageRoots.requireNonBlank(root);
        String normalized = QualifiedRoot.normalizedPath(root, scheme, authority, uri());
        String qualified = scheme + "://" + authority + normalized;
        return localDisk ? local.resolveRoot(qualified, root, scheme + "://" + authority) : qualified;
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
}
