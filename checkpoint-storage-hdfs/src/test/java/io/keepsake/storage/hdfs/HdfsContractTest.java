package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole backend contract kit, fault-injection sweep included, on a real (in-process) HDFS. */
class HdfsContractTest extends StorageFaultContractTest {

    private static MiniHdfs hdfs;
    private static HdfsFileSystem fs;

    @BeforeAll
    static void startCluster() throws Exception {
        hdfs = MiniHdfs.start(HdfsContractTest.class);
        fs = hdfs.newFileSystem();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (fs != null) {
            fs.close();
        }
        if (hdfs != null) {
            hdfs.close();
        }
    }

    @Override
    protected StorageFileSystem fileSystem() {
        return fs;
    }

    @Override
    protected String newBaseDirectory() {
        return fs.normalizeRoot(hdfs.freshDirectory("/tck"));
    }
}
