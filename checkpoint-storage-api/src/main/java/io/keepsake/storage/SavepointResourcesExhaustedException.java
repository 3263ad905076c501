package io.keepsake.storage;

/**
 * A savepoint could not be read back because the reading JVM ran out of a resource (heap, thread
 * stack), not because of its bytes: it says nothing about whether the savepoint is damaged, so
 * it is never a {@link SavepointCorruptedException}, recovery never falls back past it, and the
 * savepoint must not be deleted for it. The message names the job, the savepoint, the file and
 * what to raise ({@code -Xmx}, {@code -Xss}); the cause is the {@link VirtualMachineError} itself.
 */
public class SavepointResourcesExhaustedException extends SavepointStorageException {
    private static final long serialVersionUID = 1L;

    /** The file being read when the resource ran out, or null when not known. */
    private final String file;

    /**
     * An exception naming the file being read when {@code cause} (an {@link OutOfMemoryError} or
     * a {@link StackOverflowError}) was thrown.
     */
    public SavepointResourcesExhaustedException(String file, String message, VirtualMachineError cause) {
        super(message, cause);
        this.file = file;
    }

    /** The file being read when the resource ran out, or null when not known. */
    public String file() {
        return file;
    }

    /**
     * The message for reading {@code file} of savepoint {@code savepointId} of job {@code jobId}
     * when {@code error} was thrown: which resource ran out, what to raise, and that the savepoint
     * is not known to be damaged.
     */
    public static String describe(String jobId, String savepointId, String file, VirtualMachineError error) {
        boolean stack = error instanceof StackOverflowError;
        String resource = stack ? "thread stack" : "heap";
        String raise = stack ? "a larger thread stack (-Xss)" : "a larger heap (-Xmx)";
        return "Cannot read savepoint " + savepointId + " of job " + jobId + ": the JVM ran out of " + resource
                + " while decoding it, which says nothing about its bytes (keepsake verify checks them in little"
                + " memory); do not delete it, retry with " + raise + " (" + error.getClass().getSimpleName()
                + (error.getMessage() == null ? "" : ": " + error.getMessage()) + " reading " + file + ")";
    }
}
