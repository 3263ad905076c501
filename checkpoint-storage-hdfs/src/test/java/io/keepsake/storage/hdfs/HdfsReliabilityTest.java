package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.StorageConcurrencyContractTest;
import io.keepsake.fixtures.tck.StorageKillContractTest;
import io.keepsake.fixtures.tck.StorageMultiProcessContractTest;
import io.keepsake.fixtures.tck.StorageRegressionContractTest;
import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.fixtures.tck.TreeAccess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The reliability suites (concurrency, multi-process, SIGKILL, issue 8 regressions) on a real
 * in-process HDFS, one cluster for the whole class, opened only through the factory id
 * {@code hdfs}; child JVMs reach the cluster over its NameNode address.
 */
class HdfsReliabilityTest {

    private static MiniHdfs hdfs;
    private static TreeAccess tree;

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

    private static StorageTarget target() {
        return new StorageTarget("hdfs", hdfs.factoryKeys(hdfs.freshDirectory("reliability") + "/ns"));
    }

    private static String root() {
        return hdfs.uri() + "/";
    }

    @Nested
    class Concurrency extends StorageConcurrencyContractTest {
        @Override
        protected StorageTarget freshTarget() {
            return target();
        }

        @Override
        protected TreeAccess tree() {
            return tree;
        }

        @Override
        protected String fileSystemRoot() {
            return root();
        }
    }

    @Nested
    class MultiProcess extends StorageMultiProcessContractTest {
        @Override
        protected StorageTarget freshTarget() {
            return target();
        }

        @Override
        protected TreeAccess tree() {
            return tree;
        }

        @Override
        protected String fileSystemRoot() {
            return root();
        }
    }

    @Nested
    class Kill extends StorageKillContractTest {
        @Override
        protected StorageTarget freshTarget() {
            return target();
        }

        @Override
        protected TreeAccess tree() {
            return tree;
        }

        @Override
        protected String fileSystemRoot() {
            return root();
        }
    }

    @Nested
    class Regressions extends StorageRegressionContractTest {
        @Override
        protected StorageTarget freshTarget() {
            return target();
        }

        @Override
        protected TreeAccess tree() {
            return tree;
        }

        @Override
        protected String fileSystemRoot() {
            return root();
        }
    }
}
