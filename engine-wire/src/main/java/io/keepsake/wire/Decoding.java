package io.keepsake.wire;

import java.io.IOException;
import java.io.UncheckedIOException;

import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointStorageException;

/**
 * Translates what a decoder throws because of its input into a typed corruption error naming the
 * source: a {@link SavepointCorruptedException} for savepoint payloads, a
 * {@link CheckpointCorruptedException} for legacy checkpoint bytes. What says nothing about the
 * input is not translated: errors of the JVM ({@link OutOfMemoryError}, {@link StackOverflowError}:
 * the decoder checks lengths and nesting before it allocates or recurses, so on its own it cannot
 * be driven to them), failures of the stream under it, and the storage's own non-corruption errors
 * propagate unchanged.
 */
final class Decoding {

    /** Which corruption error a decoder raises. */
    enum Kind {
        SAVEPOINT, LEGACY_CHECKPOINT;

        RuntimeException corrupted(String source, String message, Throwable cause) {
            return this == SAVEPOINT ? new SavepointCorruptedException(source, message, null, null, cause)
                    : new CheckpointCorruptedException(source, message, null, null, cause);
        }
    }

    private Decoding() {
    }

    /** A failure of the stream under a decoder (not of its bytes), carried out of {@link #run} unchanged. */
    static final class StreamFailure extends RuntimeException {
        private final IOException io;

        StreamFailure(IOException io) {
            super(io);
            this.io = io;
        }

        /** The stream's own exception. */
        IOException io() {
            return io;
        }
    }

    /** A decode step that may fail in any way. */
    interface Step<T> {
        T run() throws Exception;
    }

    /**
     * Runs the step and turns a failure caused by its input into a corrupted-input error.
     *
     * @throws SavepointCorruptedException when the step fails because of its input
     * @throws SavepointStorageException   unchanged, when the step throws one that is not corruption
     * @throws StreamFailure               unchanged, when the stream under the step fails
     * @throws UncheckedIOException        unchanged, when the step throws one
     * @throws VirtualMachineError         unchanged, such as an {@link OutOfMemoryError}
     */
    static <T> T run(String what, String source, Step<T> step) {
        return run(Kind.SAVEPOINT, what, source, step);
    }

    /**
     * Runs the step and turns a failure caused by its input into a corrupted-input error of {@code kind}.
     *
     * @throws SavepointCorruptedException  for {@link Kind#SAVEPOINT}, when the step fails because of its input
     * @throws CheckpointCorruptedException for {@link Kind#LEGACY_CHECKPOINT}, when the step fails because of its input
     * @throws SavepointStorageException    unchanged, when the step throws one that is not corruption
     * @throws StreamFailure                unchanged, when the stream under the step fails
     * @throws UncheckedIOException         unchanged, when the step throws one
     * @throws VirtualMachineError          unchanged, such as an {@link OutOfMemoryError}
     */
    static <T> T run(Kind kind, String what, String source, Step<T> step) {
        try {
            return step.run();
        } catch (SavepointCorruptedException | CheckpointCorruptedException e) {
            boolean same = kind == Kind.SAVEPOINT ? e instanceof SavepointCorruptedException
                    : e instanceof CheckpointCorruptedException;
            throw same ? e : kind.corrupted(source, e.getMessage(), e);
        } catch (SavepointStorageException | StreamFailure | UncheckedIOException e) {
            throw e;
        } catch (WireFormatException e) {
            throw kind.corrupted(source, "Cannot decode " + what + ": " + e.getMessage(), e);
        } catch (Exception e) {
            throw kind.corrupted(source, "Cannot decode " + what + ": invalid content, "
                    + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }
}
