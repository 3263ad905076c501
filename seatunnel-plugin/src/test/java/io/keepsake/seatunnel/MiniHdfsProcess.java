package io.keepsake.seatunnel;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * An HDFS mini cluster (a NameNode and one DataNode, Hadoop 3.4) for this module's tests, started in a
 * child JVM by the HDFS backend's test main ({@code io.keepsake.storage.hdfs.MiniHdfsMain}), so that
 * Hadoop's server side stays off this module's class path, which holds the engine's Hadoop 3.1.4
 * client ({@link ModuleServerProcess}).
 *
 * @param server the child JVM
 * @param uri    the NameNode's address
 */
record MiniHdfsProcess(ModuleServerProcess server, URI uri) implements AutoCloseable {

    /** Starts the child and waits for the line that names its NameNode. */
    static MiniHdfsProcess start() throws IOException {
        ModuleServerProcess server = ModuleServerProcess.start("checkpoint-storage-hdfs", "minihdfs-classpath.txt",
                "io.keepsake.storage.hdfs.MiniHdfsMain", "NAMENODE ", List.of("-Xmx512m"));
        return new MiniHdfsProcess(server, URI.create(server.readyWords()[0]));
    }

    /**
     * The plugin-config that points the Keepsake plugin at this cluster, with the HDFS module's
     * fast-close client settings (see its {@code MiniHdfs}).
     */
    Map<String, String> pluginConfig(String namespace) {
        return Map.of("namespace", namespace, "storage.type", "hdfs", "fs.defaultFS", uri.toString(),
                "seatunnel.hadoop.dfs.client.block.write.locateFollowingBlock.initial.delay.ms", "5",
                "seatunnel.hadoop.dfs.client.block.write.locateFollowingBlock.retries", "13");
    }

    @Override
    public void close() throws InterruptedException {
        server.close();
    }
}
