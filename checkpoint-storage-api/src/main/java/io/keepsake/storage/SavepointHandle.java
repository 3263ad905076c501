package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;

/**
 * A complete, verified-at-listing savepoint: where it lives and what its metadata says.
 *
 * @param location the savepoint directory, in the backend's path syntax
 * @param meta     the verified metadata
 */
public record SavepointHandle(String location, SavepointMeta meta) {

    /** Validates the components (and copies collections). */
    public SavepointHandle {
        Arguments.requireNonNull("create savepoint handle", "location", location);
        Arguments.requireNonNull("create savepoint handle", "meta", meta);
    }

    /** The job id. */
    public String jobId() {
        return meta.jobId();
    }

    /** The savepoint id. */
    public String savepointId() {
        return meta.savepointId();
    }
}
