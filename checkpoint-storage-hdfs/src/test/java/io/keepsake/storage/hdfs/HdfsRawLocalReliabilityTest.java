package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.StorageConcurrencyContractTest;
import io.keepsake.fixtures.tck.StorageKillContractTest;
import io.keepsake.fixtures.tck.StorageMultiProcessContractTest;
import io.keepsake.fixtures.tck.StorageRegressionContractTest;
import org.junit.jupiter.api.Nested;

import java.util.Map;
/**
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on the HDFS
 * backend over {@code file://} (Hadoop's raw local file system), opened through the factory id
 * {@code hdfs} with {@code storage.type local}.
 */
class HdfsRawLocalReliabilityTest {
    private static final ReliabilityBackend BACKEND = ReliabilityBackend.onLocalDisk("hdfs", Map.of("storage.type", "local"));
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
