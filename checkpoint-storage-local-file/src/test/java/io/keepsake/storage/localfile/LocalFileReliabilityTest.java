package io.keepsake.storage.localfile;

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
 * The reliability suites (concurrency, multi-process, SIGKILL, issue 8 regressions) on the local
 * backend, opened only through its factory id {@code localfile}.
 */
class LocalFileReliabilityTest {

    private static final TreeAccess TREE = new LocalTreeAccess();

    private static StorageTarget target(Path scratch) {
        return new StorageTarget("localfile", Map.of("namespace", scratch.resolve("root").resolve("ns").toString()));
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
