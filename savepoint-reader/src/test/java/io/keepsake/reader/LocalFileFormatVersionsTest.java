package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.tck.FormatVersionsContractTest;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

/**
 * The kit's format versions on the local disk, run here because the local backend's module cannot
 * depend on the reader registry (this module's tests depend on that backend).
 */
class LocalFileFormatVersionsTest extends FormatVersionsContractTest {

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

    @Override
    protected Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle) {
        return SavepointReaderRegistry.standard().read(storage, handle);
    }
}
