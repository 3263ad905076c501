package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.example.ExampleNioFileSystem;
import io.keepsake.fixtures.tck.FormatVersionsContractTest;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

/**
 * The kit's format versions on the example backend: the one kit suite that needs the reader
 * registry, so it runs here, where {@code savepoint-reader} is on the class path.
 */
class ExampleNioFormatVersionsTest extends FormatVersionsContractTest {

    private static final ExampleNioFileSystem FS = new ExampleNioFileSystem();

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
