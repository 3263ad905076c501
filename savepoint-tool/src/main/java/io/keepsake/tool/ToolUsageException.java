package io.keepsake.tool;

/**
 * The operator asked for something the tool refuses before touching storage: a missing
 * {@code --yes}, conflicting arguments, an unreadable {@code --config} file. Exits with
 * {@link ExitCodes#USAGE}.
 */
public final class ToolUsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An error with the message shown to the operator. */
    public ToolUsageException(String message) {
        super(message);
    }

    /** An error with the message shown to the operator and its cause. */
    public ToolUsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
