package io.keepsake.wire;

import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointIncompatibleException;

/** Translates whatever a decoder throws into a {@link SavepointCorruptedException} naming the source. */
final class Decoding {

    private Decoding() {
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
        try {
            return step.run();
        } catch (SavepointCorruptedException | SavepointIncompatibleException e) {
            throw e;
        } catch (WireFormatException e) {
            throw new SavepointCorruptedException(source, "Cannot decode " + what + ": " + e.getMessage(),
                    null, null, e);
        } catch (Exception e) {
            throw new SavepointCorruptedException(source, "Cannot decode " + what + ": invalid content, "
                    + e.getClass().getSimpleName() + ": " + e.getMessage(), null, null, e);
        } catch (StackOverflowError | OutOfMemoryError e) {
            throw new SavepointCorruptedException(source, "Cannot decode " + what
                    + ": the input exhausted the decoder's resources (" + e.getClass().getSimpleName() + ")",
                    null, null, e);
        }
    }
}
