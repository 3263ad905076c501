package io.keepsake.storage.s3;

import io.keepsake.fixtures.tck.FormatVersionsOnFileSystem;
import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole backend contract kit, fault-injection sweep included, on an in-process S3Proxy, and
 * both savepoint format versions through the reader registry on the same server.
 */
class S3ContractTest extends StorageFaultContractTest {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    /**
     * Every third primitive operation: each one is an HTTP request here, so the full sweep of
     * three modes would take minutes; the protocol's own sweep at stride 1 runs on the in-memory
     * file system without rename, and S3HttpFaultTest spoils every request of the same scenario.
     */
    @Override
    protected int faultSweepStride() {
        return 3;
    }

    @Override
    protected StorageFileSystem fileSystem() {
        return server.fs();
    }

    @Override
    protected String newBaseDirectory() {
        return server.fs().normalizeRoot(S3ProxyServer.freshDirectory("tck"));
    }

    /** Format versions 1 and 2 written into one root on this server, read through the reader registry. */
    @Nested
    class FormatVersions extends FormatVersionsOnFileSystem {
        FormatVersions() {
            super(server.fs(), () -> server.fs().normalizeRoot(S3ProxyServer.freshDirectory("versions")),
                    SavepointReaderRegistry.standard()::read);
        }
    }
}
