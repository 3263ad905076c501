package io.keepsake.storage.hdfs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;

/**
 * One in-process {@link MiniHdfs} cluster for a test class, registered as
 * {@code @RegisterExtension static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();}: started
 * before the class's first test (and before its own {@code @BeforeAll} methods), its data in a folder
 * named after the class, and shut down after its last test with the shared file system it handed
 * out. Nested classes use their enclosing class's cluster.
 */
final class MiniHdfsPerClass implements BeforeAllCallback, AfterAllCallback {

    private MiniHdfs cluster;
    private String owner;
    private HdfsFileSystem fileSystem;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (cluster == null) {
            cluster = MiniHdfs.start(context.getRequiredTestClass());
            owner = context.getUniqueId();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (!context.getUniqueId().equals(owner)) {
            return;
        }
        try (MiniHdfs c = cluster; HdfsFileSystem f = fileSystem) {
            cluster = null;
            fileSystem = null;
            owner = null;
        }
    }

    private MiniHdfs running() {
        if (cluster == null) {
            throw new IllegalStateException("The HDFS cluster runs only while its test class runs");
        }
        return cluster;
    }

    /** One file system on the cluster for the whole class, closed after it; storages opened on it never close it. */
    HdfsFileSystem fs() {
        if (fileSystem == null) {
            try {
                fileSystem = running().newFileSystem();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot open a file system on " + running().uri(), e);
            }
        }
        return fileSystem;
    }

    /** See {@link MiniHdfs#uri()}. */
    URI uri() {
        return running().uri();
    }

    /** See {@link MiniHdfs#clientConfiguration()}. */
    Configuration clientConfiguration() {
        return running().clientConfiguration();
    }

    /** A new file system on the cluster, which the caller closes. */
    HdfsFileSystem newFileSystem() throws IOException {
        return running().newFileSystem();
    }

    /** See {@link MiniHdfs#superuser()}. */
    FileSystem superuser() throws IOException {
        return running().superuser();
    }

    /** See {@link MiniHdfs#freshDirectory(String)}. */
    String freshDirectory(String prefix) {
        return running().freshDirectory(prefix);
    }

    /** See {@link MiniHdfs#factoryKeys(String)}. */
    Map<String, String> factoryKeys(String namespace) {
        return running().factoryKeys(namespace);
    }
}
