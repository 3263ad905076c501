package io.keepsake.storage.localfile;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.storage.spi.FileSystemStorage;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

/**
 * The contract kit with the directory-rename capability hidden, so the commit protocol's other
 * publication path ({@code _metadata.ser} created last with create-if-absent, as on object
 * stores) is proven too.
 */
class LocalFileStorageCreateIfAbsentContractTest extends StorageFaultContractTest {

    private static final StorageFileSystem FS = new ForwardingFileSystem(new LocalFileSystem()) {
        @Override
        public Set<FsCapability> capabilities() {
            return EnumSet.of(FsCapability.DIRECTORY_SYNC);
        }
    };

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

    @Override
    protected FileSystemStorage open(StorageFileSystem fs, String namespace, String savepointRoot) {
        return new LocalFileStorage(fs, namespace, savepointRoot);
    }
}
