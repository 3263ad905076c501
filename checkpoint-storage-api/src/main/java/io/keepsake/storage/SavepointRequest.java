package io.keepsake.storage;

import io.keepsake.storage.internal.Names;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the caller asks for when a savepoint begins.
 *
 * @param jobId            the job taking the savepoint
 * @param savepointId      the id; use {@link #generateId(long)} when the caller has none
 * @param kind             manual, periodic or retained-checkpoint
 * @param producerVersion  the writer's version, free text, recorded in the metadata
 * @param payloadFormat    the encoding of the payloads, such as {@code engine-wire-v1}
 * @param triggerTimestamp epoch millis when the savepoint was triggered
 * @param properties       free-form properties recorded in the metadata
 */
public record SavepointRequest(String jobId, String savepointId, SavepointKind kind, String producerVersion,
                               String payloadFormat, long triggerTimestamp, Map<String, String> properties) {

    /** Validates the components (and copies collections). */
    public SavepointRequest {
        Names.requireSafeName("job id", jobId);
        Names.requireSafeName("savepoint id", savepointId);
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(producerVersion, "producerVersion");
        Objects.requireNonNull(payloadFormat, "payloadFormat");
        properties = Collections.unmodifiableMap(new TreeMap<>(properties));
    }

    /** A fresh id that sorts by time: {@code sp-<millis>-<8 hex>}. */
    public static String generateId(long nowMillis) {
        return String.format("sp-%013d-%08x", nowMillis, java.util.concurrent.ThreadLocalRandom.current().nextInt());
    }
}
