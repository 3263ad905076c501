package io.keepsake.storage;

/**
 * One directory a garbage collection would remove, as {@link SavepointStorage#planGarbage} finds
 * it without deleting anything.
 *
 * @param jobId            the job it belongs to
 * @param path             the directory, in the backend's path syntax
 * @param what             "staging attempt" or "incomplete savepoint directory"
 * @param modificationTime epoch millis
 */
public record GcCandidate(String jobId, String path, String what, long modificationTime) {
}
