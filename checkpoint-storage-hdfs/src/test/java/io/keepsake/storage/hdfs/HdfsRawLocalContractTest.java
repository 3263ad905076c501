package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

/** The whole backend contract kit, fault-injection sweep included, on {@code file://} through Hadoop's raw local file system. */
class HdfsRawLocalContractTest extends StorageFaultContractTest {

    @TempDir
    static Path temp;

    @RegisterExtension
    static final RawLocalPerClass local = new RawLocalPerClass();

    private static int directories;

    @Override
    protected StorageFileSystem fileSystem() {
        return local.fs();
    }

    @Override
    protected String newBaseDirectory() {
        try {
            Path dir = Files.createDirectory(temp.resolve("base-" + (++directories)));
            return local.fs().normalizeRoot(dir.toString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
