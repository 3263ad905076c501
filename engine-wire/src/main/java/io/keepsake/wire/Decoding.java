package io.keepsake.wire;

import java.io.IOException;

import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointIncompatibleException;

/**
 * Translates whatever a decoder throws into a typed corruption error naming the source: a
 * {@link SavepointCorruptedException} for savepoint payloads, a {@link CheckpointCorruptedException}
 * for legacy checkpoint bytes.
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
     * Runs the step and turns every failure into a corrupted-input error.
     *
     * @throws SavepointCorruptedException when the step fails for any reason
     */
    static <T> T run(String what, String source, Step<T> step) {
        return run(Kind.SAVEPOINT, what, source, step);
    }

    /**
     * Runs the step and turns every failure into a corrupted-input error of {@code kind}.
     *
     * @throws SavepointCorruptedException  for {@link Kind#SAVEPOINT}, when the step fails for any reason
     * @throws CheckpointCorruptedException for {@link Kind#LEGACY_CHECKPOINT}, when the step fails for any reason
     */
    static <T> T run(Kind kind, String what, String source, Step<T> step) {
        try {
            return step.run();
        } catch (SavepointIncompatibleException e) {
            throw e;
        } catch (SavepointCorruptedException | CheckpointCorruptedException e) {
            boolean same = kind == Kind.SAVEPOINT ? e instanceof SavepointCorruptedException
                    : e instanceof CheckpointCorruptedException;
            throw same ? e : kind.corrupted(source, e.getMessage(), e);
        } catch (WireFormatException e) {
            throw kind.corrupted(source, "Cannot decode " + what + ": " + e.getMessage(), e);
        } catch (StreamFailure e) {
            throw e;
        } catch (Exception e) {
            throw kind.corrupted(source, "Cannot decode " + what + ": invalid content, "
                    + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
        } catch (StackOverflowError | OutOfMemoryError e) {
            throw kind.corrupted(source, "Cannot decode " + what
                    + ": the input exhausted the decoder's resources (" + e.getClass().getSimpleName() + ")", e);
        }
    }
}
