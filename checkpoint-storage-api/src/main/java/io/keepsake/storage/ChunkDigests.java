package io.keepsake.storage;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The chunk digests of one payload in format version 2: the payload is cut into chunks of
 * {@link #chunkSize()} bytes (the last one shorter, a payload of 0 bytes has none), and each
 * chunk has its own SHA-256, so that a reader can check chunks on several cores while it reads
 * ahead. The chunk size is recorded beside the digests in the manifest; readers take it from there
 * and never assume {@link #CHUNK_SIZE}.
 *
 * <p>The payload's whole-file digest is derived from the chunk digests ({@link #fileDigestHex}):
 * SHA-256 over the chunk digests in order, each 32 bytes, followed by the payload's length as an
 * 8-byte big-endian integer and the chunk size as a 4-byte big-endian integer. A manifest entry
 * with chunk digests holds that derived digest as its {@code sha256}, so one string still names
 * the payload's bytes, and a reader of format version 1, which does not know the chunk digests,
 * cannot mistake it for the plain SHA-256 of the file (it refuses format version 2 anyway).
 *
 * <p>Immutable: the digests are copied in and out.
 */
public final class ChunkDigests {

    /** The chunk size this build writes: 1 MiB (see docs/formats.md for why). */
    public static final int CHUNK_SIZE = 1 << 20;

    /** The largest chunk size a reader accepts (a reader holds a few chunks per stream in memory): 64 MiB. */
    public static final int MAX_CHUNK_SIZE = 64 << 20;

    /** Bytes of one chunk digest (SHA-256). */
    public static final int DIGEST_LENGTH = 32;

    private final int chunkSize;
    private final byte[] digests;

    private ChunkDigests(int chunkSize, byte[] digests) {
        this.chunkSize = chunkSize;
        this.digests = digests;
    }

    /**
     * Chunk digests of {@code chunkSize} bytes each, given as their concatenation (32 bytes per chunk, in order).
     *
     * @throws InvalidStorageArgumentException when the chunk size is not between 1 and {@link #MAX_CHUNK_SIZE}
     *                                         or the digests are not a whole number of SHA-256 digests
     */
    public static ChunkDigests of(int chunkSize, byte[] concatenated) {
        if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
            throw new InvalidStorageArgumentException("Cannot accept chunk digests: the chunk size must be between 1"
                    + " and " + MAX_CHUNK_SIZE + " bytes (" + chunkSize + ")");
        }
        if (concatenated == null || concatenated.length % DIGEST_LENGTH != 0) {
            throw new InvalidStorageArgumentException("Cannot accept chunk digests: they must be a whole number of"
                    + " " + DIGEST_LENGTH + "-byte SHA-256 digests ("
                    + (concatenated == null ? "null" : concatenated.length + " bytes") + ")");
        }
        return new ChunkDigests(chunkSize, concatenated.clone());
    }

    /** How many chunks a payload of {@code length} bytes has with chunks of {@code chunkSize} bytes. */
    public static long chunkCount(long length, int chunkSize) {
        return length == 0 ? 0 : (length - 1) / chunkSize + 1;
    }

    /** The chunk size, in bytes. */
    public int chunkSize() {
        return chunkSize;
    }

    /** How many chunk digests there are. */
    public int count() {
        return digests.length / DIGEST_LENGTH;
    }

    /** The byte offset in the payload where chunk {@code index} starts. */
    public long offset(int index) {
        return (long) index * chunkSize;
    }

    /** The length of chunk {@code index} in a payload of {@code length} bytes. */
    public int length(int index, long length) {
        return (int) Math.min(chunkSize, length - offset(index));
    }

    /** True when {@code digest} (32 bytes) is the digest of chunk {@code index}. */
    public boolean matches(int index, byte[] digest) {
        return digest.length == DIGEST_LENGTH
                && Arrays.equals(digests, index * DIGEST_LENGTH, (index + 1) * DIGEST_LENGTH, digest, 0, DIGEST_LENGTH);
    }

    /** The digest of chunk {@code index}, lowercase hex. */
    public String sha256Hex(int index) {
        return HexFormat.of().formatHex(digests, index * DIGEST_LENGTH, (index + 1) * DIGEST_LENGTH);
    }

    /** The digests' concatenation, 32 bytes per chunk in order (a copy). */
    public byte[] concatenated() {
        return digests.clone();
    }

    /** The whole-file digest derived from the chunk digests for a payload of {@code length} bytes, lowercase hex. */
    public String fileDigestHex(long length) {
        MessageDigest sha = sha256();
        sha.update(digests);
        sha.update(ByteBuffer.allocate(12).putLong(length).putInt(chunkSize).array());
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChunkDigests other && chunkSize == other.chunkSize && Arrays.equals(digests, other.digests);
    }

    @Override
    public int hashCode() {
        return 31 * chunkSize + Arrays.hashCode(digests);
    }

    @Override
    public String toString() {
        return count() + " chunk digest(s) of " + chunkSize + "-byte chunks";
    }
}
