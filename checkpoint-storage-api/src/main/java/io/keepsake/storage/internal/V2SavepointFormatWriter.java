package io.keepsake.storage.internal;

/**
 * Format version 2: each payload is hashed in chunks of a fixed size as it is written, its entry
 * records the chunk size, the chunk digests and the digest derived from them, and the metadata
 * body carries them (entry tags 6 and 7).
 */
final class V2SavepointFormatWriter implements SavepointFormatWriter {

    static final int VERSION = 2;

    private final int chunkSize;

    V2SavepointFormatWriter(int chunkSize) {
        this.chunkSize = chunkSize;
    }

    @Override
    public int formatVersion() {
        return VERSION;
    }

    @Override
    public PayloadDigest newPayloadDigest() {
        return new ChunkedDigest(chunkSize);
    }

    @Override
    public MetadataBodyCodec metadataBody() {
        return MetadataBodyV2.INSTANCE;
    }
}
