package io.keepsake.storage.s3;

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
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on an
 * in-process S3Proxy, one server for the whole class, opened only through the factory id
 * {@code s3} with SeaTunnel's keys; child JVMs reach the server over HTTP with the same keys.
 */
class S3ReliabilityTest {

    private static S3ProxyServer server;
    private static S3FileSystem treeFs;
    private static TreeAccess tree;

    private static final ReliabilityBackend BACKEND = new ReliabilityBackend() {
        @Override
        public StorageTarget freshTarget(Path scratch) {
            String dir = S3ProxyServer.freshDirectory("reliability");
            return new StorageTarget("s3", server.factoryKeys(
                    dir.substring((S3Path.SCHEME + S3ProxyServer.BUCKET).length()) + "/ns"));
        }

        @Override
        public TreeAccess tree() {
            return tree;
        }

        @Override
        public String fileSystemRoot() {
            return S3Path.SCHEME + S3ProxyServer.BUCKET + "/";
        }
    };

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.start();
        treeFs = server.newFileSystem();
        tree = new S3TreeAccess(treeFs);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (treeFs != null) {
            treeFs.close();
        }
        if (server != null) {
            server.close();
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
