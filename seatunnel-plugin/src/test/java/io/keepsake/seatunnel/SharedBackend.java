package io.keepsake.seatunnel;

import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The storage the members of an {@link EngineCluster} share, for the cluster tests: a local
 * directory, an HDFS mini cluster ({@link MiniHdfsProcess}), S3 ({@link S3ProxyProcess}), each in
 * its own child JVM where it has one, or Azure Blob Storage (Azurite, a Node.js process started by
 * {@link AzuriteServer}). It gives the plugin-config every member gets and reads what the
 * members stored through Keepsake's own backend (as {@code keepsake list} would), never through the
 * plugin under test.
 */
final class SharedBackend implements AutoCloseable {

    private final String name;
    private final String backend;
    private final Map<String, String> pluginConfig;
    private final AutoCloseable server;
    private KeepsakeStorage view;

    private SharedBackend(String name, String backend, Map<String, String> pluginConfig, AutoCloseable server) {
        this.name = name;
        this.backend = backend;
        this.pluginConfig = Map.copyOf(pluginConfig);
        this.server = server;
    }

    /** Starts the storage {@code name} ({@code localfile}, {@code hdfs}, {@code s3} or {@code azure}) with a fresh namespace. */
    static SharedBackend start(String name, Path dir) throws Exception {
        String unique = "ns-" + UUID.randomUUID();
        switch (name) {
            case "localfile" -> {
                return new SharedBackend(name, "localfile", Map.of("namespace", dir.resolve(unique).toString()), null);
            }
            case "hdfs" -> {
                MiniHdfsProcess hdfs = MiniHdfsProcess.start();
                return new SharedBackend(name, "hdfs", hdfs.pluginConfig("/" + unique), hdfs);
            }
            case "s3" -> {
                S3ProxyProcess s3 = S3ProxyProcess.start();
                Map<String, String> config = Map.of("storage.type", "s3", "namespace", "s3a://" + s3.bucket() + "/" + unique,
                        "fs.s3a.endpoint", s3.endpoint().toString(), "fs.s3a.path.style.access", "true",
                        "fs.s3a.endpoint.region", "us-east-1", "fs.s3a.access.key", s3.accessKey(),
                        "fs.s3a.secret.key", s3.secretKey(),
                        "fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
                return new SharedBackend(name, "s3", config, s3);
            }
            case "azure" -> {
                AzuriteServer azurite = AzuriteServer.start();
                try {
                    String container = AzuriteServer.freshContainerName("cluster");
                    azurite.createContainer(container);
                    return new SharedBackend(name, "azure", azurite.factoryKeys("azure://" + container + "/" + unique),
                            azurite);
                } catch (Exception e) {
                    azurite.close();
                    throw e;
                }
            }
            default -> throw new IllegalArgumentException("Cannot start shared backend: unknown name (" + name + ")");
        }
    }

    /** The plugin-config every member gets. */
    Map<String, String> pluginConfig() {
        return pluginConfig;
    }

    /** The same plugin-config with more keys. */
    Map<String, String> pluginConfig(Map<String, String> more) {
        Map<String, String> all = new java.util.HashMap<>(pluginConfig);
        all.putAll(more);
        return Map.copyOf(all);
    }

    /** The highest checkpoint id of one pipeline in the job's checkpoint files, by file name; -1 when none. */
    long maxCheckpointId(long jobId, int pipelineId) {
        return newestCheckpointIds(jobId).getOrDefault(pipelineId, -1L);
    }

    /** Each pipeline's highest checkpoint id in the job's checkpoint files, found by file name (nothing is read). */
    Map<Integer, Long> newestCheckpointIds(long jobId) {
        Map<Integer, Long> newest = new TreeMap<>();
        for (CheckpointFile f : files(jobId)) {
            newest.merge(f.pipelineId(), f.checkpointId(), Math::max);
        }
        return newest;
    }

    /** One checkpoint file of the job, read and decoded as Keepsake reads it. */
    PipelineState checkpoint(long jobId, int pipelineId, long checkpointId) {
        try {
            return view().getCheckpoint(Long.toString(jobId), Integer.toString(pipelineId), Long.toString(checkpointId));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot read checkpoint " + checkpointId + " of job " + jobId + " pipeline "
                    + pipelineId + " on " + name, e);
        }
    }

    /**
     * Waits until each pipeline in {@code after} has a checkpoint file with a higher id than the one
     * given, and reads each pipeline's lowest such file as soon as it is listed (before the engine's
     * retention can remove it). Returns the states by pipeline.
     */
    Map<Integer, PipelineState> awaitFirstCheckpointsAfter(long jobId, Map<Integer, Long> after, Duration timeout) {
        Map<Integer, PipelineState> first = new TreeMap<>();
        EmbeddedEngine.await("a checkpoint of each pipeline of job " + jobId + " after " + after, timeout, () -> {
            List<CheckpointFile> files = files(jobId);
            for (Map.Entry<Integer, Long> e : after.entrySet()) {
                if (!first.containsKey(e.getKey())) {
                    files.stream().filter(f -> f.pipelineId() == e.getKey() && f.checkpointId() > e.getValue())
                            .mapToLong(CheckpointFile::checkpointId).min()
                            .ifPresent(id -> first.put(e.getKey(), checkpoint(jobId, e.getKey(), id)));
                }
            }
            return first.keySet().containsAll(after.keySet());
        });
        return first;
    }

    private List<CheckpointFile> files(long jobId) {
        try {
            return view().checkpointFiles(Long.toString(jobId));
        } catch (Exception e) {
            throw new IllegalStateException("Cannot list the checkpoint files of job " + jobId + " on " + name, e);
        }
    }

    /** One storage on the namespace for this class's reads, opened at the first and closed with the backend. */
    private synchronized KeepsakeStorage view() throws Exception {
        if (view == null) {
            view = (KeepsakeStorage) open();
        }
        return view;
    }

    /** The namespace's directory when the members share a local directory; empty on the other backends. */
    java.util.Optional<Path> localNamespace() {
        return backend.equals("localfile") ? java.util.Optional.of(Path.of(pluginConfig.get("namespace")))
                : java.util.Optional.empty();
    }

    /** What {@code keepsake list/verify} sees of this storage. */
    Savepoints savepoints() {
        return new Savepoints(backend, pluginConfig);
    }

    /** A Keepsake storage on the shared namespace, as the operator tool opens it. */
    CheckpointStorage open() throws Exception {
        return open(Map.of());
    }

    /**
     * The same with more keys, as {@code keepsake --config} reads the members' plugin-config (a gc
     * must judge leases by the members' {@code savepoint.lease-timeout-ms}).
     */
    CheckpointStorage open(Map<String, String> more) throws Exception {
        return CheckpointStorageFactories.find(backend).create(pluginConfig(more));
    }

    @Override
    public String toString() {
        return name;
    }

    @Override
    public void close() throws Exception {
        try {
            synchronized (this) {
                if (view != null) {
                    view.close();
                }
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }
}
