package io.keepsake.storage.azure;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.tck.FormatVersionsContractTest;
import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

/**
 * The whole backend contract kit, fault-injection sweep included, on Azurite, and both savepoint
 * format versions through the reader registry on the same server.
 */
class AzureContractTest extends StorageFaultContractTest {

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    /**
     * Every third primitive operation: each one is an HTTP request here, so the full sweep of
     * three modes would take minutes; the protocol's own sweep at stride 1 runs on the in-memory
     * file system without rename.
     */
    @Override
    protected int faultSweepStride() {
        return 3;
    }

    @Override
    protected StorageFileSystem fileSystem() {
        return azurite.fs();
    }

    @Override
    protected String newBaseDirectory() {
        return azurite.fs().normalizeRoot(AzuritePerTestClass.freshDirectory("tck"));
    }

    /** Format versions 1 and 2 written into one root on this server, read through the reader registry. */
    @Nested
    class FormatVersions extends FormatVersionsContractTest {

        @Override
        protected StorageFileSystem fileSystem() {
            return azurite.fs();
        }

        @Override
        protected String newBaseDirectory() {
            return azurite.fs().normalizeRoot(AzuritePerTestClass.freshDirectory("versions"));
        }

        @Override
        protected Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle) {
            return SavepointReaderRegistry.standard().read(storage, handle);
        }
    }
}
