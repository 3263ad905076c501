package io.keepsake.tool.internal;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointStorageException;

/**
 * What {@code keepsake list} says about one savepoint directory, from its metadata alone: ok
 * (the metadata verified and this build reads its format version), incomplete (no
 * {@code _metadata.ser}: in flight or abandoned), corrupted or incompatible with the reason, or
 * another error. Payload bytes are not read here; {@code keepsake verify} reads them.
 *
 * @param state  the verdict
 * @param reason why it is not ok; empty when it is
 */
public record SavepointStatus(State state, String reason) {

    /** The verdicts, each with the word the tool prints. */
    public enum State {
        OK("ok"), INCOMPLETE("incomplete"), CORRUPTED("corrupted"), INCOMPATIBLE("incompatible"), ERROR("error");

        private final String word;

        State(String word) {
            this.word = word;
        }

        /** The word printed in the status column. */
        public String word() {
            return word;
        }
    }

    /** Classifies one scanned directory. */
    public static SavepointStatus of(SavepointEntry entry, SavepointReaderRegistry registry) {
        if (entry.handle().isPresent()) {
            SavepointHandle handle = entry.handle().get();
            try {
                registry.forVersion(handle.meta().formatVersion());
                return new SavepointStatus(State.OK, "");
            } catch (SavepointIncompatibleException e) {
                return new SavepointStatus(State.INCOMPATIBLE, e.getMessage());
            }
        }
        if (entry.incomplete()) {
            return new SavepointStatus(State.INCOMPLETE, "no _metadata.ser: still being written or abandoned");
        }
        SavepointStorageException problem = entry.problem().orElse(null);
        if (problem instanceof SavepointCorruptedException) {
            return new SavepointStatus(State.CORRUPTED, problem.getMessage());
        }
        if (problem instanceof SavepointIncompatibleException) {
            return new SavepointStatus(State.INCOMPATIBLE, problem.getMessage());
        }
        return new SavepointStatus(State.ERROR, problem == null ? "unknown problem" : problem.getMessage());
    }

    /** The status after reading every payload too: ok, or the verifier's failure with its message. */
    public static SavepointStatus of(SavepointVerifier.Outcome outcome) {
        return switch (outcome.failure()) {
            case NONE -> new SavepointStatus(State.OK, "");
            case CORRUPTED -> new SavepointStatus(State.CORRUPTED, outcome.message());
            case INCOMPATIBLE -> new SavepointStatus(State.INCOMPATIBLE, outcome.message());
            case NOT_FOUND -> new SavepointStatus(State.INCOMPLETE, outcome.message());
            case ERROR -> new SavepointStatus(State.ERROR, outcome.message());
        };
    }

    /** The exit code this status asks for: 4 corrupted, 5 incompatible, 1 error, 0 ok or incomplete. */
    public int exitCode() {
        return switch (state) {
            case CORRUPTED -> 4;
            case INCOMPATIBLE -> 5;
            case ERROR -> 1;
            default -> 0;
        };
    }

    /** The status column: the word, then the reason when there is one. */
    public String display() {
        return state == State.OK || state == State.INCOMPLETE ? state.word() : state.word() + ": " + reason;
    }
}
