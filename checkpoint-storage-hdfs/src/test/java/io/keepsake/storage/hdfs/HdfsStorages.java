package io.keepsake.storage.hdfs;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.internal.ComposedStorage;
import org.apache.hadoop.conf.Configuration;

/** Test access to what a factory-made HDFS storage runs on. */
final class HdfsStorages {

    private HdfsStorages() {
    }

    /** The HDFS file system under a storage the factory made. */
    static HdfsFileSystem fileSystem(KeepsakeStorage storage) {
        return (HdfsFileSystem) ((ComposedStorage) storage).fileSystem();
    }

    /** A copy of the Hadoop configuration a storage the factory made was opened with. */
    static Configuration hadoopConfiguration(KeepsakeStorage storage) {
        return fileSystem(storage).hadoopConfiguration();
    }
}
