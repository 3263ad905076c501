package io.keepsake.storage.internal;

import io.protostuff.Tag;

import java.util.List;

/**
 * The protostuff body of {@code _metadata.ser}. Tags are frozen: never renumber or reuse one; add
 * new fields with new tags only. Retired tags: none.
 *
 * <pre>
 *  1 formatVersion   int
 *  2 savepointId     string
 *  3 jobId           string
 *  4 kind            string (stable name)
 *  5 producerVersion string
 *  6 triggerTimestamp   int64
 *  7 completedTimestamp int64
 *  8 payloadFormat   string
 *  9 manifest        repeated Entry
 * 10 properties      repeated Property (sorted by key)
 * </pre>
 */
public final class MetadataBody {
    @Tag(1) int formatVersion;
    @Tag(2) String savepointId;
    @Tag(3) String jobId;
    @Tag(4) String kind;
    @Tag(5) String producerVersion;
    @Tag(6) long triggerTimestamp;
    @Tag(7) long completedTimestamp;
    @Tag(8) String payloadFormat;
    @Tag(9) List<Entry> manifest;
    @Tag(10) List<Property> properties;

    /** One manifest entry. Tags: 1 pipelineId, 2 checkpointId, 3 file, 4 length, 5 sha256. */
    public static final class Entry {
        @Tag(1) int pipelineId;
        @Tag(2) long checkpointId;
        @Tag(3) String file;
        @Tag(4) long length;
        @Tag(5) String sha256;
    }

    /** One property. Tags: 1 key, 2 value. */
    public static final class Property {
        @Tag(1) String key;
        @Tag(2) String value;
    }
}
