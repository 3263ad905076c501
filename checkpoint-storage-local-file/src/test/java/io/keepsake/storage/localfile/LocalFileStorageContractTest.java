package io.keepsake.storage.localfile;

import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.storage.spi.StorageFileSystem;

/** The whole contract kit, fault sweep included, on the local disk. */
class LocalFileStorageContractTest extends StorageFaultContractTest {

    private static final LocalFileSystem FS = new LocalFileSystem();

    @Override
    protected StorageFileSystem fileSystem() {
        return FS;
    }
}
