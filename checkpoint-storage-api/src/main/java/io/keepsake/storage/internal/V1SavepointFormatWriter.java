package io.keepsake.storage.internal;

/**
 * Format version 1, written only when configured (a rollback to a build that reads only version
 * 1): each payload's entry records the plain SHA-256 of the file, and the metadata body has no
 * chunk digests.
 */
final class V1SavepointFormatWriter implements SavepointFormatWriter {

    static final int VERSION = 1;
    static final V1SavepointFormatWriter INSTANCE = new V1SavepointFormatWriter();

    private V1SavepointFormatWriter() {
    }

    @Override
    public int formatVersion() {
        return VERSION;
    }

    @Override
    public PayloadDigest newPayloadDigest() {
        return PayloadDigest.whole();
    }

    @Override
    public MetadataBodyCodec metadataBody() {
        return MetadataBodyV1.INSTANCE;
    }
}
