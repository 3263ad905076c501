package io.keepsake.storage.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The attempts this process has in flight, by work directory, shared by every view of one
 * storage, so that garbage collection never takes a directory a writer is still using.
 * Thread-safe.
 */
public final class InFlightAttempts {

    private final Set<String> workDirectories = ConcurrentHashMap.newKeySet();

    /** Records an attempt as in flight. */
    void add(String workDirectory) {
        workDirectories.add(workDirectory);
    }

    /** Records an attempt as finished (committed or aborted). */
    void remove(String workDirectory) {
        workDirectories.remove(workDirectory);
    }

    /** True while an attempt writing into {@code directory} is in flight in this process. */
    boolean contains(String directory) {
        return workDirectories.contains(directory);
    }
}
