package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;

import java.util.List;
import java.util.Map;

/**
 * Format version 1 (Keepsake 0.1.0, the first bundle format): {@code _metadata.ser} with a
 * manifest, one {@code engine-wire-v1} payload per pipeline, each with one SHA-256. Payloads are
 * streamed: decoded while their bytes are hashed (on another core for large payloads), never held
 * whole as one array, and the checkpoint's pipeline and checkpoint ids must match the manifest.
 * Not API: reached through {@link SavepointReaderRegistry}.
 */
final class V1SavepointReader implements SavepointFormatReader {

    private final WirePayloads payloads = new WirePayloads(1);

    @Override
    public int formatVersion() {
        return 1;
    }

    @Override
    public Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle) {
        return payloads.read(storage, handle);
    }

    @Override
    public List<Integer> check(SavepointStorage storage, SavepointHandle handle) {
        return payloads.check(storage, handle);
    }
}
