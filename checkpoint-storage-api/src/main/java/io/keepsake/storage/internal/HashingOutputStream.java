package io.keepsake.storage.internal;

import org.apache.commons.codec.binary.Hex;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Counts and SHA-256-hashes bytes on their way to the wrapped stream, so a payload is never read
 * again to checksum it. Not thread-safe.
 */
public class HashingOutputStream extends FilterOutputStream {

    private final MessageDigest digest = sha256();
    private long length;

    public HashingOutputStream(OutputStream out) {
        super(out);
    }

    @Override
    public void write(int b) throws IOException {
        out.write(b);
        digest.update((byte) b);
        length++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        digest.update(b, off, len);
        length += len;
    }

    /** Bytes written so far. */
    public long length() {
        return length;
    }

    /** Lowercase hex SHA-256 of everything written; call once, after the last write. */
    public String sha256Hex() {
        return Hex.encodeHexString(digest.digest());
    }

    /** A fresh SHA-256 digest. */
    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
