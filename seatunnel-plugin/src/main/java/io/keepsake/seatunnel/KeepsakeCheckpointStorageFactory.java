package io.keepsake.seatunnel;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.StorageRootNotFoundException;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorageFactory;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * SeaTunnel 2.3.x's checkpoint storage factory with the identifier {@code keepsake}: one line in
 * {@code seatunnel.yaml} ({@code seatunnel.engine.checkpoint.storage.type: keepsake}) swaps the
 * engine's {@code localfile}/{@code hdfs} plugin for Keepsake's backends, with the same
 * {@code plugin-config} keys.
 *
 * <p>The backend is chosen by {@code storage.type}: {@code localfile}, {@code local} or
 * {@code file} select Keepsake's local backend; {@code s3} and {@code s3a} its S3 backend (AWS SDK v2,
 * with SeaTunnel's {@code s3.bucket} and {@code fs.s3a.*} keys); {@code azure}, {@code abfs}, {@code abfss},
 * {@code wasb} and {@code wasbs} its Azure Blob backend (Azure SDK, with Hadoop's {@code fs.azure.*}
 * credential keys where they name the configured account); {@code hdfs} and {@code oss} its
 * Hadoop backend (run on the Hadoop the engine ships). Without {@code storage.type}, a
 * configuration that names {@code fs.defaultFS} goes to the Hadoop backend and any other to the
 * local one; {@code storage.type=hdfs} with a {@code file:} {@code fs.defaultFS} (how SeaTunnel's
 * own {@code hdfs} plugin is pointed at a local disk) runs Hadoop's local file system; a directory
 * after that address (SeaTunnel's stock {@code file:///tmp/}) is not used, as SeaTunnel does not
 * use it. Every other key is checked by the chosen backend, so an unknown key or a bad value
 * fails here, naming the key.
 *
 * <p>Roots: the namespace is created when missing, as SeaTunnel's plugins create it. An explicit
 * {@code savepoint.path} must exist unless {@code create-roots: true} is set: a mistyped path would
 * otherwise be created silently and the savepoints kept where nobody looks. {@code create-roots:
 * false} creates neither root (the library's meaning).
 *
 * <p>The engine calls {@link #create} at every job submission and never closes what it returns,
 * so one storage is opened per distinct {@code plugin-config} and JVM and shared by the jobs
 * that use it (Keepsake's storages are thread-safe); a second Hadoop client or writer thread is
 * never opened per job. Thread-safe.
 */
public final class KeepsakeCheckpointStorageFactory implements CheckpointStorageFactory {

    /** The identifier operators write as {@code checkpoint.storage.type}. */
    public static final String IDENTIFIER = "keepsake";

    private static final Logger LOG = LoggerFactory.getLogger(KeepsakeCheckpointStorageFactory.class);
    private static final Set<String> LOCAL_TYPES = Set.of("localfile", "local", "file");
    private static final Set<String> HADOOP_TYPES = Set.of("hdfs", "oss");
    private static final Set<String> S3_TYPES = Set.of("s3", "s3a");
    private static final Set<String> AZURE_TYPES = Set.of("azure", "abfs", "abfss", "wasb", "wasbs");
    private static final String DEFAULT_FS = "fs.defaultFS";
    private static final Map<Map<String, String>, KeepsakeCheckpointStorage> OPEN = new HashMap<>();

    /** Creates the factory; the engine finds it through {@code ServiceLoader}. */
    public KeepsakeCheckpointStorageFactory() {
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    /**
     * Opens Keepsake storage on the backend {@code storage.type} selects.
     *
     * @throws CheckpointStorageException when a key is unknown, a value is bad or the roots cannot be used;
     *                                    the message names the key
     */
    @Override
    public org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage create(Map<String, String> configuration)
            throws CheckpointStorageException {
        if (configuration == null) {
            throw new CheckpointStorageException("Cannot create keepsake checkpoint storage: the plugin-config is null");
        }
        Map<String, String> key = cacheKey(configuration);
        synchronized (OPEN) {
            KeepsakeCheckpointStorage open = key == null ? null : OPEN.get(key);
            if (open == null) {
                open = open(configuration);
                if (key != null) {
                    OPEN.put(key, open);
                }
            }
            return open;
        }
    }

    private static Map<String, String> cacheKey(Map<String, String> configuration) {
        try {
            return Map.copyOf(configuration);
        } catch (NullPointerException e) {
            return null; // a null key or value: not cached, refused by the backend with its own message
        }
    }

    private static KeepsakeCheckpointStorage open(Map<String, String> configuration) throws CheckpointStorageException {
        Map<String, String> config = new HashMap<>(configuration);
        String backend = backendFor(config);
        if (backend.equals("hdfs") && "hdfs".equals(config.getOrDefault(StorageOptions.STORAGE_TYPE, "hdfs").trim())
                && config.getOrDefault(DEFAULT_FS, "").trim().toLowerCase(Locale.ROOT).startsWith("file:")) {
            // SeaTunnel's hdfs plugin runs on the local disk with storage.type=hdfs (its default) and fs.defaultFS=file:///;
            // Keepsake's Hadoop backend calls that storage.type local.
            config.put(StorageOptions.STORAGE_TYPE, "local");
        }
        CheckpointStorage storage;
        try {
            io.keepsake.storage.CheckpointStorageFactory factory =
                    CheckpointStorageFactories.find(backend, KeepsakeCheckpointStorageFactory.class.getClassLoader());
            requireExplicitSavepointRoot(backend, factory, config);
            storage = factory.create(config);
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            throw new CheckpointStorageException("Cannot create keepsake checkpoint storage on the " + backend
                    + " backend: " + e.getMessage(), e);
        }
        if (!(storage instanceof SavepointStorage savepoints)) {
            storage.close();
            throw new CheckpointStorageException("Cannot create keepsake checkpoint storage: the " + backend
                    + " backend cannot keep savepoints (" + storage.getClass().getName() + ")");
        }
        LOG.info("Keepsake checkpoint storage on the {} backend: checkpoints under {}, savepoints kept under {}",
                backend, config.get(StorageOptions.NAMESPACE), savepoints.savepointRoot());
        return new KeepsakeCheckpointStorage(storage, savepoints);
    }

    /**
     * With an explicit {@code savepoint.path} and no {@code create-roots}, looks at that root alone
     * without creating anything: a storage is opened with it as the namespace (its savepoint root,
     * {@code <it>/savepoint}, may be missing) and {@code create-roots=false}, and closed again.
     *
     * @throws CheckpointStorageException when the savepoint root does not exist, naming it
     */
    private static void requireExplicitSavepointRoot(String backend, io.keepsake.storage.CheckpointStorageFactory factory,
                                                     Map<String, String> config)
            throws CheckpointStorageException, io.keepsake.storage.CheckpointStorageException {
        String savepointPath = config.get(StorageOptions.SAVEPOINT_PATH);
        if (savepointPath == null || savepointPath.isBlank() || config.containsKey(StorageOptions.CREATE_ROOTS)) {
            return;
        }
        Map<String, String> probe = new HashMap<>(config);
        probe.put(StorageOptions.NAMESPACE, savepointPath);
        probe.remove(StorageOptions.SAVEPOINT_PATH);
        probe.put(StorageOptions.CREATE_ROOTS, "false");
        try {
            factory.create(probe).close();
        } catch (StorageRootNotFoundException e) {
            throw new CheckpointStorageException("Cannot create keepsake checkpoint storage on the " + backend
                    + " backend: " + StorageOptions.SAVEPOINT_PATH + " does not exist, and a mistyped path would keep"
                    + " savepoints where nobody looks; create the directory, or set " + StorageOptions.CREATE_ROOTS
                    + ": true in plugin-config to let Keepsake create it (" + StorageOptions.SAVEPOINT_PATH + "="
                    + savepointPath + ")", e);
        }
    }

    private static String backendFor(Map<String, String> config) throws CheckpointStorageException {
        String type = config.get(StorageOptions.STORAGE_TYPE);
        if (type == null) {
            return config.containsKey(DEFAULT_FS) ? "hdfs" : "localfile";
        }
        String trimmed = type.trim();
        if (LOCAL_TYPES.contains(trimmed)) {
            return "localfile";
        }
        if (HADOOP_TYPES.contains(trimmed)) {
            return "hdfs";
        }
        if (S3_TYPES.contains(trimmed)) {
            return "s3";
        }
        if (AZURE_TYPES.contains(trimmed)) {
            return "azure";
        }
        Set<String> known = new TreeSet<>(LOCAL_TYPES);
        known.addAll(HADOOP_TYPES);
        known.addAll(S3_TYPES);
        known.addAll(AZURE_TYPES);
        throw new CheckpointStorageException("Cannot create keepsake checkpoint storage: " + StorageOptions.STORAGE_TYPE
                + " must be one of " + known + " (" + type + ")");
    }
}
