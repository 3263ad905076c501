package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;
import io.keepsake.storage.internal.Names;


/**
 * One payload of a savepoint bundle: which pipeline and checkpoint it holds, its file name
 * relative to the bundle, its exact length and its SHA-256 (lowercase hex).
 */
public record ManifestEntry(int pipelineId, long checkpointId, String file, long length, String sha256) {

    /** Validates the components (and copies collections). */
    public ManifestEntry {
        Names.requireSafeName("manifest file name", file);
        if (length < 0) {
            throw new InvalidStorageArgumentException("Cannot accept manifest entry: negative length (" + length + ")");
        }
        Arguments.requireNonNull("create manifest entry", "sha256", sha256);
        if (!sha256.matches("[0-9a-f]{64}")) {
            throw new InvalidStorageArgumentException(
                    "Cannot accept manifest entry: sha256 is not 64 lowercase hex digits (" + sha256 + ")");
        }
    }
}
