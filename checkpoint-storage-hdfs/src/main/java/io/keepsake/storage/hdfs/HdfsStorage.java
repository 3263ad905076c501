package io.keepsake.storage.hdfs;

import io.keepsake.storage.spi.FileSystemStorage;
import io.keepsake.storage.spi.StorageFileSystem;
import org.apache.hadoop.conf.Configuration;

/**
 * Checkpoints and savepoints on a Hadoop file system (factory id {@code hdfs}): both SPIs of
 * {@link FileSystemStorage} over {@link HdfsFileSystem}. On HDFS, payloads are hsynced and a
 * savepoint is published by one atomic NameNode rename that never replaces an existing one; on
 * file systems without that rename, {@code _metadata.ser} is created last with create-if-absent.
 * Closing the storage closes its own Hadoop file system instance and nothing shared. Thread-safe.
 */
public class HdfsStorage extends FileSystemStorage {

    private final Configuration configuration;

    /** A storage rooted at {@code namespace}, savepoints in {@code savepointRoot} (null for the default). */
    public HdfsStorage(HdfsFileSystem fs, String namespace, String savepointRoot) {
        this(fs, namespace, savepointRoot, 0);
    }

    /** A storage that keeps at most {@code periodicMaxRetained} periodic savepoints per job (0 keeps all). */
    public HdfsStorage(HdfsFileSystem fs, String namespace, String savepointRoot, int periodicMaxRetained) {
        this(fs, fs.hadoopConfiguration(), namespace, savepointRoot, periodicMaxRetained);
    }

    /**
     * A storage over other primitives (a fault injector wrapping an {@link HdfsFileSystem}, in
     * tests), reporting {@code configuration} as its Hadoop configuration.
     */
    public HdfsStorage(StorageFileSystem fs, Configuration configuration, String namespace, String savepointRoot,
                       int periodicMaxRetained) {
        super(fs, namespace, savepointRoot, periodicMaxRetained);
        this.configuration = new Configuration(configuration);
    }

    /** A copy of the Hadoop configuration this storage's file system was opened with. */
    public Configuration hadoopConfiguration() {
        return new Configuration(configuration);
    }
}
