package io.keepsake.storage.internal;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The protostuff body of {@code _metadata.ser} and its hand-written {@link Schema}s. Tags are
 * frozen: never renumber or reuse one; add new fields with new tags only. Retired tags: none.
 * Format version 2 added entry tags 6 and 7 and nothing else. The schemas hold every version's
 * tags; which of them a version's entries may carry is decided by its {@code MetadataBodyCodec}.
 *
 * <pre>
 *  1 formatVersion   int32, always written
 *  2 savepointId     string, written when not null
 *  3 jobId           string, written when not null
 *  4 kind            string (stable name), written when not null
 *  5 producerVersion string, written when not null
 *  6 triggerTimestamp   int64, always written
 *  7 completedTimestamp int64, always written
 *  8 payloadFormat   string, written when not null
 *  9 manifest        Entry, once per entry in order (a repeated field, no collection wrapper)
 * 10 properties      Property, once per property in key order (repeated, no wrapper)
 * </pre>
 *
 * <p>Entry tags: 1 pipelineId int32, 2 checkpointId int64, 3 file string, 4 length int64, 5 sha256
 * string (all written as in version 1), then from format version 2: 6 chunkSize int32 and 7
 * chunkSha256 bytes (the chunk digests' concatenation, 32 bytes per chunk), both written only for an
 * entry that has chunk digests, so an entry without them is byte for byte a version 1 entry.
 *
 * <p>The schemas write exactly what protostuff's {@code RuntimeSchema} wrote for this class (with
 * {@code @Tag}s) in a JVM with the default protostuff settings, which is what every savepoint up to
 * and including format version 1 holds; unlike a runtime schema, they do not change with the
 * JVM-wide {@code protostuff.runtime.*} system properties that engines set. Unknown tags are
 * skipped when reading, so a later version's added fields do not break this reader.
 */
public final class MetadataBody {
    int formatVersion;
    String savepointId;
    String jobId;
    String kind;
    String producerVersion;
    long triggerTimestamp;
    long completedTimestamp;
    String payloadFormat;
    List<Entry> manifest = new ArrayList<>();
    List<Property> properties = new ArrayList<>();

    /**
     * One manifest entry. Tags: 1 pipelineId int32, 2 checkpointId int64, 3 file, 4 length int64, 5 sha256;
     * from version 2, 6 chunkSize int32 and 7 chunkSha256 bytes, written together and only when
     * {@code chunked}.
     */
    public static final class Entry {
        int pipelineId;
        long checkpointId;
        String file;
        long length;
        String sha256;
        /** Read from tag 6; 0 when the tag was absent. */
        int chunkSize;
        /** Read from tag 7; null when the tag was absent. */
        byte[] chunkSha256;
        /** True when tag 6 was read (or, writing, when the entry has chunk digests). */
        boolean chunked;
    }

    /** One property. Tags: 1 key, 2 value; each written when not null. */
    public static final class Property {
        String key;
        String value;
    }

    /** The schema of one manifest entry. */
    static final Schema<Entry> ENTRY_SCHEMA = FrozenSchema.table("Entry", Entry.class.getName(), Entry.class,
                    Entry::new)
            .int32("pipelineId", e -> e.pipelineId, (e, v) -> e.pipelineId = v)
            .int64("checkpointId", e -> e.checkpointId, (e, v) -> e.checkpointId = v)
            .string("file", e -> e.file, (e, v) -> e.file = v)
            .int64("length", e -> e.length, (e, v) -> e.length = v)
            .string("sha256", e -> e.sha256, (e, v) -> e.sha256 = v)
            .field("chunkSize", MetadataBody::writeChunkSize, MetadataBody::readChunkSize)
            .field("chunkSha256", MetadataBody::writeChunkDigests, (input, e) -> e.chunkSha256 = input.readByteArray())
            .build();

    /** The schema of one property. */
    static final Schema<Property> PROPERTY_SCHEMA = FrozenSchema.table("Property", Property.class.getName(),
                    Property.class, Property::new)
            .string("key", p -> p.key, (p, v) -> p.key = v)
            .string("value", p -> p.value, (p, v) -> p.value = v)
            .build();

    /** The schema of the whole body. */
    static final Schema<MetadataBody> SCHEMA = FrozenSchema.table("MetadataBody", MetadataBody.class.getName(),
                    MetadataBody.class, MetadataBody::new)
            .int32("formatVersion", b -> b.formatVersion, (b, v) -> b.formatVersion = v)
            .string("savepointId", b -> b.savepointId, (b, v) -> b.savepointId = v)
            .string("jobId", b -> b.jobId, (b, v) -> b.jobId = v)
            .string("kind", b -> b.kind, (b, v) -> b.kind = v)
            .string("producerVersion", b -> b.producerVersion, (b, v) -> b.producerVersion = v)
            .int64("triggerTimestamp", b -> b.triggerTimestamp, (b, v) -> b.triggerTimestamp = v)
            .int64("completedTimestamp", b -> b.completedTimestamp, (b, v) -> b.completedTimestamp = v)
            .string("payloadFormat", b -> b.payloadFormat, (b, v) -> b.payloadFormat = v)
            .repeated("manifest", FrozenSchema.group(ENTRY_SCHEMA), b -> b.manifest)
            .repeated("properties", FrozenSchema.group(PROPERTY_SCHEMA), b -> b.properties)
            .build();

    /** Tag 6, written only for an entry with chunk digests; reading it marks the entry as chunked. */
    private static void writeChunkSize(Output output, int tag, Entry e) throws IOException {
        if (e.chunked) {
            output.writeInt32(tag, e.chunkSize, false);
        }
    }

    private static void readChunkSize(Input input, Entry e) throws IOException {
        e.chunkSize = input.readInt32();
        e.chunked = true;
    }

    /** Tag 7, written only for an entry with chunk digests (empty when it has none). */
    private static void writeChunkDigests(Output output, int tag, Entry e) throws IOException {
        if (e.chunked) {
            output.writeByteArray(tag, e.chunkSha256 == null ? new byte[0] : e.chunkSha256, false);
        }
    }
}
