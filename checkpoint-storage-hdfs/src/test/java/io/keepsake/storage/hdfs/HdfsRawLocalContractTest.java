package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.storage.spi.StorageFileSystem;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

/** The whole backend contract kit, fault-injection sweep included, on {@code file://} through Hadoop's raw local file system. */
class HdfsRawLocalContractTest extends StorageFaultContractTest {

    @TempDir
    static Path temp;

    private static HdfsFileSystem fs;
    private static int directories;

    @BeforeAll
    static void openFileSystem() throws Exception {
        Configuration conf = new Configuration();
        conf.set("fs.defaultFS", "file:///");
        fs = new HdfsFileSystem(conf);
    }

    @AfterAll
    static void closeFileSystem() throws Exception {
        if (fs != null) {
            fs.close();
        }
    }

    @Override
    protected StorageFileSystem fileSystem() {
        return fs;
    }

    @Override
    protected String newBaseDirectory() {
        try {
            Path dir = Files.createDirectory(temp.resolve("base-" + (++directories)));
            return fs.normalizeRoot(dir.toString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
