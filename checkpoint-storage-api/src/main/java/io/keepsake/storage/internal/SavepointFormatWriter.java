package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointRequest;

import java.util.List;

/**
 * Writes the savepoints of one format version: the digest each payload's manifest entry records,
 * and the metadata naming the payloads, encoded with the version's metadata body. One
 * implementation per version ({@link V1SavepointFormatWriter}, {@link V2SavepointFormatWriter}),
 * chosen by the configured version ({@code savepoint.format-version}, {@link FormatSettings}), as
 * the reader registry holds one reader per version. The staged writer uses it for everything that
 * depends on the version and decides nothing about versions itself. Immutable and thread-safe.
 */
interface SavepointFormatWriter {

    /**
     * The writer of {@code version}, whose payloads are hashed in chunks of {@code chunkSize} bytes
     * where the version has chunks.
     *
     * @throws IllegalArgumentException when this build has no writer of {@code version}
     */
    static SavepointFormatWriter forVersion(int version, int chunkSize) {
        return switch (version) {
            case V1SavepointFormatWriter.VERSION -> V1SavepointFormatWriter.INSTANCE;
            case V2SavepointFormatWriter.VERSION -> new V2SavepointFormatWriter(chunkSize);
            default -> throw new IllegalArgumentException("Cannot write savepoint format version " + version);
        };
    }

    /** The format version this writer writes. */
    int formatVersion();

    /** A new digest for one payload, fed its bytes as they are written. */
    PayloadDigest newPayloadDigest();

    /** The metadata of a savepoint of this version whose payloads are {@code manifest}. */
    default SavepointMeta metadata(SavepointRequest request, long completedTimestamp, List<ManifestEntry> manifest) {
        return new SavepointMeta(formatVersion(), request.savepointId(), request.jobId(), request.kind(),
                request.producerVersion(), request.triggerTimestamp(), completedTimestamp, request.payloadFormat(),
                manifest, request.properties());
    }

    /** The metadata body of this version. */
    MetadataBodyCodec metadataBody();

    /**
     * The bytes of {@code _metadata.ser} for {@code meta}, which {@link #metadata} made.
     *
     * @throws IllegalArgumentException when {@code meta} is of another format version
     * @throws InvalidStorageArgumentException when the metadata would be larger than a reader accepts
     */
    default byte[] encodeMetadata(SavepointMeta meta) {
        if (meta.formatVersion() != formatVersion()) {
            throw new IllegalArgumentException("Cannot encode metadata of savepoint " + meta.savepointId() + " of job "
                    + meta.jobId() + " in format version " + meta.formatVersion() + " with the writer of version "
                    + formatVersion());
        }
        return MetadataCodec.encode(meta, metadataBody());
    }
}
