package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointMeta;
import org.apache.commons.codec.binary.Hex;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Map;

/**
 * The {@code _metadata.ser} frame: {@code [magic int | formatVersion int | bodyLength int |
 * protostuff body | SHA-256 of everything before it (32 bytes)]}, big-endian. The frame is the
 * same in every format version; the body is the version's {@code MetadataBodyCodec}
 * ({@code MetadataBodyV1}, {@code MetadataBodyV2}), written and read by the hand-written schemas of
 * {@link MetadataBody} (frozen tags, no reflection), so its bytes never depend on JVM-wide
 * protostuff settings. Decoding checks magic, bounds and checksum here, then the body checks that
 * its version equals the header's and every name in it. It decodes any version from 1 up (tags
 * are only ever added), so the reader registry, not this codec, decides what a build can read.
 * Stateless and thread-safe.
 */
public final class MetadataCodec {

    /** "KSPM": Keepsake savepoint metadata. */
    public static final int MAGIC = 0x4B53504D;
    /** The name of the metadata file in every savepoint directory. */
    public static final String FILE_NAME = "_metadata.ser";
    /** Header: magic, version, body length. */
    public static final int HEADER_LENGTH = 12;
    /** Trailer: SHA-256. */
    public static final int TRAILER_LENGTH = 32;
    /** Metadata larger than this is refused as corrupt rather than allocated. */
    public static final int MAX_LENGTH = 16 * 1024 * 1024;

    /** The first format version whose manifest entries carry chunk digests (entry tags 6 and 7). */
    public static final int FIRST_CHUNKED_VERSION = 2;

    /** An upper bound of one manifest entry's encoded size (a 200-character file name, at most 4 bytes each). */
    static final int MAX_ENTRY_LENGTH = 1024;
    /** An upper bound of the encoded size of everything but the free text and the manifest. */
    static final int FIXED_LENGTH_BOUND = 4096;

    /**
     * Checks that metadata with these fields stays within {@link #MAX_LENGTH} once encoded, so what
     * a commit writes can always be read back; the bound is conservative (UTF-8 length plus the
     * largest tag and length prefixes).
     *
     * @param what          names the savepoint in the message
     * @throws InvalidStorageArgumentException naming the largest field when the bound would be exceeded
     */
    public static void requireWithinBound(String what, String producerVersion, String payloadFormat,
                                          Map<String, String> properties, int manifestEntries) {
        long total = HEADER_LENGTH + TRAILER_LENGTH + FIXED_LENGTH_BOUND;
        String largest = "producerVersion";
        long largestLength = textLength(producerVersion);
        total += largestLength;
        long format = textLength(payloadFormat);
        total += format;
        if (format > largestLength) {
            largest = "payloadFormat";
            largestLength = format;
        }
        for (Map.Entry<String, String> e : properties.entrySet()) {
            long length = 2 + textLength(e.getKey()) + textLength(e.getValue());
            total += length;
            if (length > largestLength) {
                largest = "property '" + (e.getKey().length() > 40 ? e.getKey().substring(0, 40) + "..." : e.getKey())
                        + "'";
                largestLength = length;
            }
        }
        long manifest = (long) manifestEntries * MAX_ENTRY_LENGTH;
        total += manifest;
        if (manifest > largestLength) {
            largest = "manifest (" + manifestEntries + " entries)";
            largestLength = manifest;
        }
        if (total > MAX_LENGTH) {
            throw new InvalidStorageArgumentException("Cannot accept " + what + ": its metadata could take " + total
                    + " bytes, more than the " + MAX_LENGTH + " bytes a reader accepts; the largest field is " + largest
                    + " (" + largestLength + " bytes)");
        }
    }

    private static long textLength(String text) {
        long utf8 = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            utf8 += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return 6 + utf8;
    }

    private MetadataCodec() {
    }

    /**
     * Encodes metadata with the body of its format version; deterministic for equal input.
     *
     * @throws InvalidStorageArgumentException when the encoded metadata would be larger than a reader
     *                                         accepts, or holds what its version cannot record
     */
    public static byte[] encode(SavepointMeta meta) {
        return encode(meta, MetadataBodyCodec.forVersion(meta.formatVersion()));
    }

    /** Frames {@code meta} encoded with {@code body}. */
    static byte[] encode(SavepointMeta meta, MetadataBodyCodec body) {
        byte[] bodyBytes = body.encode(meta);
        long total = (long) HEADER_LENGTH + bodyBytes.length + TRAILER_LENGTH;
        if (total > MAX_LENGTH) {
            requireWithinBound("metadata of savepoint " + meta.savepointId() + " of job " + meta.jobId(),
                    meta.producerVersion(), meta.payloadFormat(), meta.properties(), meta.manifest().size());
            throw new InvalidStorageArgumentException("Cannot encode metadata of savepoint " + meta.savepointId()
                    + " of job " + meta.jobId() + ": it would take " + total + " bytes, more than the " + MAX_LENGTH
                    + " bytes a reader accepts");
        }
        ByteBuffer buf = ByteBuffer.allocate(HEADER_LENGTH + bodyBytes.length + TRAILER_LENGTH);
        buf.putInt(MAGIC).putInt(meta.formatVersion()).putInt(bodyBytes.length).put(bodyBytes);
        MessageDigest digest = HashingOutputStream.sha256();
        digest.update(buf.array(), 0, buf.position());
        buf.put(digest.digest());
        return buf.array();
    }

    /**
     * Decodes and verifies metadata bytes read from {@code file}.
     *
     * @throws SavepointCorruptedException when anything does not verify
     */
    public static SavepointMeta decode(byte[] bytes, String file) {
        if (bytes.length < HEADER_LENGTH + TRAILER_LENGTH) {
            throw new SavepointCorruptedException(file, "Savepoint metadata is truncated",
                    "at least " + (HEADER_LENGTH + TRAILER_LENGTH) + " bytes", bytes.length + " bytes");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        int magic = buf.getInt();
        if (magic != MAGIC) {
            throw new SavepointCorruptedException(file, "Not a Keepsake savepoint metadata file: wrong magic number;"
                    + " the file may be from another tool, a legacy checkpoint, or overwritten",
                    String.format("0x%08X", MAGIC), String.format("0x%08X", magic));
        }
        int version = buf.getInt();
        int bodyLength = buf.getInt();
        long expectedTotal = (long) HEADER_LENGTH + bodyLength + TRAILER_LENGTH;
        if (bodyLength < 0 || expectedTotal != bytes.length) {
            throw new SavepointCorruptedException(file, "Savepoint metadata length does not match its header",
                    expectedTotal + " bytes", bytes.length + " bytes");
        }
        MessageDigest digest = HashingOutputStream.sha256();
        digest.update(bytes, 0, HEADER_LENGTH + bodyLength);
        byte[] actual = digest.digest();
        byte[] expected = Arrays.copyOfRange(bytes, HEADER_LENGTH + bodyLength, bytes.length);
        if (!MessageDigest.isEqual(actual, expected)) {
            throw new SavepointCorruptedException(file, "Savepoint metadata checksum does not match",
                    Hex.encodeHexString(expected), Hex.encodeHexString(actual));
        }
        if (version < 1) {
            throw new SavepointCorruptedException(file, "Savepoint metadata has an impossible format version",
                    ">= 1", String.valueOf(version));
        }
        return MetadataBodyCodec.forVersion(version).decode(bytes, HEADER_LENGTH, bodyLength, version, file);
    }
}
