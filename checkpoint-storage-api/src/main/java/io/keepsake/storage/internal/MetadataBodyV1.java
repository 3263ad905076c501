package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointMeta;

/**
 * The metadata body of format version 1: each manifest entry holds its pipeline, checkpoint, file,
 * length and the file's SHA-256 (entry tags 1 to 5), and nothing else. Chunk digests are refused
 * both ways: a version 1 reader would take such metadata for corrupt.
 */
final class MetadataBodyV1 extends MetadataBodyCodec {

    static final int VERSION = 1;
    static final MetadataBodyV1 INSTANCE = new MetadataBodyV1();

    private MetadataBodyV1() {
    }

    @Override
    MetadataBody.Entry encodeEntry(ManifestEntry entry, SavepointMeta meta) {
        if (entry.chunks() != null) {
            throw new InvalidStorageArgumentException("Cannot encode metadata of savepoint " + meta.savepointId()
                    + " of job " + meta.jobId() + " in format version " + VERSION + ": its entry for "
                    + entry.file() + " has chunk digests, which only format version "
                    + MetadataCodec.FIRST_CHUNKED_VERSION + " and later record");
        }
        return plainEntry(entry);
    }

    @Override
    ManifestEntry decodeEntry(MetadataBody.Entry d, int version, String file) {
        if (d.chunked || d.chunkSha256 != null) {
            throw new SavepointCorruptedException(file, "Savepoint metadata of format version " + version
                    + " has chunk digests, which only format version " + MetadataCodec.FIRST_CHUNKED_VERSION
                    + " and later write", "no chunk digests", "chunk digests for " + d.file);
        }
        return new ManifestEntry(d.pipelineId, d.checkpointId, d.file, d.length, d.sha256);
    }
}
