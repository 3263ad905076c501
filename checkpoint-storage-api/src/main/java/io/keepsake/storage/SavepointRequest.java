package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;
import io.keepsake.storage.internal.MetadataCodec;
import io.keepsake.storage.internal.Names;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What the caller asks for when a savepoint begins. Everything a commit would write is checked
 * here, so what a commit accepts a read accepts: ids are safe names, free text is valid Unicode,
 * no property key or value is null, and the metadata stays within the bound a reader accepts.
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

    /**
     * Checks every field.
     *
     * @throws InvalidStorageArgumentException naming the field that is null, unsafe, invalid or too large
     */
    public SavepointRequest {
        Names.requireSafeName("job id", jobId);
        Names.requireSafeName("savepoint id", savepointId);
        properties = checkedDescription("create savepoint request", "savepoint " + savepointId + " of job " + jobId,
                kind, producerVersion, payloadFormat, properties);
        MetadataCodec.requireWithinBound("savepoint request " + savepointId + " of job " + jobId, producerVersion,
                payloadFormat, properties, 0);
    }

    /**
     * Checks what a request and the metadata it becomes both describe besides the ids: the kind is
     * given, the free text is valid Unicode, and the properties pass {@link #checkedProperties}.
     *
     * @param action what the caller is doing, as a null kind's message names it
     * @param what   the savepoint, as a property's message names it
     * @return the properties copied sorted by key
     * @throws InvalidStorageArgumentException naming the field
     */
    static Map<String, String> checkedDescription(String action, String what, SavepointKind kind,
                                                  String producerVersion, String payloadFormat,
                                                  Map<String, String> properties) {
        Arguments.requireNonNull(action, "kind", kind);
        Names.requireValidText("producerVersion", producerVersion);
        Names.requireValidText("payloadFormat", payloadFormat);
        return checkedProperties(what, properties);
    }

    /**
     * Copies properties sorted by key after checking that no key or value is null or invalid Unicode.
     *
     * @throws InvalidStorageArgumentException naming the property
     */
    static Map<String, String> checkedProperties(String what, Map<String, String> properties) {
        if (properties == null) {
            throw new InvalidStorageArgumentException("Cannot accept properties of " + what + ": the map is null");
        }
        TreeMap<String, String> copy = new TreeMap<>();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (e.getKey() == null) {
                throw new InvalidStorageArgumentException("Cannot accept properties of " + what + ": a key is null");
            }
            Names.requireValidText("property key of " + what, e.getKey());
            if (e.getValue() == null) {
                throw new InvalidStorageArgumentException("Cannot accept property of " + what + ": its value is null ("
                        + e.getKey() + ")");
            }
            Names.requireValidText("property '" + e.getKey() + "' of " + what, e.getValue());
            copy.put(e.getKey(), e.getValue());
        }
        return Collections.unmodifiableMap(copy);
    }

    /** A fresh id that sorts by time: {@code sp-<millis>-<8 hex>}. */
    public static String generateId(long nowMillis) {
        return String.format("sp-%013d-%08x", nowMillis, ThreadLocalRandom.current().nextInt());
    }
}
