package io.keepsake.storage;

import java.io.IOException;
import java.io.InputStream;

/**
 * A payload stream (such as the one {@link SavepointStorage#openPayload} returns) that can read
 * straight into arrays its caller keeps, so that checking those bytes may overlap reading them:
 * a decoder that reads a state array with {@link #readKept} and never changes it lets the stream
 * hash the array on another core instead of copying it first. The stream's rule is unchanged:
 * its last byte is delivered only after the whole payload verified, so a caller that reads to the
 * end holds no unverified bytes. Not thread-safe, like the stream.
 */
public interface KeptArrayInput {

    /**
     * Reads up to {@code len} bytes into {@code b} at {@code off}, as {@link InputStream#read(byte[], int, int)};
     * the caller promises not to change those bytes until the stream has reached its end or is closed.
     *
     * @throws SavepointCorruptedException when the payload's length or SHA-256 turns out wrong
     * @throws IOException                 when the underlying read fails
     */
    int readKept(byte[] b, int off, int len) throws IOException;

    /**
     * Reads and checks {@code n} bytes without handing them out; returns how many there were,
     * fewer than {@code n} only at the end of the payload.
     *
     * @throws SavepointCorruptedException when the payload's length or SHA-256 turns out wrong
     * @throws IOException                 when the underlying read fails
     */
    long discard(long n) throws IOException;
}
