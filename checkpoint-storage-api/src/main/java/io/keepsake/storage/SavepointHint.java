package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;

import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One folder under a job's savepoint folder as a listing shows it, with what its index marker
 * claims it holds, found without reading its metadata. A claim is a hint, never a verdict: read
 * and verify the metadata ({@link SavepointStorage#readMetadata}) before trusting it.
 *
 * @param savepointId      the folder name
 * @param modificationTime the folder's modification time, epoch millis, for a folder without a
 *                         claim; {@link #TIME_NOT_READ} for a claimed one, whose time is not read
 *                         (its metadata's completion time is what orders it)
 * @param claims           checkpoint id by pipeline id as the marker claims; empty when the folder
 *                         has no marker (or conflicting ones), so only its metadata can tell
 * @param completed        the completion time (epoch millis) the marker claims, which orders
 *                         savepoints tying on a checkpoint id; empty when the folder has no
 *                         claims or its marker does not carry the time (written before markers
 *                         did, or too long with it)
 */
public record SavepointHint(String savepointId, long modificationTime, Map<Integer, Long> claims,
                            OptionalLong completed) {

    /** The modification time of a claimed folder: not read, to keep a lookup to two listings. */
    public static final long TIME_NOT_READ = Long.MIN_VALUE;

    /** Validates the components (and copies the claims, sorted by pipeline id). */
    public SavepointHint {
        Arguments.requireNonNull("create savepoint hint", "savepointId", savepointId);
        Arguments.requireNonNull("create savepoint hint", "claims", claims);
        Arguments.requireNonNull("create savepoint hint", "completed", completed);
        claims = claims.isEmpty() ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(claims));
        if (claims.isEmpty()) {
            completed = OptionalLong.empty();
        }
    }

    /** A hint whose claims carry no completion time. */
    public SavepointHint(String savepointId, long modificationTime, Map<Integer, Long> claims) {
        this(savepointId, modificationTime, claims, OptionalLong.empty());
    }

    /** What a savepoint's verified metadata says, as a hint: its manifest's claims and its completion time. */
    public static SavepointHint of(SavepointHandle handle, long modificationTime) {
        Arguments.requireNonNull("create savepoint hint", "handle", handle);
        Map<Integer, Long> claims = new TreeMap<>();
        handle.meta().manifest().forEach(e -> claims.put(e.pipelineId(), e.checkpointId()));
        return new SavepointHint(handle.savepointId(), modificationTime, claims,
                OptionalLong.of(handle.meta().completedTimestamp()));
    }

    /** True when the folder has a marker, so its claims are known without reading its metadata. */
    public boolean claimed() {
        return !claims.isEmpty();
    }
}
