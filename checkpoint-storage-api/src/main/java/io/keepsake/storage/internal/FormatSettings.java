package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.Versions;

/**
 * What a storage writes and how it checks what it reads: the format version of the savepoints it
 * writes (and so the {@code SavepointFormatWriter} that writes them), the chunk size it writes in
 * format version 2 ({@link ChunkDigests#CHUNK_SIZE} unless a test asks for another; readers take
 * the size from the manifest), and the threads that verify chunks while payloads are read.
 *
 * @param writeVersion the format version new savepoints are written in
 * @param chunkSize    the chunk size of payloads written in format version 2
 * @param verification the verifier threads of format-version-2 payloads being read
 */
public record FormatSettings(int writeVersion, int chunkSize, ChunkVerification verification) {

    private static final class Standard {
        static final FormatSettings INSTANCE = new FormatSettings(Versions.CURRENT_FORMAT_VERSION,
                ChunkDigests.CHUNK_SIZE, new ChunkVerification(ChunkVerification.defaultThreads()));
    }

    /** Checks the version and the chunk size. */
    public FormatSettings {
        if (writeVersion < Versions.OLDEST_FORMAT_VERSION || writeVersion > Versions.CURRENT_FORMAT_VERSION) {
            throw new IllegalArgumentException("Cannot write savepoint format version " + writeVersion);
        }
        if (chunkSize < 1 || chunkSize > ChunkDigests.MAX_CHUNK_SIZE) {
            throw new IllegalArgumentException("Cannot write chunks of " + chunkSize + " bytes");
        }
    }

    /** The defaults, with verifier threads shared by every store that uses them (started only when used). */
    public static FormatSettings standard() {
        return Standard.INSTANCE;
    }

    /** The writer of {@link #writeVersion}. */
    SavepointFormatWriter writer() {
        return SavepointFormatWriter.forVersion(writeVersion, chunkSize);
    }
}
