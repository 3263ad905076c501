package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.Versions;
import io.keepsake.storage.internal.Arguments;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One reader per savepoint format version, and the window this build reads. Below the window
 * (version 0 is the unversioned legacy blob) the error says to run {@code keepsake migrate};
 * above it, that a newer engine wrote the savepoint and which version would read it. Writers
 * always write {@link #CURRENT_FORMAT_VERSION}. Immutable and thread-safe.
 */
public final class SavepointReaderRegistry {

    /** The version every writer writes. */
    public static final int CURRENT_FORMAT_VERSION = Versions.CURRENT_FORMAT_VERSION;

    /** The oldest version this build reads. */
    public static final int MIN_SUPPORTED_FORMAT_VERSION = 1;

    private static final SavepointReaderRegistry DEFAULT = new SavepointReaderRegistry(Map.of(1, new V1SavepointReader()));

    private final Map<Integer, SavepointFormatReader> readers;

    private SavepointReaderRegistry(Map<Integer, SavepointFormatReader> readers) {
        this.readers = new TreeMap<>(readers);
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

    private SavepointFormatReader forVersion(int version, String what) {
        String window = MIN_SUPPORTED_FORMAT_VERSION + " to " + CURRENT_FORMAT_VERSION;
        if (version < MIN_SUPPORTED_FORMAT_VERSION) {
            throw new SavepointIncompatibleException("Cannot read " + what + " in format version " + version
                    + ": this build reads versions " + window + "; run 'keepsake migrate' to rewrite it in version "
                    + CURRENT_FORMAT_VERSION, version, MIN_SUPPORTED_FORMAT_VERSION, CURRENT_FORMAT_VERSION);
        }
        SavepointFormatReader reader = readers.get(version);
        if (reader == null) {
            throw new SavepointIncompatibleException("Cannot read " + what + " in format version " + version
                    + ": a newer engine wrote it; this build reads versions " + window + "; restore it with a Keepsake"
                    + " build that reads format version " + version, version, MIN_SUPPORTED_FORMAT_VERSION,
                    CURRENT_FORMAT_VERSION);
        }
        return reader;
    }

    /**
     * Reads a savepoint with the reader of its format version.
     *
     * @throws SavepointIncompatibleException when its version is outside the window
     * @throws io.keepsake.storage.SavepointCorruptedException when any byte does not verify
     */
    public Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle) {
        Arguments.requireNonNull("read savepoint", "storage", storage);
        Arguments.requireNonNull("read savepoint", "handle", handle);
        return forVersion(handle.meta().formatVersion(), "savepoint " + handle.savepointId() + " of job "
                + handle.jobId() + " (" + handle.location() + ")").read(storage, handle);
    }

    /**
     * Reads, verifies and decodes a savepoint with the reader of its format version without
     * keeping its state, in bounded memory; returns the pipeline ids that checked, in order.
     *
     * @throws SavepointIncompatibleException when its version is outside the window
     * @throws io.keepsake.storage.SavepointCorruptedException when any byte does not verify or decode
     */
    public List<Integer> check(SavepointStorage storage, SavepointHandle handle) {
        Arguments.requireNonNull("check savepoint", "storage", storage);
        Arguments.requireNonNull("check savepoint", "handle", handle);
        return forVersion(handle.meta().formatVersion(), "savepoint " + handle.savepointId() + " of job "
                + handle.jobId() + " (" + handle.location() + ")").check(storage, handle);
    }
}
