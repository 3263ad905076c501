package io.keepsake.storage.internal;

import io.keepsake.storage.SavepointCorruptedException;
import org.apache.commons.codec.binary.Hex;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;

/**
 * Hashes bytes as they are read and checks length and SHA-256 against what the manifest promised
 * before the last promised byte is handed out: the read that reaches the promised length first
 * makes sure the file ends there and the digest matches, so a caller that reads exactly
 * {@code length} bytes and closes never holds unverified bytes. A mismatch throws
 * {@link SavepointCorruptedException} naming the file. Never delivers more bytes than promised.
 * Not thread-safe.
 */
public class VerifyingInputStream extends FilterInputStream {

    private final String file;
    private final long expectedLength;
    private final String expectedSha256;
    private final MessageDigest digest = HashingOutputStream.sha256();
    private final byte[] one = new byte[1];
    private long read;
    private boolean verified;

    public VerifyingInputStream(InputStream in, String file, long expectedLength, String expectedSha256) {
        super(in);
        this.file = file;
        this.expectedLength = expectedLength;
        this.expectedSha256 = expectedSha256;
    }

    @Override
    public int read() throws IOException {
        int n = read(one, 0, 1);
        return n <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (verified) {
            return -1;
        }
        long remaining = expectedLength - read;
        int n = in.read(b, off, (int) Math.min(len, Math.max(remaining, 1)));
        if (n < 0) {
            verify();
            return -1;
        }
        read += n;
        if (read > expectedLength) {
            throw new SavepointCorruptedException(file, "Payload is longer than the manifest says",
                    expectedLength + " bytes", "at least " + read + " bytes");
        }
        digest.update(b, off, n);
        if (read == expectedLength) {
            if (in.read() != -1) {
                throw new SavepointCorruptedException(file, "Payload is longer than the manifest says",
                        expectedLength + " bytes", "at least " + (read + 1) + " bytes");
            }
            verify();
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        byte[] sink = new byte[8192];
        long skipped = 0;
        while (skipped < n) {
            int r = read(sink, 0, (int) Math.min(sink.length, n - skipped));
            if (r < 0) {
                break;
            }
            skipped += r;
        }
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    private void verify() {
        if (verified) {
            return;
        }
        if (read != expectedLength) {
            throw new SavepointCorruptedException(file, "Payload length does not match the manifest",
                    expectedLength + " bytes", read + " bytes");
        }
        String actual = Hex.encodeHexString(digest.digest());
        if (!actual.equals(expectedSha256)) {
            throw new SavepointCorruptedException(file, "Payload SHA-256 does not match the manifest",
                    expectedSha256, actual);
        }
        verified = true;
    }
}
