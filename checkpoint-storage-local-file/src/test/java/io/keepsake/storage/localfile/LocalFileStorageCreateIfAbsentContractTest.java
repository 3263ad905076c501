package io.keepsake.storage.localfile;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;

import java.util.EnumSet;
import java.util.Set;

/**
 * The contract kit with the directory-rename capability hidden, so the commit protocol's other
 * publication path ({@code _metadata.ser} created last with create-if-absent, as on object
 * stores) is proven too.
 */
class LocalFileStorageCreateIfAbsentContractTest extends LocalFileStorageContractTest {

    private static final StorageFileSystem WITHOUT_RENAME = new ForwardingFileSystem(new LocalFileSystem()) {
        @Override
        public Set<FsCapability> capabilities() {
            return EnumSet.of(FsCapability.DIRECTORY_SYNC);
        }
    };

    @Override
    protected StorageFileSystem fileSystem() {
        return WITHOUT_RENAME;
    }
}
