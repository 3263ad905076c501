package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.CheckpointStorageFactory;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StorageOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The options that say which storage a command works on, shared by every storage command as a
 * picocli mixin. The configuration map handed to the backend's factory is built in three layers,
 * each overriding the one before: the {@code --config} properties file (the same keys as the
 * engine's string map), then {@code -D key=value}, then {@code --namespace} and
 * {@code --savepoint-path}. For the {@code localfile} backend a relative path is resolved against
 * the working directory. Unknown keys are left for the factory to refuse.
 */
public final class BackendOptions {

    /** The backend used when {@code --backend} is not given. */
    public static final String DEFAULT_BACKEND = "localfile";

    @Option(names = "--backend", paramLabel = "ID", defaultValue = DEFAULT_BACKEND,
            description = "Storage factory id, found through ServiceLoader (default: ${DEFAULT-VALUE}; the tool ships"
                    + " localfile and hdfs).")
    String backend;

    @Option(names = "--namespace", paramLabel = "PATH",
            description = "The checkpoint root (key 'namespace'); required unless --config sets it.")
    String namespace;

    @Option(names = "--savepoint-path", paramLabel = "PATH",
            description = "The savepoint root (key 'savepoint.path'); default <namespace>/savepoint.")
    String savepointPath;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A Java properties file with the engine's storage keys; the flags override it.")
    Path configFile;

    @Option(names = "-D", paramLabel = "KEY=VALUE",
            description = "An extra configuration key, such as -D fs.defaultFS=hdfs://nn:8020; repeatable.")
    Map<String, String> extra = new LinkedHashMap<>();

    @Mixin
    LoggingOptions logging = new LoggingOptions();

    /** The factory id chosen with {@code --backend}. */
    public String backend() {
        return backend;
    }

    /**
     * The configuration map for the factory, from the config file, {@code -D} keys and flags.
     *
     * @throws ToolUsageException when the config file cannot be read or no namespace is given
     */
    public Map<String, String> configuration() {
        Map<String, String> config = new TreeMap<>();
        if (configFile != null) {
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(configFile, StandardCharsets.UTF_8)) {
                properties.load(reader);
            } catch (IOException | IllegalArgumentException e) {
                throw new ToolUsageException("Cannot read --config file: " + e.getMessage() + " (" + configFile + ")", e);
            }
            for (String key : properties.stringPropertyNames()) {
                config.put(key, properties.getProperty(key));
            }
        }
        config.putAll(extra);
        if (namespace != null) {
            config.put(StorageOptions.NAMESPACE, namespace);
        }
        if (savepointPath != null) {
            config.put(StorageOptions.SAVEPOINT_PATH, savepointPath);
        }
        String ns = config.get(StorageOptions.NAMESPACE);
        if (ns == null || ns.isBlank()) {
            throw new ToolUsageException("Cannot open storage: no namespace; give --namespace PATH or set 'namespace'"
                    + " in the --config file");
        }
        if (DEFAULT_BACKEND.equals(backend)) {
            resolveLocalPath(config, StorageOptions.NAMESPACE);
            resolveLocalPath(config, StorageOptions.SAVEPOINT_PATH);
        }
        return Collections.unmodifiableMap(config);
    }

    private static void resolveLocalPath(Map<String, String> config, String key) {
        String value = config.get(key);
        if (value == null || value.isBlank() || value.contains("://")) {
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
     * @throws io.keepsake.storage.InvalidStorageArgumentException when the backend id is unknown or a key is refused
     * @throws ToolUsageException          when the storage has no savepoint capability
     * @throws CheckpointStorageException  when the storage cannot be reached or set up
     */
    public OpenedStorage open() throws CheckpointStorageException {
        Map<String, String> config = configuration();
        CheckpointStorageFactory factory = CheckpointStorageFactories.find(backend);
        CheckpointStorage storage = factory.create(config);
        if (!(storage instanceof SavepointStorage savepoints)) {
            storage.close();
            throw new ToolUsageException("Cannot use backend '" + backend + "': its storage ("
                    + storage.getClass().getName() + ") has no savepoint capability, it does not implement "
                    + SavepointStorage.class.getSimpleName());
        }
        return new OpenedStorage(backend, config, storage, savepoints);
    }
}
