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
    List<Entry> manifest;
    List<Property> properties;

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

    /** The schema of the whole body. */
    static final Schema<MetadataBody> SCHEMA = new BodySchema();
    static final Schema<Entry> ENTRY_SCHEMA = new EntrySchema();
    static final Schema<Property> PROPERTY_SCHEMA = new PropertySchema();

    private static void writeString(Output output, int number, String value) throws IOException {
        if (value != null) {
            output.writeString(number, value, false);
        }
    }

    /** Shared plumbing of the three hand-written schemas. */
    private abstract static class FrozenSchema<T> implements Schema<T> {
        private final Class<T> type;
        private final String[] names;

        FrozenSchema(Class<T> type, String... names) {
            this.type = type;
            this.names = names;
        }

        @Override
        public String getFieldName(int number) {
            return number >= 1 && number <= names.length ? names[number - 1] : null;
        }

        @Override
        public int getFieldNumber(String name) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(name)) {
                    return i + 1;
                }
            }
            return 0;
        }

        @Override
        public boolean isInitialized(T message) {
            return true;
        }

        @Override
        public String messageName() {
            return type.getSimpleName();
        }

        @Override
        public String messageFullName() {
            return type.getName();
        }

        @Override
        public Class<? super T> typeClass() {
            return type;
        }
    }

    private static final class BodySchema extends FrozenSchema<MetadataBody> {
        BodySchema() {
            super(MetadataBody.class, "formatVersion", "savepointId", "jobId", "kind", "producerVersion",
                    "triggerTimestamp", "completedTimestamp", "payloadFormat", "manifest", "properties");
        }

        @Override
        public MetadataBody newMessage() {
            return new MetadataBody();
        }

        @Override
        public void writeTo(Output output, MetadataBody m) throws IOException {
            output.writeInt32(1, m.formatVersion, false);
            writeString(output, 2, m.savepointId);
            writeString(output, 3, m.jobId);
            writeString(output, 4, m.kind);
            writeString(output, 5, m.producerVersion);
            output.writeInt64(6, m.triggerTimestamp, false);
            output.writeInt64(7, m.completedTimestamp, false);
            writeString(output, 8, m.payloadFormat);
            if (m.manifest != null) {
                for (Entry e : m.manifest) {
                    if (e != null) {
                        output.writeObject(9, e, ENTRY_SCHEMA, true);
                    }
                }
            }
            if (m.properties != null) {
                for (Property p : m.properties) {
                    if (p != null) {
                        output.writeObject(10, p, PROPERTY_SCHEMA, true);
                    }
                }
            }
        }

        @Override
        public void mergeFrom(Input input, MetadataBody m) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> m.formatVersion = input.readInt32();
                    case 2 -> m.savepointId = input.readString();
                    case 3 -> m.jobId = input.readString();
                    case 4 -> m.kind = input.readString();
                    case 5 -> m.producerVersion = input.readString();
                    case 6 -> m.triggerTimestamp = input.readInt64();
                    case 7 -> m.completedTimestamp = input.readInt64();
                    case 8 -> m.payloadFormat = input.readString();
                    case 9 -> {
                        if (m.manifest == null) {
                            m.manifest = new ArrayList<>();
                        }
                        m.manifest.add(input.mergeObject(null, ENTRY_SCHEMA));
                    }
                    case 10 -> {
                        if (m.properties == null) {
                            m.properties = new ArrayList<>();
                        }
                        m.properties.add(input.mergeObject(null, PROPERTY_SCHEMA));
                    }
                    default -> input.handleUnknownField(number, this);
                }
            }
        }
    }

    private static final class EntrySchema extends FrozenSchema<Entry> {
        EntrySchema() {
            super(Entry.class, "pipelineId", "checkpointId", "file", "length", "sha256", "chunkSize", "chunkSha256");
        }

        @Override
        public Entry newMessage() {
            return new Entry();
        }

        @Override
        public void writeTo(Output output, Entry e) throws IOException {
            output.writeInt32(1, e.pipelineId, false);
            output.writeInt64(2, e.checkpointId, false);
            writeString(output, 3, e.file);
            output.writeInt64(4, e.length, false);
            writeString(output, 5, e.sha256);
            if (e.chunked) {
                output.writeInt32(6, e.chunkSize, false);
                output.writeByteArray(7, e.chunkSha256 == null ? new byte[0] : e.chunkSha256, false);
            }
        }

        @Override
        public void mergeFrom(Input input, Entry e) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> e.pipelineId = input.readInt32();
                    case 2 -> e.checkpointId = input.readInt64();
                    case 3 -> e.file = input.readString();
                    case 4 -> e.length = input.readInt64();
                    case 5 -> e.sha256 = input.readString();
                    case 6 -> {
                        e.chunkSize = input.readInt32();
                        e.chunked = true;
                    }
                    case 7 -> e.chunkSha256 = input.readByteArray();
                    default -> input.handleUnknownField(number, this);
                }
            }
        }
    }

    private static final class PropertySchema extends FrozenSchema<Property> {
        PropertySchema() {
            super(Property.class, "key", "value");
        }

        @Override
        public Property newMessage() {
            return new Property();
        }

        @Override
        public void writeTo(Output output, Property p) throws IOException {
            writeString(output, 1, p.key);
            writeString(output, 2, p.value);
        }

        @Override
        public void mergeFrom(Input input, Property p) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> p.key = input.readString();
                    case 2 -> p.value = input.readString();
                    default -> input.handleUnknownField(number, this);
                }
            }
        }
    }
}
