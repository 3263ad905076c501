package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;

import java.util.Optional;

/**
 * One directory under a job's savepoint folder as an operator sees it: either a complete
 * savepoint whose metadata verified, or a problem that says why it is not one.
 *
 * @param savepointId      the directory name
 * @param location         the directory, in the backend's path syntax
 * @param modificationTime the directory's modification time, epoch millis
 * @param handle           the verified savepoint, when its metadata verified
 * @param problem          why it is not a complete savepoint, when it is not
 * @param foreignEntry     for a directory without {@code _metadata.ser}: its first entry that no
 *                         Keepsake attempt writes, when it holds one; garbage collection leaves such a
 *                         directory alone, so it stays until someone removes that entry
 */
public record SavepointEntry(String savepointId, String location, long modificationTime,
                             Optional<SavepointHandle> handle, Optional<SavepointStorageException> problem,
                             Optional<String> foreignEntry) {

    /** Checks that the id, the location and the optionals are given. */
    public SavepointEntry {
        Arguments.requireNonNull("create savepoint entry", "savepointId", savepointId);
        Arguments.requireNonNull("create savepoint entry", "location", location);
        Arguments.requireNonNull("create savepoint entry", "handle", handle);
        Arguments.requireNonNull("create savepoint entry", "problem", problem);
        Arguments.requireNonNull("create savepoint entry", "foreignEntry", foreignEntry);
    }

    /** An entry whose directory holds nothing Keepsake did not write, as far as is known. */
    public SavepointEntry(String savepointId, String location, long modificationTime,
                          Optional<SavepointHandle> handle, Optional<SavepointStorageException> problem) {
        this(savepointId, location, modificationTime, handle, problem, Optional.empty());
    }

    /** True when {@code _metadata.ser} is absent: a directory that never became a savepoint. */
    public boolean incomplete() {
        return handle.isEmpty() && problem.map(p -> p instanceof SavepointNotFoundException).orElse(false);
    }

    /**
     * True when the directory has no {@code _metadata.ser} and holds an entry Keepsake does not
     * write: not Keepsake's to remove, so garbage collection keeps it.
     */
    public boolean foreign() {
        return incomplete() && foreignEntry.isPresent();
    }

    /** The time used for "newest first": completion time when known, else the directory's. */
    public long sortTime() {
        return handle.map(h -> h.meta().completedTimestamp()).orElse(modificationTime);
    }
}
