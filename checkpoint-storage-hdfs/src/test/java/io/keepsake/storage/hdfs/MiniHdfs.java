package io.keepsake.storage.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One in-process HDFS (a NameNode and one DataNode) for a test class, with its files under
 * {@code target/minidfs/}. Start it in {@code @BeforeAll} and close it in {@code @AfterAll}.
 */
final class MiniHdfs implements AutoCloseable {

    /**
     * The client's first wait before it asks the NameNode again whether a closed file is complete:
     * 400 ms by default, paid on almost every close; at 5 ms a small file costs about 16 ms here
     * (30 ms at 20 ms).
     */
    static final String FAST_CLOSE_KEY = "dfs.client.block.write.locateFollowingBlock.initial.delay.ms";
    static final String FAST_CLOSE_MS = "5";
    /**
     * How often the client asks again, doubling its wait each time: Hadoop's 5 tries from 5 ms give
     * up after about 155 ms, which a busy machine's DataNode can take to report the block (seen as
     * "Unable to close file because the last block ... does not have enough number of replicas").
     * 13 tries from 5 ms wait up to about 41 s, and only when the DataNode is that late.
     */
    static final String CLOSE_RETRIES_KEY = "dfs.client.block.write.locateFollowingBlock.retries";
    static final String CLOSE_RETRIES = "13";

    private final MiniDFSCluster cluster;
    private final AtomicInteger directories = new AtomicInteger();

    private MiniHdfs(MiniDFSCluster cluster) {
        this.cluster = cluster;
    }

    /** Starts a cluster whose data lives in a fresh folder named after {@code owner}. */
    static MiniHdfs start(Class<?> owner) throws IOException {
        Path base = Files.createDirectories(Path.of("target", "minidfs").toAbsolutePath());
        Path dir = Files.createTempDirectory(base, owner.getSimpleName() + "-");
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.toString());
        conf.set(FAST_CLOSE_KEY, FAST_CLOSE_MS);
        conf.set(CLOSE_RETRIES_KEY, CLOSE_RETRIES);
        conf.setInt("dfs.replication", 1);
        // Let a close complete as soon as the last block is committed, without waiting for the
        // DataNode's block report: a test-speed setting of this NameNode, not of the client under test.
        conf.setInt("dfs.namenode.file.close.num-committed-allowed", 1);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
        cluster.waitActive();
        return new MiniHdfs(cluster);
    }

    /** The NameNode's address, such as {@code hdfs://localhost:40123}. */
    URI uri() {
        return cluster.getURI();
    }

    /** A copy of the client configuration pointing at this cluster. */
    Configuration clientConfiguration() {
        Configuration conf = new Configuration(cluster.getConfiguration(0));
        conf.set("fs.defaultFS", uri().toString());
        return conf;
    }

    /** A new primitive file system on this cluster, as the current user. */
    HdfsFileSystem newFileSystem() throws IOException {
        return new HdfsFileSystem(clientConfiguration());
    }

    /** A superuser Hadoop client of this cluster, for arranging and inspecting files behind the storage's back. */
    FileSystem superuser() throws IOException {
        return cluster.getFileSystem();
    }

    /** A fresh, qualified directory path on this cluster that nothing uses yet. */
    String freshDirectory(String prefix) {
        return uri() + "/" + prefix + "-" + directories.incrementAndGet();
    }

    /** The factory keys that point a storage at this cluster, with the fast-close settings. */
    Map<String, String> factoryKeys(String namespace) {
        return Map.of("namespace", namespace, "storage.type", "hdfs", "fs.defaultFS", uri().toString(),
                "seatunnel.hadoop." + FAST_CLOSE_KEY, FAST_CLOSE_MS, "seatunnel.hadoop." + CLOSE_RETRIES_KEY, CLOSE_RETRIES);
    }

    @Override
    public void close() {
        cluster.shutdown(true);
    }
}
