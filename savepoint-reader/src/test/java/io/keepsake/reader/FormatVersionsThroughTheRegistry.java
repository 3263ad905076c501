package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.tck.FormatVersionsContractTest;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;

import java.util.Map;

/**
 * The kit's format versions, read through the standard reader registry, on a backend whose paths are
 * local paths (the kit's default fresh directory per test). The kit suite needs the registry, so the
 * local backends run it here, where {@code savepoint-reader} is on the class path; a subclass names
 * the file system.
 */
abstract class FormatVersionsThroughTheRegistry extends FormatVersionsContractTest {

    @Override
    protected Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle) {
        return SavepointReaderRegistry.standard().read(storage, handle);
    }
}
