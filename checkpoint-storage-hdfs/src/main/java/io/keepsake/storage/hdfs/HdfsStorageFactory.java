package io.keepsake.storage.hdfs;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.hdfs.internal.HdfsSettings;
import io.keepsake.storage.spi.FileSystemStorageFactory;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.StorageRoots;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * Checkpoints and savepoints on a Hadoop file system (factory id {@code hdfs}): a
 * {@link KeepsakeStorage} over {@link HdfsFileSystem}, configured by the keys SeaTunnel users already write for its {@code hdfs}
 * checkpoint storage plugin:
 * <ul>
 *   <li>{@code namespace} (required), {@code savepoint.path}, {@code savepoint.periodic.max-retained};</li>
 *   <li>{@code storage.type}: {@code hdfs} (the default), {@code local} (the local disk through
 *       Hadoop's raw local file system), {@code s3}/{@code s3a} or {@code oss} (refused unless
 *       {@code hdfs.allow-non-atomic-scheme=true}; their Hadoop connectors must be on the classpath);</li>
 *   <li>{@code fs.defaultFS}: the file system's address ({@code hdfs://}, or with the override
 *       another Hadoop scheme), required for {@code hdfs}; for object
 *       stores {@code s3.bucket} / {@code oss.bucket} may name it instead. A directory after the
 *       address ({@code file:///tmp/}) is accepted and not used, as Hadoop and SeaTunnel's own
 *       plugin do not use it: {@code namespace} alone says where checkpoints go;</li>
 *   <li>{@code hdfs_site_path}: a Hadoop XML file added to the configuration;</li>
 *   <li>{@code kerberosPrincipal} with {@code kerberosKeytabFilePath}: log in from the keytab, run
 *       every call as that user and renew the ticket before it expires;</li>
 *   <li>{@code seatunnel.hadoop.<key>}: passed to Hadoop as {@code <key>}; {@code fs.s3a.*} and
 *       {@code fs.oss.*} pass through unchanged for their storage types;</li>
 *   <li>{@code hdfs.allow-non-atomic-scheme}: {@code false} (the default) refuses, before any Hadoop
 *       file system is instantiated, a file system whose scheme is not {@code hdfs} or {@code file}
 *       ({@code s3a}, {@code oss}, {@code abfs}, {@code viewfs}, {@code ofs}, ...) with
 *       {@link NonAtomicFileSystemException}; {@code true} accepts it with a warning of what that risks.</li>
 * </ul>
 * A key that is unknown, or that belongs to another storage type, is an error. The caller's map
 * is never mutated; every storage gets its own Hadoop configuration and file system instance.
 * Before returning, the factory creates the namespace and savepoint root through a client with
 * short timeouts, so a wrong address or a silent NameNode fails in seconds, naming
 * {@code fs.defaultFS} and the address. Thread-safe and stateless.
 */
public final class HdfsStorageFactory extends FileSystemStorageFactory {

    private static final Logger LOG = LoggerFactory.getLogger(HdfsStorageFactory.class);

    /** The id users put in their configuration. */
    public static final String IDENTIFIER = "hdfs";

    /** The factory {@link java.util.ServiceLoader} instantiates. */
    public HdfsStorageFactory() {
        super(IDENTIFIER, HdfsSettings.KEYS, HdfsSettings.PREFIXES, HdfsSettings.STORAGE_TYPES);
    }

    /**
     * Logs in to Kerberos when configured and opens the file system; checks both roots' syntax,
     * naming the key of a bad one.
     *
     * @throws NonAtomicFileSystemException    when the scheme lacks atomic rename and exclusive create and
     *                                         {@code hdfs.allow-non-atomic-scheme} is not {@code true}
     * @throws InvalidStorageArgumentException when a key is unknown, missing, malformed or belongs to another type
     * @throws CheckpointStorageException     when the login fails or the file system cannot be opened
     */
    @Override
    protected StorageFileSystem openFileSystem(StorageOptions options) throws CheckpointStorageException {
        HdfsSettings settings = HdfsSettings.from(options);
        logIgnoredDirectory(settings, options);
        if (settings.nonAtomicScheme()) {
            LOG.warn("Opening {} storage at {} on a {}:// file system because {}=true: Hadoop promises neither an"
                    + " atomic rename nor an exclusive create-if-absent there, so two commits of one savepoint id can"
                    + " both succeed (the last one's files stay, under a handle the first was given), and a garbage"
                    + " collection could remove the files of an attempt whose writer decided to publish, tearing a"
                    + " savepoint whose commit returned; garbage collection therefore leaves every attempt without"
                    + " metadata and reports it as kept ({})", settings.storageType(), settings.fileSystemUri(),
                    settings.fileSystemUri().getScheme(), HdfsSettings.ALLOW_NON_ATOMIC_SCHEME, options.namespace());
        }
        UserGroupInformation user = settings.login();
        HdfsFileSystem fs = open(settings, settings.configuration(), user);
        StorageRoots.requireWellFormed(fs, options, "storage root");
        return fs;
    }

    /** Creates both roots through a short-timeout client: the reachability and permission check. */
    @Override
    protected void prepareRoots(StorageOptions options, StorageFileSystem fileSystem, KeepsakeStorage storage)
            throws CheckpointStorageException {
        HdfsSettings settings = HdfsSettings.from(options);
        UserGroupInformation user = ((HdfsFileSystem) fileSystem).user();
        try (HdfsFileSystem probe = open(settings, settings.probeConfiguration(), user)) {
            StorageRoots.create(probe, storage, (root, e) -> new CheckpointStorageException("Cannot reach or write "
                    + settings.storageType() + " storage at " + settings.fileSystemUri() + " ("
                    + HdfsSettings.FS_DEFAULT + "): creating " + root + " failed: " + e.getMessage(), e));
        } catch (IOException e) {
            LOG.debug("Closing the probe client of {} failed", settings.fileSystemUri(), e);
        }
        LOG.info("Opened {} storage at {}: checkpoints in {}, savepoints in {}", settings.storageType(),
                settings.fileSystemUri(), storage.namespace(), storage.savepointRoot());
    }

    /**
     * Says where files go when {@code fs.defaultFS} named a directory, which Hadoop and SeaTunnel's
     * {@code hdfs} plugin do not use either: at INFO when the namespace lies below it (SeaTunnel's stock
     * configuration), else at WARN, since an operator may have expected the directory to be a prefix.
     */
    private static void logIgnoredDirectory(HdfsSettings settings, StorageOptions options) {
        String directory = settings.ignoredDirectory();
        if (directory == null) {
            return;
        }
        String namespace = options.namespace();
        String below = directory.endsWith("/") ? directory : directory + "/";
        String message = "{} names the directory {}; as in Hadoop and SeaTunnel's hdfs plugin, only the file system"
                + " {} is taken from it, and checkpoints go to {} {} as written";
        if (namespace.equals(directory) || namespace.startsWith(below)
                || namespace.contains("://") && namespace.substring(namespace.indexOf("://") + 3).contains(below)) {
            LOG.info(message, HdfsSettings.FS_DEFAULT, directory, settings.fileSystemUri(), StorageOptions.NAMESPACE,
                    namespace);
        } else {
            LOG.warn(message + ", which is not below {}", HdfsSettings.FS_DEFAULT, directory, settings.fileSystemUri(),
                    StorageOptions.NAMESPACE, namespace, directory);
        }
    }

    private static HdfsFileSystem open(HdfsSettings settings, Configuration conf,
                                       UserGroupInformation user) throws CheckpointStorageException {
        try {
            return new HdfsFileSystem(conf, user, settings.allowNonAtomicScheme());
        } catch (IOException | RuntimeException e) {
            throw new CheckpointStorageException("Cannot open " + settings.storageType() + " storage at "
                    + settings.fileSystemUri() + ": " + e.getMessage() + hint(settings) + " ("
                    + HdfsSettings.FS_DEFAULT + "=" + settings.fileSystemUri() + ")", e);
        }
    }

    private static String hint(HdfsSettings settings) {
        return switch (settings.storageType()) {
            case "s3a" -> "; is hadoop-aws with its AWS SDK on the classpath?";
            case "oss" -> "; is hadoop-aliyun with its OSS SDK on the classpath?";
            default -> "";
        };
    }
}
