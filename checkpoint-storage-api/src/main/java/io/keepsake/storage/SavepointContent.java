package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A savepoint read back whole: its handle and every payload's bytes, each already checked
 * against the manifest's length and SHA-256.
 *
 * @param handle   where it is and its metadata
 * @param payloads payload bytes by manifest file name, in manifest order
 */
public record SavepointContent(SavepointHandle handle, Map<String, byte[]> payloads) {

    /** Validates the components (and copies collections). */
    public SavepointContent {
        Arguments.requireNonNull("create savepoint content", "handle", handle);
        Arguments.requireNonNull("create savepoint content", "payloads", payloads);
        payloads = Collections.unmodifiableMap(new LinkedHashMap<>(payloads));
    }

    /** The verified payload of one pipeline, or null when the savepoint has none for it. */
    public byte[] payloadOfPipeline(int pipelineId) {
        ManifestEntry entry = handle.meta().entryForPipeline(pipelineId);
        return entry == null ? null : payloads.get(entry.file()).clone();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SavepointContent other) || !handle.equals(other.handle)
                || !payloads.keySet().equals(other.payloads.keySet())) {
            return false;
        }
        return payloads.entrySet().stream().allMatch(e -> Arrays.equals(e.getValue(), other.payloads.get(e.getKey())));
    }

    @Override
    public int hashCode() {
        return handle.hashCode();
    }
}
