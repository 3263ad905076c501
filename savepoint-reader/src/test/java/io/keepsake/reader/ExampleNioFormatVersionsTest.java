package io.keepsake.reader;

import io.keepsake.fixtures.example.ExampleNioFileSystem;
import io.keepsake.storage.spi.StorageFileSystem;

/** The kit's format versions on the example backend, through the reader registry. */
class ExampleNioFormatVersionsTest extends FormatVersionsThroughTheRegistry {

    private static final ExampleNioFileSystem FS = new ExampleNioFileSystem();

    @Override
    protected StorageFileSystem fileSystem() {
        return FS;
    }
}
