package io.keepsake.storage.localfile;

import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The whole contract kit, fault sweep included, on the local disk. */
class LocalFileStorageContractTest extends StorageFaultContractTest {

    private static final LocalFileSystem FS = new LocalFileSystem();

    @TempDir
    Path temp;

    @Override
    protected StorageFileSystem fileSystem() {
        return FS;
    }

    @Override
    protected String newBaseDirectory() {
        return temp.toAbsolutePath().toString();
    }
}
