package io.keepsake.storage.localfile;

import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.StorageConcurrencyContractTest;
import io.keepsake.fixtures.tck.StorageKillContractTest;
import io.keepsake.fixtures.tck.StorageMultiProcessContractTest;
import io.keepsake.fixtures.tck.StorageRegressionContractTest;
import org.junit.jupiter.api.Nested;

import java.util.Map;
/**
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on the local
 * backend, opened only through its factory id {@code localfile}.
 */
class LocalFileReliabilityTest {
    private static final ReliabilityBackend BACKEND = ReliabilityBackend.onLocalDisk("localfile", Map.of());
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
