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
}
