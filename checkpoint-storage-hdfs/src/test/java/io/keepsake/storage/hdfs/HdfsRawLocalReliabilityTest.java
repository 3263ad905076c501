package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.LocalTreeAccess;
import io.keepsake.fixtures.tck.StorageConcurrencyContractTest;
import io.keepsake.fixtures.tck.StorageKillContractTest;
import io.keepsake.fixtures.tck.StorageMultiProcessContractTest;
import io.keepsake.fixtures.tck.StorageRegressionContractTest;
import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.fixtures.tck.TreeAccess;
import org.junit.jupiter.api.Nested;

import java.nio.file.Path;
import java.util.Map;

/**
 * The reliability suites (concurrency, multi-process, SIGKILL, issue 8 regressions) on the HDFS
 * backend over {@code file://} (Hadoop's raw local file system), opened through the factory id
 * {@code hdfs} with {@code storage.type local}.
 */
class HdfsRawLocalReliabilityTest {

    private static final TreeAccess TREE = new LocalTreeAccess();

    private static StorageTarget target(Path scratch) {
        return new StorageTarget("hdfs", Map.of("namespace", scratch.resolve("root").resolve("ns").toString(),
                "storage.type", "local"));
    }

    @Nested
    class Concurrency extends StorageConcurrencyContractTest {
        @Override
        protected StorageTarget freshTarget() {
            return target(scratch);
        }

        @Override
        protected TreeAccess tree() {
            return TREE;
        }
    }

    @Nested
    class MultiProcess extends StorageMultiProcessContractTest {
        @Override
        protected StorageTarget freshTarget() {
            return target(scratch);
        }

        @Override
        protected TreeAccess tree() {
            return TREE;
        }
    }

    @Nested
    class Kill extends StorageKillContractTest {
        @Override
        protected StorageTarget freshTarget() {
            return target(scratch);
        }

        @Override
        protected TreeAccess tree() {
            return TREE;
        }
    }

    @Nested
    class Regressions extends StorageRegressionContractTest {
        @Override
        protected StorageTarget freshTarget() {
            return target(scratch);
        }

        @Override
        protected TreeAccess tree() {
            return TREE;
        }
    }
}
