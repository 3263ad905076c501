package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointMeta;

/**
 * The metadata body of format version 2 and later: version 1's, and an entry with chunk digests
 * also holds its chunk size (tag 6) and the digests' concatenation (tag 7), written after tag 5
 * and together, so an entry without them is byte for byte a version 1 entry.
 */
final class MetadataBodyV2 extends MetadataBodyCodec {

    static final MetadataBodyV2 INSTANCE = new MetadataBodyV2();

    private MetadataBodyV2() {
    }

    @Override
    MetadataBody.Entry encodeEntry(ManifestEntry entry, SavepointMeta meta) {
        MetadataBody.Entry d = plainEntry(entry);
        if (entry.chunks() != null) {
            d.chunked = true;
            d.chunkSize = entry.chunks().chunkSize();
            d.chunkSha256 = entry.chunks().concatenated();
        }
        return d;
    }

    @Override
    ManifestEntry decodeEntry(MetadataBody.Entry d, int version, String file) {
        if (!d.chunked && d.chunkSha256 == null) {
            return new ManifestEntry(d.pipelineId, d.checkpointId, d.file, d.length, d.sha256);
        }
        if (!d.chunked || d.chunkSha256 == null) {
            throw new SavepointCorruptedException(file, "Savepoint metadata has a chunk size without chunk digests, or"
                    + " digests without a size", "both", (d.chunked ? "chunk size only" : "chunk digests only")
                    + " for " + d.file);
        }
        return new ManifestEntry(d.pipelineId, d.checkpointId, d.file, d.length, d.sha256,
                ChunkDigests.of(d.chunkSize, d.chunkSha256));
    }
}
