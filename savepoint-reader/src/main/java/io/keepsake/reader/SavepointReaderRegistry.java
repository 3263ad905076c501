package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.Versions;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One reader per savepoint format version, and the window this build reads: versions
 * {@link #MIN_SUPPORTED_FORMAT_VERSION} to {@link #CURRENT_FORMAT_VERSION}. Below the window
 * (version 0 is the unversioned legacy blob) the error says to run {@code keepsake migrate};
 * above it, that a newer engine wrote the savepoint and which version would read it. Writers
 * write {@link #CURRENT_FORMAT_VERSION} unless configured to write an older version of the window
 * ({@code savepoint.format-version}). Applications use {@link #standard()}, the registry
 * {@link SavepointRestorer} and the operator tool read with; there is no public constructor.
 * Immutable and thread-safe.
 */
public final class SavepointReaderRegistry {

    /** The version writers write by default, and the newest this build reads. */
    public static final int CURRENT_FORMAT_VERSION = Versions.CURRENT_FORMAT_VERSION;

    /** The oldest version this build reads. */
    public static final int MIN_SUPPORTED_FORMAT_VERSION = Versions.OLDEST_FORMAT_VERSION;

    private static final SavepointReaderRegistry DEFAULT = new SavepointReaderRegistry(
            List.of(new V1SavepointReader(), new V2SavepointReader()));

    private final TreeMap<Integer, SavepointFormatReader> readers = new TreeMap<>();
    private final int oldest;
    private final int newest;

    /**
     * A registry of exactly these readers, one per version, whose window runs from the oldest
     * version among them to the newest. Package-private, not API: this package's tests use it to
     * stand for an older or newer build's registry (a build whose window ends at version 1);
     * applications use {@link #standard()}.
     *
     * @throws IllegalArgumentException when there is no reader, two read one version, or a version inside the window has none
     */
    SavepointReaderRegistry(List<? extends SavepointFormatReader> readers) {
        for (SavepointFormatReader reader : readers) {
            if (this.readers.put(reader.formatVersion(), reader) != null) {
                throw new IllegalArgumentException("Cannot register two readers of format version "
                        + reader.formatVersion());
            }
        }
        if (this.readers.isEmpty()) {
            throw new IllegalArgumentException("Cannot build a reader registry without readers");
        }
        this.oldest = this.readers.firstKey();
        this.newest = this.readers.lastKey();
        if (newest - oldest + 1 != this.readers.size()) {
            throw new IllegalArgumentException("Cannot build a reader registry with a gap in its window: "
                    + this.readers.keySet());
        }
    }

    /** The registry of this build. */
    public static SavepointReaderRegistry standard() {
        return DEFAULT;
    }

    /**
     * The reader of a format version.
     *
     * @throws SavepointIncompatibleException when the version is outside the supported window
     */
    public SavepointFormatReader forVersion(int version) {
        return forVersion(version, "a savepoint");
    }

    /** The oldest format version this registry reads. */
    public int oldestVersion() {
        return oldest;
    }

    /** The newest format version this registry reads. */
    public int newestVersion() {
        return newest;
    }

    private SavepointFormatReader forVersion(int version, String what) {
        String window = oldest + " to " + newest;
        if (version < oldest) {
            throw new SavepointIncompatibleException("Cannot read " + what + " in format version " + version
                    + ": this build reads versions " + window + "; run 'keepsake migrate' to rewrite it in version "
                    + newest, version, oldest, newest);
        }
        SavepointFormatReader reader = readers.get(version);
        if (reader == null) {
            throw new SavepointIncompatibleException("Cannot read " + what + " in format version " + version
                    + ": a newer engine wrote it; this build reads versions " + window + "; restore it with a Keepsake"
                    + " build that reads format version " + version, version, oldest, newest);
        }
        return reader;
    }

    /**
     * Reads a savepoint with the reader of its format version.
     *
     * @throws SavepointIncompatibleException when its version is outside the window
     * @throws SavepointCorruptedException when any byte does not verify
     * @throws SavepointResourcesExhaustedException when the JVM runs out of heap or stack decoding a payload
     * @throws SavepointStorageException when reading a payload fails
     */
    public Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle) {
        InvalidStorageArgumentException.requireNonNull("read savepoint", "storage", storage);
        InvalidStorageArgumentException.requireNonNull("read savepoint", "handle", handle);
        return forVersion(handle.meta().formatVersion(), "savepoint " + handle.savepointId() + " of job "
                + handle.jobId() + " (" + handle.location() + ")").read(storage, handle);
    }

    /**
     * Reads, verifies and decodes a savepoint with the reader of its format version without
     * keeping its state, in bounded memory; returns the pipeline ids that checked, in order.
     *
     * @throws SavepointIncompatibleException when its version is outside the window
     * @throws SavepointCorruptedException when any byte does not verify or decode
     * @throws SavepointResourcesExhaustedException when the JVM runs out of heap or stack decoding a payload
     * @throws SavepointStorageException when reading a payload fails
     */
    public List<Integer> check(SavepointStorage storage, SavepointHandle handle) {
        InvalidStorageArgumentException.requireNonNull("check savepoint", "storage", storage);
        InvalidStorageArgumentException.requireNonNull("check savepoint", "handle", handle);
        return forVersion(handle.meta().formatVersion(), "savepoint " + handle.savepointId() + " of job "
                + handle.jobId() + " (" + handle.location() + ")").check(storage, handle);
    }
}
