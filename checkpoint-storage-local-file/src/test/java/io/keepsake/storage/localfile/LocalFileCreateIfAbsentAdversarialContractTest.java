package io.keepsake.storage.localfile;

import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.tck.StorageAdversarialContractTest;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

/** The adversarial kit on the local disk with the directory-rename capability hidden (link(2) publication). */
class LocalFileCreateIfAbsentAdversarialContractTest extends StorageAdversarialContractTest {

    private static final StorageFileSystem WITHOUT_RENAME = new ForwardingFileSystem(new LocalFileSystem()) {
        @Override
        public Set<FsCapability> capabilities() {
            return EnumSet.of(FsCapability.DIRECTORY_SYNC);
        }
    };

    @TempDir
    Path temp;

    @Override
    protected StorageFileSystem fileSystem() {
        return WITHOUT_RENAME;
    }

    @Override
    protected String newBaseDirectory() {
        return temp.toAbsolutePath().toString();
    }
}
