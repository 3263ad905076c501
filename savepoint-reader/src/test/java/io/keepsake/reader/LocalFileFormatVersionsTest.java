package io.keepsake.reader;

import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.storage.spi.StorageFileSystem;

/**
 * The kit's format versions on the local disk, through the reader registry: run here because the
 * local backend's module cannot depend on the reader registry (this module's tests depend on that
 * backend).
 */
class LocalFileFormatVersionsTest extends FormatVersionsThroughTheRegistry {

    private static final LocalFileSystem FS = new LocalFileSystem();

    @Override
    protected StorageFileSystem fileSystem() {
        return FS;
    }
}
