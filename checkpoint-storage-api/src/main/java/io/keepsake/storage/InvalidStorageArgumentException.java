package io.keepsake.storage;

/**
 * An id, a path, a manifest name or a configuration value is not acceptable. Nothing was read
 * or written. Messages are shaped "Cannot &lt;verb&gt; &lt;what&gt;: &lt;why&gt; (&lt;value&gt;)".
 */
public class InvalidStorageArgumentException extends KeepsakeException {
    private static final long serialVersionUID = 1L;

    /** An exception with a message. */
    public InvalidStorageArgumentException(String message) {
        super(message);
    }

    /**
     * Returns {@code value} when it is not null: the null check of a public entry point or record,
     * so a null argument is this exception naming it, never a {@link NullPointerException}.
     *
     * @param action   what was being done, such as {@code "begin savepoint"}
     * @param argument the argument's name, such as {@code "request"}
     * @throws InvalidStorageArgumentException "Cannot &lt;action&gt;: &lt;argument&gt; is null (null)"
     */
    public static <T> T requireNonNull(String action, String argument, T value) {
        if (value == null) {
            throw new InvalidStorageArgumentException("Cannot " + action + ": " + argument + " is null (null)");
        }
        return value;
    }
}
