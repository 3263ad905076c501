package io.keepsake.seatunnel;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An HDFS mini cluster (a NameNode and one DataNode, Hadoop 3.4) for this module's tests, started in a
 * child JVM by the HDFS backend's test main ({@code io.keepsake.storage.hdfs.MiniHdfsMain}), so that
 * Hadoop's server side stays off this module's class path, which holds the engine's Hadoop 3.1.4
 * client. The child's class path is the one the HDFS module's build wrote
 * ({@code checkpoint-storage-hdfs/target/minihdfs-classpath.txt}) with that module's test and main
 * classes; it serves until {@link #close()} ends its standard input.
 */
final class MiniHdfsProcess implements AutoCloseable {

    private static final Path HDFS_MODULE = Path.of("..", "checkpoint-storage-hdfs");

    private final Process process;
    private final URI uri;

    private MiniHdfsProcess(Process process, URI uri) {
        this.process = process;
        this.uri = uri;
    }

    /** Starts the child and waits for the line that names its NameNode. */
    static MiniHdfsProcess start() throws IOException {
        Path target = HDFS_MODULE.resolve("target");
        Path listed = target.resolve("minihdfs-classpath.txt");
        if (!Files.isRegularFile(listed)) {
            throw new IllegalStateException("No " + listed.toAbsolutePath() + ": build checkpoint-storage-hdfs first"
                    + " (its generate-test-resources phase writes it)");
        }
        String classPath = String.join(File.pathSeparator, target.resolve("test-classes").toAbsolutePath().toString(),
                target.resolve("classes").toAbsolutePath().toString(), Files.readString(listed, StandardCharsets.UTF_8).trim());
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", classPath, "io.keepsake.storage.hdfs.MiniHdfsMain")
                .directory(HDFS_MODULE.toFile())
                .redirectError(target.resolve("minihdfs-child.err").toFile())
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("NAMENODE ")) {
            // Hadoop's own start-up lines, if any, come before ours.
        }
        if (line == null) {
            p.destroyForcibly();
            throw new IllegalStateException("The mini HDFS child JVM ended before naming its NameNode; see "
                    + target.resolve("minihdfs-child.err").toAbsolutePath());
        }
        return new MiniHdfsProcess(p, URI.create(line.substring("NAMENODE ".length()).trim()));
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
    public void close() throws Exception {
        process.getOutputStream().close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
