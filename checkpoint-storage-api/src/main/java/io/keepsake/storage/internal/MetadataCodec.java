package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;
import io.protostuff.Schema;
import org.apache.commons.codec.binary.Hex;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code _metadata.ser} layout: {@code [magic int | formatVersion int | bodyLength int |
 * protostuff body | SHA-256 of everything before it (32 bytes)]}, big-endian. The body is written
 * and read by the hand-written schemas of {@link MetadataBody} (frozen tags, no reflection), so its
 * bytes never depend on JVM-wide protostuff settings. Decoding checks
 * magic, bounds, checksum, that the body's version equals the header's, and every name in it.
 * It decodes any version from 1 up (tags are only ever added), so the reader registry, not this
 * codec, decides what a build can read. Stateless and thread-safe.
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

    private static final Schema<MetadataBody> SCHEMA = MetadataBody.SCHEMA;

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
                                          java.util.Map<String, String> properties, int manifestEntries) {
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
        for (java.util.Map.Entry<String, String> e : properties.entrySet()) {
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
     * Encodes metadata; deterministic for equal input.
     *
     * @throws InvalidStorageArgumentException when the encoded metadata would be larger than a reader accepts
     */
    public static byte[] encode(SavepointMeta meta) {
        MetadataBody body = new MetadataBody();
        body.formatVersion = meta.formatVersion();
        body.savepointId = meta.savepointId();
        body.jobId = meta.jobId();
        body.kind = meta.kind().stableName();
        body.producerVersion = meta.producerVersion();
        body.triggerTimestamp = meta.triggerTimestamp();
        body.completedTimestamp = meta.completedTimestamp();
        body.payloadFormat = meta.payloadFormat();
        body.manifest = new ArrayList<>();
        for (ManifestEntry e : meta.manifest()) {
            MetadataBody.Entry d = new MetadataBody.Entry();
            d.pipelineId = e.pipelineId();
            d.checkpointId = e.checkpointId();
            d.file = e.file();
            d.length = e.length();
            d.sha256 = e.sha256();
            if (e.chunks() != null) {
                d.chunked = true;
                d.chunkSize = e.chunks().chunkSize();
                d.chunkSha256 = e.chunks().concatenated();
            }
            body.manifest.add(d);
        }
        body.properties = new ArrayList<>();
        meta.properties().forEach((k, v) -> {
            MetadataBody.Property p = new MetadataBody.Property();
            p.key = k;
            p.value = v;
            body.properties.add(p);
        });
        byte[] bodyBytes = ProtostuffIOUtil.toByteArray(body, SCHEMA, LinkedBuffer.allocate(512));
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
     * One decoded manifest entry; chunk digests (tags 6 and 7) are refused in format version 1,
     * which never had them, and must come together.
     */
    private static ManifestEntry entry(MetadataBody.Entry d, int version, String file) {
        if (!d.chunked && d.chunkSha256 == null) {
            return new ManifestEntry(d.pipelineId, d.checkpointId, d.file, d.length, d.sha256);
        }
        if (version < FIRST_CHUNKED_VERSION) {
            throw new SavepointCorruptedException(file, "Savepoint metadata of format version " + version
                    + " has chunk digests, which only format version " + FIRST_CHUNKED_VERSION + " and later write",
                    "no chunk digests", "chunk digests for " + d.file);
        }
        if (!d.chunked || d.chunkSha256 == null) {
            throw new SavepointCorruptedException(file, "Savepoint metadata has a chunk size without chunk digests, or"
                    + " digests without a size", "both", (d.chunked ? "chunk size only" : "chunk digests only")
                    + " for " + d.file);
        }
        return new ManifestEntry(d.pipelineId, d.checkpointId, d.file, d.length, d.sha256,
                ChunkDigests.of(d.chunkSize, d.chunkSha256));
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
        MetadataBody body = SCHEMA.newMessage();
        try {
            ProtostuffIOUtil.mergeFrom(bytes, HEADER_LENGTH, bodyLength, body, SCHEMA);
        } catch (Exception | StackOverflowError e) {
            throw new SavepointCorruptedException(file, "Cannot decode savepoint metadata body: " + e.getMessage(),
                    null, null, e);
        }
        if (body.formatVersion != version) {
            throw new SavepointCorruptedException(file, "Savepoint metadata body disagrees with its header on the format version",
                    String.valueOf(version), String.valueOf(body.formatVersion));
        }
        try {
            List<ManifestEntry> manifest = new ArrayList<>();
            if (body.manifest != null) {
                for (MetadataBody.Entry d : body.manifest) {
                    manifest.add(entry(d, version, file));
                }
            }
            Map<String, String> properties = new LinkedHashMap<>();
            if (body.properties != null) {
                for (MetadataBody.Property p : body.properties) {
                    if (p.key == null || p.value == null) {
                        throw new InvalidStorageArgumentException("Cannot accept property: key or value is missing");
                    }
                    properties.put(p.key, p.value);
                }
            }
            return new SavepointMeta(version, body.savepointId, body.jobId, SavepointKind.fromStableName(body.kind),
                    body.producerVersion, body.triggerTimestamp, body.completedTimestamp, body.payloadFormat,
                    manifest, properties);
        } catch (InvalidStorageArgumentException | NullPointerException e) {
            throw new SavepointCorruptedException(file, "Savepoint metadata is invalid: " + e.getMessage(),
                    null, null, e);
        }
    }
}
