package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;
import io.keepsake.storage.internal.Names;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything {@code _metadata.ser} holds about one complete savepoint: who wrote it and when, in
 * which payload format, and the manifest of its payloads.
 *
 * @param formatVersion       the savepoint format version the bundle was written in
 * @param savepointId         the savepoint's id, equal to its directory name
 * @param jobId               the job that took it, equal to its parent directory name
 * @param kind                manual, periodic or retained-checkpoint
 * @param producerVersion     the engine/library version that wrote it, free text
 * @param triggerTimestamp    epoch millis when it was triggered
 * @param completedTimestamp  epoch millis when it was committed
 * @param payloadFormat       the payload encoding, such as {@code engine-wire-v1}
 * @param manifest            one entry per payload, distinct files and pipelines
 * @param properties          free-form string properties, sorted by key
 */
public record SavepointMeta(int formatVersion, String savepointId, String jobId, SavepointKind kind,
                            String producerVersion, long triggerTimestamp, long completedTimestamp,
                            String payloadFormat, List<ManifestEntry> manifest, Map<String, String> properties) {

    /**
     * Checks every field; the size bound is checked when the metadata is encoded, so that metadata
     * read back from an existing savepoint is never refused for it.
     *
     * @throws InvalidStorageArgumentException naming the field that is null, unsafe, invalid or too large
     */
    public SavepointMeta {
        Names.requireSafeName("savepoint id", savepointId);
        Names.requireSafeName("job id", jobId);
        properties = SavepointRequest.checkedDescription("create savepoint metadata",
                "savepoint " + savepointId + " of job " + jobId, kind, producerVersion, payloadFormat, properties);
        Arguments.requireNonNull("create savepoint metadata", "manifest", manifest);
        for (int i = 0; i < manifest.size(); i++) {
            Arguments.requireNonNull("create savepoint metadata", "manifest entry " + i, manifest.get(i));
        }
        manifest = List.copyOf(manifest);
        Set<String> files = new HashSet<>();
        Set<Integer> pipelines = new HashSet<>();
        for (ManifestEntry e : manifest) {
            if (!files.add(e.file()) || !pipelines.add(e.pipelineId())) {
                throw new InvalidStorageArgumentException("Cannot accept manifest of savepoint " + savepointId
                        + ": duplicate file or pipeline (" + e.file() + ", pipeline " + e.pipelineId() + ")");
            }
        }
    }

    /** The manifest entry of a pipeline, or null when the savepoint has none for it. */
    public ManifestEntry entryForPipeline(int pipelineId) {
        return manifest.stream().filter(e -> e.pipelineId() == pipelineId).findFirst().orElse(null);
    }
}
