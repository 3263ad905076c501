package io.keepsake.storage.s3;

import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The whole backend contract kit, fault-injection sweep included, on an in-process S3Proxy. */
class S3ContractTest extends StorageFaultContractTest {

    private static S3ProxyServer server;
    private static S3FileSystem fs;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.start();
        fs = server.newFileSystem();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (fs != null) {
            fs.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected StorageFileSystem fileSystem() {
        return fs;
    }

    @Override
    protected String newBaseDirectory() {
        return fs.normalizeRoot(S3ProxyServer.freshDirectory("tck"));
    }
}
