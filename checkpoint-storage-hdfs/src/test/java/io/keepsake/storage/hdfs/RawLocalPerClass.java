package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.PerClassResource;
import org.apache.hadoop.conf.Configuration;

/**
 * One {@code file://} file system through Hadoop's raw local file system for a test class:
 * {@code @RegisterExtension static final RawLocalPerClass local = new RawLocalPerClass();} opens it
 * before the class and closes it after.
 */
final class RawLocalPerClass extends PerClassResource<HdfsFileSystem> {

    @Override
    protected HdfsFileSystem start(Class<?> testClass) throws Exception {
        Configuration conf = new Configuration();
        conf.set("fs.defaultFS", "file:///");
        return new HdfsFileSystem(conf);
    }

    /** The file system; storages opened on it never close it. */
    HdfsFileSystem fs() {
        return running();
    }
}
