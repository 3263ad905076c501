package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.CheckpointStorageFactory;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.tool.internal.SavepointPath;
import io.keepsake.tool.internal.SeaTunnelYaml;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The options that say which storage a command works on, shared by every storage command as a
 * picocli mixin. The configuration map handed to the backend's factory is built in layers, each
 * overriding the one before: the {@code --config} file (SeaTunnel's {@code seatunnel.yaml}, whose
 * {@code seatunnel.engine.checkpoint.storage} section gives the backend and its
 * {@code plugin-config}, or a Java properties file with the engine's keys), then
 * {@code -D key=value}, then {@code --namespace} and {@code --savepoint-path}, then, for a command
 * given a savepoint directory path, the roots that path implies (and, for a remote path, its
 * {@code fs.defaultFS}, and {@code storage.type} for {@code s3://}, {@code s3a://} and
 * {@code oss://}). The backend is {@code --backend},
 * else the config file's type, else {@code s3} for an {@code s3://} or {@code s3a://} path or
 * namespace and {@code azure} for an {@code azure://}, {@code abfs[s]://} or {@code wasb[s]://} one
 * (whose roots those backends take as they are), {@code hdfs} for another remote path or
 * namespace, else {@code localfile}; {@code local} and {@code file} are aliases of {@code localfile}.
 * For {@code localfile} relative paths are resolved against the working directory, and a remote
 * namespace is refused naming the {@code --backend} to give; for {@code hdfs} a remote namespace
 * gives {@code fs.defaultFS} when nothing else does, and a {@code file:} namespace or
 * {@code fs.defaultFS} selects Hadoop's local file system. Unknown keys
 * are left for the factory to refuse. Commands other than {@code migrate} open the storage with
 * {@code create-roots=false}, over a value from the config file (the engine's); a {@code -D
 * create-roots} asking otherwise is refused rather than overridden.
 */
public final class BackendOptions {

    /** The largest {@code --config} file read: 1 MiB, far above any real configuration. */
    static final int MAX_CONFIG_BYTES = 1 << 20;

    /** The backend used when neither {@code --backend} nor the config file names one. */
    public static final String DEFAULT_BACKEND = "localfile";

    private static final String HDFS = "hdfs";
    private static final String FS_DEFAULT = "fs.defaultFS";
    private static final Set<String> OBJECT_STORE_SCHEMES = Set.of("s3", "s3a", "oss");
    private static final String S3 = "s3";
    private static final String AZURE = "azure";
    /**
     * The schemes whose roots a backend of Keepsake's own takes as they are, and that backend; any
     * other remote scheme goes to Hadoop ({@code hdfs}).
     */
    private static final Map<String, String> NATIVE_SCHEMES = Map.of("s3", S3, "s3a", S3, "s3n", S3,
            "azure", AZURE, "abfs", AZURE, "abfss", AZURE, "wasb", AZURE, "wasbs", AZURE);
    /** The values of SeaTunnel's {@code storage.type} that a backend of Keepsake's own serves, and that backend. */
    private static final Map<String, String> NATIVE_STORAGE_TYPES = Map.of("s3", S3, "s3a", S3,
            "azure", AZURE, "abfs", AZURE, "abfss", AZURE, "wasb", AZURE, "wasbs", AZURE);

    @Option(names = "--backend", paramLabel = "ID", completionCandidates = BackendNames.class,
            description = "Storage factory id, found through ServiceLoader: localfile (alias local) in both jars;"
                    + " hdfs, s3 and azure in keepsake.jar, not in keepsake-local.jar (default: the --config file's"
                    + " type, else s3 for an s3:// or s3a:// path, azure for an azure://, abfs[s]:// or wasb[s]://"
                    + " path, hdfs for another remote path, else localfile).")
    String backend;

    @Option(names = "--namespace", paramLabel = "PATH",
            description = "The checkpoint root (key 'namespace'); required unless --config sets it or a savepoint"
                    + " path is given.")
    String namespace;

    @Option(names = "--savepoint-path", paramLabel = "PATH",
            description = "The savepoint root (key 'savepoint.path'); default <namespace>/savepoint.")
    String savepointPath;

    @Option(names = "--config", paramLabel = "FILE",
            description = "SeaTunnel's seatunnel.yaml (its seatunnel.engine.checkpoint.storage section), or a Java"
                    + " properties file with the engine's storage keys; a regular file (or a link to one) of at most"
                    + " 1 MiB; the flags override it.")
    Path configFile;

    @Option(names = "-D", paramLabel = "KEY=VALUE",
            description = {"An extra configuration key; repeatable. Keys include:",
                "  fs.defaultFS=hdfs://nn:8020",
                "  fs.s3a.endpoint, fs.s3a.access.key (s3)",
                "  azure.account.name, azure.account.key (azure)",
                "  hdfs.allow-non-atomic-scheme=true (hdfs)",
                "  savepoint.format-version=1 (migrate)",
                "  create-roots=true (migrate; others refuse it)"})
    Map<String, String> extra = new LinkedHashMap<>();

    @Mixin
    LoggingOptions logging = new LoggingOptions();

    /** The backend and configuration one call opens. */
    record Resolved(String backend, Map<String, String> configuration) {
    }

    /**
     * The factory id and configuration map for one call.
     *
     * @param readOnly true to open without creating roots ({@code create-roots=false})
     * @param path     the savepoint directory the call was given, or null
     * @throws ToolUsageException when the config file cannot be read or no namespace is given
     */
    Resolved resolve(boolean readOnly, SavepointPath path) {
        Map<String, String> config = new TreeMap<>();
        String chosen = null;
        if (configFile != null) {
            chosen = readConfigFile(config);
        }
        config.putAll(extra);
        if (namespace != null) {
            config.put(StorageOptions.NAMESPACE, namespace);
        }
        if (savepointPath != null) {
            config.put(StorageOptions.SAVEPOINT_PATH, savepointPath);
        }
        if (path != null) {
            chosen = applySavepointPath(config, path, chosen);
        }
        if (backend != null) {
            chosen = backend;
        }
        URI remote = remoteUri(config.get(StorageOptions.NAMESPACE));
        if (chosen == null && remote != null) {
            // A namespace URI names its backend as a savepoint path does: s3 for s3://, s3a://; hdfs for another.
            chosen = backendOf(remote);
        }
        chosen = canonical(chosen == null ? DEFAULT_BACKEND : chosen);
        applyNamespace(config, chosen, remote);
        if (DEFAULT_BACKEND.equals(chosen)) {
            resolveLocalPath(config, StorageOptions.NAMESPACE);
            resolveLocalPath(config, StorageOptions.SAVEPOINT_PATH);
        } else if (HDFS.equals(chosen)) {
            selectHadoopLocal(config);
        }
        if (readOnly) {
            String asked = extra.get(StorageOptions.CREATE_ROOTS);
            if (asked != null && !asked.trim().equalsIgnoreCase("false")) {
                throw new ToolUsageException("Cannot open storage with -D " + StorageOptions.CREATE_ROOTS + "="
                        + asked + ": this command opens it without creating roots, as every command but migrate"
                        + " does; drop the -D " + StorageOptions.CREATE_ROOTS + " option");
            }
            config.put(StorageOptions.CREATE_ROOTS, "false");
        }
        return new Resolved(chosen, Collections.unmodifiableMap(config));
    }

    /**
     * Sets the roots of the savepoint directory {@code path}, and for a remote one the file
     * system's address and type; returns the backend it names when nothing else chose one.
     */
    private String applySavepointPath(Map<String, String> config, SavepointPath path, String chosen) {
        config.put(StorageOptions.NAMESPACE, path.namespace());
        config.put(StorageOptions.SAVEPOINT_PATH, path.savepointRoot());
        if (!path.local() && chosen == null && backend == null) {
            chosen = backendOfScheme(path.scheme());
        }
        // The S3 and Azure backends take their roots as they are; only Hadoop needs an address and a type.
        String target = backend != null ? canonical(backend) : chosen;
        if (!S3.equals(target) && !AZURE.equals(target)) {
            if (!path.local() && !config.containsKey(FS_DEFAULT)) {
                config.put(FS_DEFAULT, path.fileSystemUri());
            }
            if (path.scheme() != null && OBJECT_STORE_SCHEMES.contains(path.scheme())
                    && !config.containsKey(StorageOptions.STORAGE_TYPE)) {
                config.put(StorageOptions.STORAGE_TYPE, path.scheme());
            }
        }
        return chosen;
    }

    /**
     * Requires a namespace the {@code chosen} backend can open, and for Hadoop on a namespace URI
     * ({@code remote}, or null) takes the file system's address and type from it.
     */
    private static void applyNamespace(Map<String, String> config, String chosen, URI remote) {
        String ns = config.get(StorageOptions.NAMESPACE);
        if (ns == null || ns.isBlank()) {
            throw new ToolUsageException("Cannot open storage: no namespace; give --namespace PATH, a savepoint"
                    + " directory path, or set 'namespace' in the --config file");
        }
        if (remote != null && DEFAULT_BACKEND.equals(chosen)) {
            throw new ToolUsageException("Cannot open localfile storage on namespace " + ns + ": the local-file"
                    + " backend takes local paths only; give --backend " + backendOf(remote) + " for a "
                    + remote.getScheme() + ":// namespace");
        }
        if (remote != null && HDFS.equals(chosen) && !config.containsKey(FS_DEFAULT) && remote.getAuthority() != null) {
            // The namespace holds the file system's address: fs.defaultFS need not repeat it.
            String scheme = remote.getScheme().toLowerCase(Locale.ROOT);
            config.put(FS_DEFAULT, scheme + "://" + remote.getAuthority());
            if (OBJECT_STORE_SCHEMES.contains(scheme) && !config.containsKey(StorageOptions.STORAGE_TYPE)) {
                config.put(StorageOptions.STORAGE_TYPE, scheme);
            }
        }
    }

    /**
     * The backend a remote URI names: s3 for s3://, s3a:// and s3n://; azure for azure://, abfs[s]://
     * and wasb[s]://; hdfs for any other scheme.
     */
    private static String backendOf(URI remote) {
        return backendOfScheme(remote.getScheme());
    }

    private static String backendOfScheme(String scheme) {
        return scheme == null ? HDFS : NATIVE_SCHEMES.getOrDefault(scheme.toLowerCase(Locale.ROOT), HDFS);
    }

    /**
     * The namespace as a URI when it names a remote file system ({@code hdfs://nn:8020/x},
     * {@code s3a://bucket/x}): a scheme other than {@code file}; null for a plain path, a
     * {@code file:} URI or a value that is no URI.
     */
    private static URI remoteUri(String value) {
        if (value == null || !value.contains("://")) {
            return null;
        }
        try {
            URI uri = new URI(value.trim());
            return uri.getScheme() == null || "file".equalsIgnoreCase(uri.getScheme()) ? null : uri;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** The factory id a backend name stands for, by the library's alias table ({@code local} is {@code localfile}). */
    static String canonical(String id) {
        return CheckpointStorageFactories.canonicalId(id);
    }

    /** Hadoop's local file system is storage type {@code local}; say so when the addresses already do. */
    private static void selectHadoopLocal(Map<String, String> config) {
        String type = config.get(StorageOptions.STORAGE_TYPE);
        String defaultFs = config.get(FS_DEFAULT);
        String ns = config.get(StorageOptions.NAMESPACE);
        boolean localFs = defaultFs != null && defaultFs.trim().toLowerCase(Locale.ROOT).startsWith("file:");
        boolean localNs = defaultFs == null && ns != null && ns.trim().toLowerCase(Locale.ROOT).startsWith("file:");
        if ((type == null || HDFS.equals(type)) && (localFs || localNs)) {
            config.put(StorageOptions.STORAGE_TYPE, "local");
        }
    }

    private String readConfigFile(Map<String, String> config) {
        String text = readConfigText(configFile);
        String name = configFile.getFileName() == null ? "" : configFile.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            SeaTunnelYaml.StorageSection section = SeaTunnelYaml.storageSection(text, configFile.toString());
            config.putAll(section.pluginConfig());
            return backendOfSeaTunnelType(section.type(), section.pluginConfig());
        }
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            throw new ToolUsageException("Cannot read --config file: " + e.getMessage() + " (" + configFile + ")", e);
        }
        for (String key : properties.stringPropertyNames()) {
            config.put(key, properties.getProperty(key));
        }
        return null;
    }

    /**
     * The text of a {@code --config} file: a regular file (or a link to one) of at most
     * {@link #MAX_CONFIG_BYTES}, in UTF-8. What the path names is looked at before it is opened, so
     * a FIFO, a socket, a device or a directory is refused without blocking on it, and a huge or
     * sparse file is refused by its size without being read; the read itself stops one byte past
     * the limit, should the file grow in between.
     *
     * @throws ToolUsageException naming the path and what is wrong with it
     */
    static String readConfigText(Path file) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isSymbolicLink()) {
                a = Files.readAttributes(file, BasicFileAttributes.class);
            }
        } catch (NoSuchFileException e) {
            throw new ToolUsageException("Cannot read --config file: it does not exist (" + file + ")", e);
        } catch (IOException | RuntimeException e) {
            throw new ToolUsageException("Cannot read --config file: " + e.getMessage() + " (" + file + ")", e);
        }
        if (a.isDirectory()) {
            throw new ToolUsageException("Cannot read --config file: it is a directory, not a regular file (" + file
                    + ")");
        }
        if (!a.isRegularFile()) {
            throw new ToolUsageException("Cannot read --config file: it is a FIFO, socket or device, not a regular"
                    + " file, so it is not opened (" + file + ")");
        }
        if (a.size() > MAX_CONFIG_BYTES) {
            throw tooLarge(file, a.size() + " bytes");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_CONFIG_BYTES + 1);
        } catch (IOException | RuntimeException e) {
            throw new ToolUsageException("Cannot read --config file: " + e.getMessage() + " (" + file + ")", e);
        }
        if (bytes.length > MAX_CONFIG_BYTES) {
            throw tooLarge(file, "more than " + MAX_CONFIG_BYTES + " bytes");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ToolUsageException("Cannot read --config file: it is not UTF-8 text (" + file + ")", e);
        }
    }

    private static ToolUsageException tooLarge(Path file, String size) {
        return new ToolUsageException("Cannot read --config file: it is larger than the 1 MiB a configuration may"
                + " have (" + size + ") (" + file + ")");
    }

    /**
     * The backend for SeaTunnel's {@code checkpoint.storage.type}: a {@code storage.type} of
     * {@code s3} or {@code s3a} (SeaTunnel's {@code hdfs} plugin on S3) maps to the S3 backend, one of
     * {@code azure}, {@code abfs[s]} or {@code wasb[s]} to the Azure backend; otherwise
     * its {@code hdfs} and {@code localfile} plugins map to the backends of the same name, and
     * Keepsake's own SeaTunnel plugin ({@code keepsake}) chooses by {@code storage.type} and
     * {@code fs.defaultFS}, as the plugin does.
     */
    static String backendOfSeaTunnelType(String type, Map<String, String> pluginConfig) {
        String t = type.trim().toLowerCase(Locale.ROOT);
        String storageType = pluginConfig.get(StorageOptions.STORAGE_TYPE);
        String nativeType = storageType == null ? null
                : NATIVE_STORAGE_TYPES.get(storageType.trim().toLowerCase(Locale.ROOT));
        if (nativeType != null) {
            return nativeType;
        }
        if (!"keepsake".equals(t)) {
            return t;
        }
        if (storageType != null) {
            return DEFAULT_BACKEND.equals(canonical(storageType)) ? DEFAULT_BACKEND : HDFS;
        }
        return pluginConfig.containsKey(FS_DEFAULT) ? HDFS : DEFAULT_BACKEND;
    }

    private static void resolveLocalPath(Map<String, String> config, String key) {
        String value = config.get(key);
        if (value == null || value.isBlank()) {
            return;
        }
        if (value.startsWith("file:")) {
            try {
                value = Path.of(URI.create(value)).toString();
                config.put(key, value);
            } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
                return;
            }
        }
        if (value.contains("://")) {
            return;
        }
        try {
            Path path = Path.of(value);
            if (!path.isAbsolute()) {
                config.put(key, path.toAbsolutePath().normalize().toString());
            }
        } catch (InvalidPathException e) {
            // Left as given: the factory refuses it with its own message.
        }
    }

    /**
     * Finds the factory, creates the storage and checks that it has the savepoint capability.
     *
     * @param readOnly true for commands that only read: nothing is created, a missing root is not found
     * @param path     the savepoint directory the call was given, or null
     * @throws io.keepsake.storage.InvalidStorageArgumentException when the backend id is unknown or a key is refused
     * @throws ToolUsageException          when the storage has no savepoint capability
     * @throws io.keepsake.storage.StorageRootNotFoundException when reading and a root is missing
     * @throws CheckpointStorageException  when the storage cannot be reached or set up
     */
    OpenedStorage open(boolean readOnly, SavepointPath path) throws CheckpointStorageException {
        return open(resolve(readOnly, path));
    }

    /**
     * Opens the storage to read checkpoints only: nothing is created and the savepoint root is not
     * looked at (a command that reads checkpoints before it writes a savepoint may find it missing).
     *
     * @throws io.keepsake.storage.StorageRootNotFoundException when the namespace is missing
     * @throws CheckpointStorageException  when the storage cannot be reached
     */
    OpenedStorage openForCheckpoints() throws CheckpointStorageException {
        // Not resolve(true, ...): migrate may be given -D create-roots=true for the savepoint it writes.
        Resolved all = resolve(false, null);
        Map<String, String> configuration = new TreeMap<>(all.configuration());
        configuration.remove(StorageOptions.SAVEPOINT_PATH);
        configuration.put(StorageOptions.CREATE_ROOTS, "false");
        return open(new Resolved(all.backend(), Collections.unmodifiableMap(configuration)));
    }

    /** The savepoint root given explicitly (--savepoint-path, the config file or -D), resolved as a call would; empty for the default. */
    java.util.Optional<String> configuredSavepointRoot() {
        return java.util.Optional.ofNullable(resolve(false, null).configuration().get(StorageOptions.SAVEPOINT_PATH));
    }

    private OpenedStorage open(Resolved resolved) throws CheckpointStorageException {
        CheckpointStorageFactory factory;
        try {
            factory = CheckpointStorageFactories.find(resolved.backend());
        } catch (io.keepsake.storage.InvalidStorageArgumentException e) {
            throw BackendNames.notFound(resolved.backend(), BackendNames.ids(), BackendNames.runningJarTitle(), e);
        }
        CheckpointStorage storage = factory.create(resolved.configuration());
        if (!(storage instanceof SavepointStorage savepoints)) {
            storage.close();
            throw new ToolUsageException("Cannot use backend '" + resolved.backend() + "': its storage ("
                    + storage.getClass().getName() + ") has no savepoint capability, it does not implement "
                    + SavepointStorage.class.getSimpleName());
        }
        return new OpenedStorage(resolved.backend(), resolved.configuration(), storage, savepoints);
    }
}
