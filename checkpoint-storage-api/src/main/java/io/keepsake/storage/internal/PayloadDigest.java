package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import org.apache.commons.codec.binary.Hex;

import java.security.MessageDigest;

/**
 * The digest a payload's manifest entry records, computed as its bytes stream past once: the
 * plain SHA-256 of the file in format version 1 ({@link #whole()}), the chunk digests and the
 * digest derived from them from format version 2 ({@link ChunkedDigest}). Not thread-safe: the
 * bytes of one payload arrive in order, one update at a time.
 */
interface PayloadDigest {

    /** Adds one byte. */
    void update(byte b);

    /** Adds {@code len} bytes of {@code b} from {@code off}; the caller keeps them unchanged until this returns. */
    void update(byte[] b, int off, int len);

    /** The manifest's digest of everything added, lowercase hex; call once, after the last update. */
    String finishHex(long length);

    /** The chunk digests, after {@link #finishHex}; null for a format without them. */
    ChunkDigests chunks();

    /** The plain SHA-256 of the whole payload, as format version 1 records it. */
    static PayloadDigest whole() {
        MessageDigest sha = HashingOutputStream.sha256();
        return new PayloadDigest() {
            @Override
            public void update(byte b) {
                sha.update(b);
            }

            @Override
            public void update(byte[] b, int off, int len) {
                sha.update(b, off, len);
            }

            @Override
            public String finishHex(long length) {
                return Hex.encodeHexString(sha.digest());
            }

            @Override
            public ChunkDigests chunks() {
                return null;
            }
        };
    }
}
