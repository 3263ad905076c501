package io.keepsake.tool.internal;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointStorageException;

/**
 * What the tool says about one savepoint directory: ok, incomplete (no {@code _metadata.ser}: in
 * flight or abandoned), foreign (no {@code _metadata.ser} and an entry Keepsake does not write, so
 * garbage collection keeps it), corrupted or incompatible with the reason, resources exhausted (the
 * tool's JVM ran out of heap or stack reading it: nothing is known about its bytes), not found, or
 * another error. {@link #of(SavepointEntry, SavepointReaderRegistry)} looks at the metadata alone;
 * {@link #of(SavepointVerifier.Outcome)} at what {@link SavepointVerifier} read.
 *
 * @param state         the verdict
 * @param reason        why it is not ok; empty when it is
 * @param file          the file that failed to verify, when known; else null
 * @param formatVersion the format version found, when known (also for an incompatible one); else null
 */
public record SavepointStatus(State state, String reason, String file, Integer formatVersion) {

    /** The verdicts, each with the word the tool prints. */
    public enum State {
        OK("ok"), INCOMPLETE("incomplete"), FOREIGN("foreign"), CORRUPTED("corrupted"), INCOMPATIBLE("incompatible"),
        RESOURCES_EXHAUSTED("resources exhausted"), NOT_FOUND("not found"), ERROR("error");

        private final String word;

        State(String word) {
            this.word = word;
        }

        /** The word printed in the status column and in JSON. */
        public String word() {
            return word;
        }
    }

    /** Classifies one scanned directory from its metadata. */
    public static SavepointStatus of(SavepointEntry entry, SavepointReaderRegistry registry) {
        if (entry.handle().isPresent()) {
            SavepointHandle handle = entry.handle().get();
            int version = handle.meta().formatVersion();
            try {
                registry.forVersion(version);
                return new SavepointStatus(State.OK, "", null, version);
            } catch (SavepointIncompatibleException e) {
                return new SavepointStatus(State.INCOMPATIBLE, e.getMessage(), null, version);
            }
        }
        if (entry.foreign()) {
            return new SavepointStatus(State.FOREIGN, "not written by Keepsake: no _metadata.ser, and it holds "
                    + entry.foreignEntry().get() + ", which Keepsake does not write; gc keeps it", null, null);
        }
        if (entry.incomplete()) {
            return new SavepointStatus(State.INCOMPLETE, "no _metadata.ser: still being written or abandoned", null, null);
        }
        SavepointStorageException problem = entry.problem().orElse(null);
        if (problem instanceof SavepointCorruptedException c) {
            return new SavepointStatus(State.CORRUPTED, c.getMessage(), c.file(), null);
        }
        if (problem instanceof SavepointIncompatibleException i) {
            return new SavepointStatus(State.INCOMPATIBLE, i.getMessage(), null, i.foundVersion());
        }
        return new SavepointStatus(State.ERROR, problem == null ? "unknown problem" : String.valueOf(problem.getMessage()),
                null, null);
    }

    /** The status after reading every payload too: ok, or the verifier's failure with its message. */
    public static SavepointStatus of(SavepointVerifier.Outcome outcome) {
        State state = switch (outcome.failure()) {
            case NONE -> State.OK;
            case CORRUPTED -> State.CORRUPTED;
            case INCOMPATIBLE -> State.INCOMPATIBLE;
            case RESOURCES_EXHAUSTED -> State.RESOURCES_EXHAUSTED;
            case NOT_FOUND -> State.NOT_FOUND;
            case ERROR -> State.ERROR;
        };
        return new SavepointStatus(state, outcome.message(), outcome.file(), outcome.formatVersion());
    }

    /** True when the directory holds no savepoint to read: incomplete or foreign. */
    public boolean skipped() {
        return state == State.INCOMPLETE || state == State.FOREIGN;
    }

    /** The exit code this status asks for: 4 corrupted, 5 incompatible, 6 resources exhausted, 3 not found, 1 error, 0 otherwise. */
    public int exitCode() {
        return switch (state) {
            case CORRUPTED -> 4;
            case INCOMPATIBLE -> 5;
            case RESOURCES_EXHAUSTED -> 6;
            case NOT_FOUND -> 3;
            case ERROR -> 1;
            default -> 0;
        };
    }

    /** The reason for JSON: null when there is none. */
    public String reasonOrNull() {
        return reason == null || reason.isEmpty() ? null : reason;
    }

    /** The status column: the word, then the reason for a failure (incomplete and foreign stay short). */
    public String display() {
        return switch (state) {
            case OK, INCOMPLETE -> state.word();
            default -> state.word() + ": " + reason;
        };
    }
}
