package io.keepsake.reader;

/**
 * Format version 1 (Keepsake 0.1.0, the first bundle format): {@code _metadata.ser} with a
 * manifest, one {@code engine-wire-v1} payload per pipeline, each with one SHA-256. Payloads are
 * streamed: decoded while their bytes are hashed (on another core for large payloads), never held
 * whole as one array, and the checkpoint's pipeline and checkpoint ids must match the manifest.
 * Not API: reached through {@link SavepointReaderRegistry}.
 */
final class V1SavepointReader extends WirePayloadReader {

    V1SavepointReader() {
        super(1);
    }
}
