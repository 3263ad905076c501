package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;
import io.keepsake.storage.internal.Names;


/**
 * One payload of a savepoint bundle: which pipeline and checkpoint it holds, its file name
 * relative to the bundle, its exact length and its digest (lowercase hex). In format version 1 the
 * digest is the SHA-256 of the file and {@code chunks} is null; from format version 2 the payload
 * also has its {@link ChunkDigests}, and {@code sha256} is the whole-file digest derived from them
 * ({@link ChunkDigests#fileDigestHex}).
 *
 * @param chunks the chunk size and each chunk's SHA-256; null in format version 1
 */
public record ManifestEntry(int pipelineId, long checkpointId, String file, long length, String sha256,
                            ChunkDigests chunks) {

    /**
     * Validates the components: a safe file name, a length of at least 0, 64 lowercase hex digits,
     * and chunk digests, when given, that cover exactly {@code length} bytes and derive {@code sha256}.
     *
     * @throws InvalidStorageArgumentException naming the component that does not hold
     */
    public ManifestEntry {
        Names.requireSafeName("manifest file name", file);
        if (length < 0) {
            throw new InvalidStorageArgumentException("Cannot accept manifest entry: negative length (" + length + ")");
        }
        Arguments.requireNonNull("create manifest entry", "sha256", sha256);
        if (!sha256.matches("[0-9a-f]{64}")) {
            throw new InvalidStorageArgumentException(
                    "Cannot accept manifest entry: sha256 is not 64 lowercase hex digits (" + sha256 + ")");
        }
        if (chunks != null) {
            long expected = ChunkDigests.chunkCount(length, chunks.chunkSize());
            if (chunks.count() != expected) {
                throw new InvalidStorageArgumentException("Cannot accept manifest entry of " + file + ": " + length
                        + " bytes in chunks of " + chunks.chunkSize() + " bytes are " + expected + " chunks, not "
                        + chunks.count() + " (" + chunks + ")");
            }
            String derived = chunks.fileDigestHex(length);
            if (!derived.equals(sha256)) {
                throw new InvalidStorageArgumentException("Cannot accept manifest entry of " + file + ": its digest is"
                        + " not the one derived from its chunk digests (" + sha256 + ", derived " + derived + ")");
            }
        }
    }

    /** An entry of format version 1: the file's plain SHA-256, no chunk digests. */
    public ManifestEntry(int pipelineId, long checkpointId, String file, long length, String sha256) {
        this(pipelineId, checkpointId, file, length, sha256, null);
    }

    /** An entry of format version 2: the digest is derived from {@code chunks}. */
    public static ManifestEntry chunked(int pipelineId, long checkpointId, String file, long length,
                                        ChunkDigests chunks) {
        Arguments.requireNonNull("create manifest entry", "chunks", chunks);
        return new ManifestEntry(pipelineId, checkpointId, file, length, chunks.fileDigestHex(length), chunks);
    }
}
