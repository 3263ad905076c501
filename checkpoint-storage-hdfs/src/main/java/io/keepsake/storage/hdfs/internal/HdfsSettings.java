package io.keepsake.storage.hdfs.internal;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.ConfigOption;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.hdfs.NonAtomicFileSystemException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The backend keys of the {@code hdfs} storage, checked against each other and turned into a
 * fresh Hadoop {@link Configuration}. Building one has no side effect on the process; only
 * {@link #login()} touches Hadoop's process-wide security settings. Internal: the factory's
 * class documentation lists the keys users write.
 *
 * <p>Precedence, highest first: the explicit keys ({@code fs.defaultFS}, a bucket key), the
 * {@code seatunnel.hadoop.*} and connector ({@code fs.s3a.*}, {@code fs.oss.*}) keys, the file
 * named by {@code hdfs_site_path}, then Hadoop's defaults and any {@code core-site.xml} on the
 * classpath. The same Hadoop key given twice with different values is a conflict, not a
 * silent choice. Immutable and thread-safe ({@link #configuration()} returns a copy).
 *
 * <p>A directory in the address ({@code fs.defaultFS: file:///tmp/}, as SeaTunnel's stock
 * {@code seatunnel.yaml} has it) is accepted and plays no part in where files go: Hadoop's
 * {@code FileSystem.get} and SeaTunnel's {@code hdfs} plugin take only the scheme and authority of
 * {@code fs.defaultFS}, and the plugin puts an absolute {@code namespace} as it is on that file
 * system. Keepsake does the same, so one configuration names the same directories under both
 * plugins; {@link #ignoredDirectory()} reports what was left out.
 */
public final class HdfsSettings {

    public static final String FS_DEFAULT = "fs.defaultFS";
    public static final String HDFS_SITE_PATH = "hdfs_site_path";
    public static final String KERBEROS_PRINCIPAL = "kerberosPrincipal";
    public static final String KERBEROS_KEYTAB = "kerberosKeytabFilePath";
    public static final String S3_BUCKET = "s3.bucket";
    public static final String OSS_BUCKET = "oss.bucket";
    public static final String HADOOP_PREFIX = "seatunnel.hadoop.";
    public static final String S3A_PREFIX = "fs.s3a.";
    public static final String OSS_PREFIX = "fs.oss.";
    /**
     * {@code true} accepts a file system whose scheme is not one of {@link #ATOMIC_SCHEMES}; the
     * default, {@code false}, refuses it with {@link NonAtomicFileSystemException}.
     */
    public static final String ALLOW_NON_ATOMIC_SCHEME = "hdfs.allow-non-atomic-scheme";
    /**
     * The schemes whose rename is one atomic step and whose create-if-absent only one racing
     * creator wins: {@code hdfs} (the NameNode does both) and {@code file} (the backend claims names
     * with an exclusive create and publishes with links on the local disk).
     */
    public static final Set<String> ATOMIC_SCHEMES = Set.of("hdfs", "file");

    /** Backend keys accepted besides the common ones. */
    public static final Set<String> KEYS =
            Set.of(FS_DEFAULT, HDFS_SITE_PATH, KERBEROS_PRINCIPAL, KERBEROS_KEYTAB, S3_BUCKET, OSS_BUCKET,
                    ALLOW_NON_ATOMIC_SCHEME);
    /** Backend key prefixes accepted. */
    public static final List<String> PREFIXES = List.of(HADOOP_PREFIX, S3A_PREFIX, OSS_PREFIX);
    /** The {@code storage.type} values accepted; absent means {@code hdfs}. */
    public static final Set<String> STORAGE_TYPES = Set.of("hdfs", "local", "s3", "s3a", "oss");

    /** A root qualified with a scheme ({@code s3a://bucket/x}); group 1 is the scheme. */
    private static final Pattern QUALIFIED = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*)://");
    /** What messages say is being configured. */
    private static final String WHAT = "hdfs storage";
    /** How {@link #from} reads {@link #ALLOW_NON_ATOMIC_SCHEME}. */
    private static final ConfigOption<Boolean> ALLOW_NON_ATOMIC_SCHEME_OPTION = ConfigOption.bool(
            ALLOW_NON_ATOMIC_SCHEME, "accept a file system whose scheme is not one of " + ATOMIC_SCHEMES, false);
    private static final String OSS_IMPL_KEY = "fs.oss.impl";
    private static final String OSS_IMPL = "org.apache.hadoop.fs.aliyun.oss.AliyunOSSFileSystem";

    /**
     * A file system behind a storage type, with the keys that belong to it and an address written
     * as users write it, for messages.
     */
    private record Kind(String type, String scheme, String bucketKey, String connectorPrefix, String example) {
        static final Kind HDFS = new Kind("hdfs", "hdfs", null, null, "hdfs://namenode:8020");
        static final Kind LOCAL = new Kind("local", "file", null, null, "file:///");
        static final Kind S3A = new Kind("s3a", "s3a", S3_BUCKET, S3A_PREFIX, "s3a://bucket");
        static final Kind OSS = new Kind("oss", "oss", OSS_BUCKET, OSS_PREFIX, "oss://bucket");

        static Kind of(String storageType) {
            if (storageType == null) {
                return HDFS;
            }
            return switch (storageType) {
                case "local" -> LOCAL;
                case "s3", "s3a" -> S3A;
                case "oss" -> OSS;
                default -> HDFS;
            };
        }
    }

    /** What the keys resolved to; {@code principal} and {@code keytab} are null without Kerberos. */
    private record Values(Kind kind, URI fileSystemUri, String ignoredDirectory, Configuration configuration,
                          String principal, String keytab, boolean allowNonAtomicScheme) {
    }

    private final Values values;

    private HdfsSettings(Values values) {
        this.values = values;
    }

    /**
     * Checks the backend keys of {@code options} and builds the Hadoop configuration.
     *
     * @throws NonAtomicFileSystemException    when the file system's scheme is not one of {@link #ATOMIC_SCHEMES}
     *                                         and {@value #ALLOW_NON_ATOMIC_SCHEME} is not {@code true}
     * @throws InvalidStorageArgumentException when a key is missing, malformed, or does not apply to the storage type
     */
    public static HdfsSettings from(StorageOptions options) {
        Kind kind = Kind.of(options.storageType());
        Map<String, String> own = options.backendOptions();
        for (String key : own.keySet()) {
            requireApplies(kind, key);
        }
        boolean allowNonAtomic = ALLOW_NON_ATOMIC_SCHEME_OPTION.read(own, WHAT);
        if (!allowNonAtomic) {
            requireAtomicScheme(options.namespace(), StorageOptions.NAMESPACE);
            requireAtomicScheme(options.savepointPath(), StorageOptions.SAVEPOINT_PATH);
        }
        Map<String, String> hadoop = hadoopProperties(kind, own);
        URI given = fileSystemUri(kind, own, hadoop);
        URI uri = withoutPath(kind, given);
        String ignored = given.getRawPath() == null || given.getRawPath().isEmpty() || given.getRawPath().equals("/")
                ? null : given.getPath();
        hadoop.remove(FS_DEFAULT);
        if (!allowNonAtomic && !isAtomicScheme(uri.getScheme())) {
            throw refusal(uri.getScheme(), uri + " (" + FS_DEFAULT + "), " + StorageOptions.NAMESPACE + "="
                    + options.namespace());
        }
        String principal = own.get(KERBEROS_PRINCIPAL);
        String keytab = own.get(KERBEROS_KEYTAB);
        requireKerberosPair(principal, keytab);
        Configuration conf = siteConfiguration(own.get(HDFS_SITE_PATH));
        hadoop.forEach(conf::set);
        if (kind == Kind.OSS && !hadoop.containsKey(OSS_IMPL_KEY)) {
            conf.set(OSS_IMPL_KEY, OSS_IMPL);
        }
        conf.set(FS_DEFAULT, uri.toString());
        if (principal != null) {
            conf.set("hadoop.security.authentication", "kerberos");
        }
        return new HdfsSettings(new Values(kind, uri, ignored, conf, principal, keytab, allowNonAtomic));
    }

    /**
     * The Hadoop properties the keys set: each {@code seatunnel.hadoop.*} key without its prefix, then
     * the storage type's connector keys as they are; one property given twice differently is refused.
     */
    private static Map<String, String> hadoopProperties(Kind kind, Map<String, String> own) {
        Map<String, String> hadoop = new TreeMap<>();
        for (Map.Entry<String, String> e : own.entrySet()) {
            String key = e.getKey();
            if (key.startsWith(HADOOP_PREFIX)) {
                String stripped = key.substring(HADOOP_PREFIX.length());
                if (stripped.isBlank()) {
                    throw invalid("the key names no Hadoop property", key);
                }
                putWithoutConflict(hadoop, stripped, e.getValue(), key);
            }
        }
        for (Map.Entry<String, String> e : own.entrySet()) {
            if (kind.connectorPrefix() != null && e.getKey().startsWith(kind.connectorPrefix())) {
                putWithoutConflict(hadoop, e.getKey(), e.getValue(), e.getKey());
            }
        }
        return hadoop;
    }

    /** A Kerberos principal and keytab are given together, the principal not blank, the keytab a readable file. */
    private static void requireKerberosPair(String principal, String keytab) {
        if ((principal == null) != (keytab == null)) {
            throw new InvalidStorageArgumentException("Cannot configure hdfs storage: " + KERBEROS_PRINCIPAL + " and "
                    + KERBEROS_KEYTAB + " go together, but only " + (principal != null ? KERBEROS_PRINCIPAL : KERBEROS_KEYTAB)
                    + " is set (" + (principal != null ? principal : keytab) + ")");
        }
        if (principal != null) {
            if (principal.isBlank()) {
                throw invalid("the value is blank", KERBEROS_PRINCIPAL);
            }
            requireReadableFile(KERBEROS_KEYTAB, keytab);
        }
    }

    /** A fresh Hadoop configuration with the file {@code site} names added, when it names one. */
    private static Configuration siteConfiguration(String site) {
        Configuration conf = new Configuration();
        if (site != null) {
            requireReadableFile(HDFS_SITE_PATH, site);
            conf.addResource(new Path(Paths.get(site).toAbsolutePath().toUri()));
            try {
                conf.size();
            } catch (RuntimeException e) {
                throw new InvalidStorageArgumentException("Cannot configure hdfs storage: the file is not a readable"
                        + " Hadoop configuration: " + e.getMessage() + " (" + HDFS_SITE_PATH + "=" + site + ")");
            }
        }
        return conf;
    }

    /** Refuses a root qualified with a scheme outside {@link #ATOMIC_SCHEMES}, before the address is looked at. */
    private static void requireAtomicScheme(String root, String key) {
        if (root == null) {
            return;
        }
        Matcher m = QUALIFIED.matcher(root.trim());
        if (m.lookingAt() && !isAtomicScheme(m.group(1))) {
            throw refusal(m.group(1), key + "=" + root);
        }
    }

    /** True when {@code scheme} is one of {@link #ATOMIC_SCHEMES}, ignoring case. */
    public static boolean isAtomicScheme(String scheme) {
        return scheme != null && ATOMIC_SCHEMES.contains(scheme.toLowerCase(Locale.ROOT));
    }

    /**
     * The refusal of a file system with {@code scheme}, naming {@code where} (its address and the
     * configured path), why, and what to do instead.
     */
    public static NonAtomicFileSystemException refusal(String scheme, String where) {
        String s = scheme == null ? "" : scheme.toLowerCase(Locale.ROOT);
        return new NonAtomicFileSystemException(s, "Cannot open hdfs storage on a " + s + ":// file system: Hadoop"
                + " promises neither an atomic rename nor an exclusive create-if-absent there (on object stores rename"
                + " is copy-and-delete and create-if-absent is check-then-act), so two commits of one savepoint id"
                + " could both succeed and a garbage collection could remove the files of a savepoint whose commit"
                + " returned; for S3 use the s3 storage (checkpoint storage type s3, whose conditional writes make"
                + " create-if-absent exclusive), or put the namespace on an hdfs:// cluster; only if this file system"
                + " really renames atomically and creates exclusively, set " + ALLOW_NON_ATOMIC_SCHEME + "=true (" + where
                + ")");
    }

    private static void requireApplies(Kind kind, String key) {
        boolean applies;
        if (key.startsWith(HADOOP_PREFIX) || key.equals(FS_DEFAULT) || key.equals(ALLOW_NON_ATOMIC_SCHEME)) {
            applies = true;
        } else if (key.equals(HDFS_SITE_PATH) || key.equals(KERBEROS_PRINCIPAL) || key.equals(KERBEROS_KEYTAB)) {
            applies = kind == Kind.HDFS;
        } else if (key.equals(S3_BUCKET) || key.startsWith(S3A_PREFIX)) {
            applies = kind == Kind.S3A;
        } else if (key.equals(OSS_BUCKET) || key.startsWith(OSS_PREFIX)) {
            applies = kind == Kind.OSS;
        } else {
            applies = false;
        }
        if (!applies) {
            throw new InvalidStorageArgumentException("Cannot configure hdfs storage: the key does not apply to "
                    + StorageOptions.STORAGE_TYPE + " " + kind.type() + " (" + key + ")");
        }
    }

    private static void putWithoutConflict(Map<String, String> hadoop, String key, String value, String givenAs) {
        String previous = hadoop.putIfAbsent(key, value);
        if (previous != null && !previous.equals(value)) {
            throw new InvalidStorageArgumentException("Cannot configure hdfs storage: the Hadoop property is given twice"
                    + " with different values (" + key + ", last as " + givenAs + ")");
        }
    }

    private static URI fileSystemUri(Kind kind, Map<String, String> own, Map<String, String> hadoop) {
        String key = FS_DEFAULT;
        String value = own.get(FS_DEFAULT);
        String passedThrough = hadoop.get(FS_DEFAULT);
        if (value != null && passedThrough != null && !value.equals(passedThrough)) {
            throw new InvalidStorageArgumentException("Cannot configure hdfs storage: " + FS_DEFAULT + " and "
                    + HADOOP_PREFIX + FS_DEFAULT + " disagree (" + value + " vs " + passedThrough + ")");
        }
        if (value == null && passedThrough != null) {
            value = passedThrough;
            key = HADOOP_PREFIX + FS_DEFAULT;
        }
        if (kind.bucketKey() != null && own.containsKey(kind.bucketKey())) {
            String bucket = own.get(kind.bucketKey());
            if (value != null && !value.equals(bucket)) {
                throw new InvalidStorageArgumentException("Cannot configure hdfs storage: " + key + " and "
                        + kind.bucketKey() + " disagree (" + value + " vs " + bucket + ")");
            }
            value = bucket;
            key = kind.bucketKey();
        }
        if (value == null) {
            if (kind == Kind.LOCAL) {
                return URI.create("file:///");
            }
            throw new InvalidStorageArgumentException("Cannot configure hdfs storage: " + StorageOptions.STORAGE_TYPE
                    + " " + kind.type() + " needs the file system's address, such as " + kind.example() + " ("
                    + (kind.bucketKey() == null ? FS_DEFAULT : kind.bucketKey()) + ")");
        }
        return parseUri(kind, key, value);
    }

    private static URI parseUri(Kind kind, String key, String value) {
        URI uri;
        try {
            uri = new URI(value.trim());
        } catch (URISyntaxException e) {
            throw malformed(kind, key, value, "it is not a URI: " + e.getReason());
        }
        String scheme = uri.getScheme();
        if (scheme == null) {
            throw malformed(kind, key, value, "it has no scheme");
        }
        boolean otherHadoopScheme = kind == Kind.HDFS && !scheme.equalsIgnoreCase("file") && !uri.isOpaque();
        if (!scheme.equalsIgnoreCase(kind.scheme()) && !otherHadoopScheme) {
            throw malformed(kind, key, value, StorageOptions.STORAGE_TYPE + " " + kind.type() + " needs a "
                    + kind.scheme() + ":// address");
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
            throw malformed(kind, key, value, "it has a query or fragment");
        }
        if (kind == Kind.LOCAL) {
            if (uri.getRawAuthority() != null && !uri.getRawAuthority().isEmpty()) {
                throw malformed(kind, key, value, "a local file system has no host");
            }
            return uri;
        }
        if (otherHadoopScheme && !scheme.equalsIgnoreCase(kind.scheme())) {
            return uri;
        }
        if (uri.getRawAuthority() == null || uri.getRawAuthority().isEmpty()) {
            throw malformed(kind, key, value, "it names no " + (kind == Kind.HDFS ? "NameNode" : "bucket"));
        }
        if (kind == Kind.HDFS && uri.getHost() == null) {
            throw malformed(kind, key, value, "its NameNode address is not host[:port]");
        }
        return uri;
    }

    /** The file system's address alone: scheme and authority, as Hadoop's {@code FileSystem.get} reads it. */
    private static URI withoutPath(Kind kind, URI uri) {
        if (kind == Kind.LOCAL) {
            return URI.create("file:///");
        }
        String authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority();
        return URI.create(uri.getScheme().toLowerCase(Locale.ROOT) + "://" + authority + (authority.isEmpty() ? "/" : ""));
    }

    private static InvalidStorageArgumentException malformed(Kind kind, String key, String value, String why) {
        return new InvalidStorageArgumentException("Cannot configure hdfs storage: " + key + " is malformed, " + why
                + "; write it like " + kind.example() + " (" + key + "=" + value + ")");
    }

    private static void requireReadableFile(String key, String value) {
        if (value.isBlank()) {
            throw invalid("the value is blank", key);
        }
        if (!isReadableFile(key, value)) {
            throw new InvalidStorageArgumentException("Cannot configure hdfs storage: no readable file there ("
                    + key + "=" + value + ")");
        }
    }

    /** True when {@code value} names a readable regular file; text that is not a path is refused naming {@code key}. */
    private static boolean isReadableFile(String key, String value) {
        try {
            var file = Paths.get(value);
            return Files.isRegularFile(file) && Files.isReadable(file);
        } catch (InvalidPathException e) {
            throw new InvalidStorageArgumentException("Cannot configure hdfs storage: not a file path (" + key + "="
                    + value + ")");
        }
    }

    private static InvalidStorageArgumentException invalid(String why, String key) {
        return new InvalidStorageArgumentException("Cannot configure hdfs storage: " + why + " (" + key + ")");
    }

    /** The storage type these settings are for: hdfs, local, s3a or oss. */
    public String storageType() {
        return values.kind().type();
    }

    /** The file system's address, such as {@code hdfs://nn:8020} or {@code file:///}. */
    public URI fileSystemUri() {
        return values.fileSystemUri();
    }

    /**
     * The directory the configured address named after its authority ({@code /tmp/} of
     * {@code file:///tmp/}), which is not used; null when it named none.
     */
    public String ignoredDirectory() {
        return values.ignoredDirectory();
    }

    /** True when {@value #ALLOW_NON_ATOMIC_SCHEME} is {@code true}. */
    public boolean allowNonAtomicScheme() {
        return values.allowNonAtomicScheme();
    }

    /** True when the file system's scheme is not one of {@link #ATOMIC_SCHEMES} (it was accepted by the override). */
    public boolean nonAtomicScheme() {
        return !isAtomicScheme(values.fileSystemUri().getScheme());
    }

    /** True when a Kerberos principal and keytab are configured. */
    public boolean kerberos() {
        return values.principal() != null;
    }

    /** A fresh copy of the Hadoop configuration. */
    public Configuration configuration() {
        return new Configuration(values.configuration());
    }

    /**
     * A copy of the configuration whose client gives up within seconds when the file system does
     * not answer, for the reachability probe at creation; the storage itself keeps the user's limits.
     */
    public Configuration probeConfiguration() {
        Configuration probe = new Configuration(values.configuration());
        probe.setInt("ipc.client.connect.max.retries", 1);
        probe.setInt("ipc.client.connect.retry.interval", 250);
        probe.setInt("ipc.client.connect.timeout", 3_000);
        probe.setInt("ipc.client.connect.max.retries.on.timeouts", 1);
        probe.setInt("ipc.client.rpc-timeout.ms", 5_000);
        probe.setBoolean("dfs.client.retry.policy.enabled", false);
        probe.setInt("dfs.client.failover.max.attempts", 3);
        probe.setInt("dfs.client.failover.sleep.base.millis", 100);
        probe.setInt("dfs.client.failover.sleep.max.millis", 500);
        probe.setInt("dfs.client.failover.connection.retries", 0);
        probe.setInt("dfs.client.failover.connection.retries.on.timeouts", 0);
        return probe;
    }

    /**
     * Logs in from the keytab when Kerberos is configured, else returns null (the current user).
     * Hadoop's authentication method is process-wide: this switches the whole JVM to Kerberos.
     *
     * @throws CheckpointStorageException when the login fails
     */
    public UserGroupInformation login() throws CheckpointStorageException {
        String principal = values.principal();
        if (principal == null) {
            return null;
        }
        synchronized (UserGroupInformation.class) {
            try {
                UserGroupInformation.setConfiguration(values.configuration());
                return UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, values.keytab());
            } catch (IOException | RuntimeException e) {
                throw new CheckpointStorageException("Cannot log in to Kerberos as " + principal + " with keytab "
                        + values.keytab() + ": " + e.getMessage() + " (" + KERBEROS_PRINCIPAL + ", " + KERBEROS_KEYTAB
                        + ")", e);
            }
        }
    }

    @Override
    public String toString() {
        return "HdfsSettings[" + values.kind().type() + " at " + values.fileSystemUri()
                + (values.principal() == null ? "" : ", as " + values.principal()) + "]";
    }
}
