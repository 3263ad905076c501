package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.StorageConcurrencyContractTest;
import io.keepsake.fixtures.tck.StorageKillContractTest;
import io.keepsake.fixtures.tck.StorageMultiProcessContractTest;
import io.keepsake.fixtures.tck.StorageRegressionContractTest;
import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.fixtures.tck.TreeAccess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

import java.nio.file.Path;
/**
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on a real
 * in-process HDFS, one cluster for the whole class, opened only through the factory id
 * {@code hdfs}; child JVMs reach the cluster over its NameNode address.
 */
class HdfsReliabilityTest {
    private static MiniHdfs hdfs;
    private static TreeAccess tree;

    private static final ReliabilityBackend BACKEND = new ReliabilityBackend() {
        @Override
        public StorageTarget freshTarget(Path scratch) {
            return new StorageTarget("hdfs", hdfs.factoryKeys(hdfs.freshDirectory("reliability") + "/ns"));
        }

        @Override
        public TreeAccess tree() {
            return tree;
        }

        @Override
        public String fileSystemRoot() {
            return hdfs.uri() + "/";
        }
    };

    @BeforeAll
    static void startCluster() throws Exception {
        hdfs = MiniHdfs.start(HdfsReliabilityTest.class);
        tree = new HadoopTreeAccess(hdfs.superuser());
    }

    @AfterAll
    static void stopCluster() {
        if (hdfs != null) {
            hdfs.close();
        }
    }
    @Nested
    class Concurrency extends StorageConcurrencyContractTest {
        @Override
        protected ReliabilityBackend backend() {
            return BACKEND;
        }
    }

    @Nested
    class MultiProcess extends StorageMultiProcessContractTest {
        @Override
        protected ReliabilityBackend backend() {
            return BACKEND;
        }
    }

    @Nested
    class Kill extends StorageKillContractTest {
        @Override
        protected ReliabilityBackend backend() {
            return BACKEND;
        }
    }

    @Nested
    class Regressions extends StorageRegressionContractTest {
        @Override
        protected ReliabilityBackend backend() {
            return BACKEND;
        }
    }
}
