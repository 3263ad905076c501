package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;

/**
 * The null checks of the public API's entry points and records, so a null argument is an
 * {@link InvalidStorageArgumentException} naming it, never a {@link NullPointerException}; the
 * same check as {@link InvalidStorageArgumentException#requireNonNull}, which modules outside this
 * one call.
 */
public final class Arguments {

    private Arguments() {
    }

    /**
     * Returns {@code value} when it is not null.
     *
     * @param action   what was being done, such as {@code "begin savepoint"}
     * @param argument the argument's name, such as {@code "request"}
     * @throws InvalidStorageArgumentException "Cannot &lt;action&gt;: &lt;argument&gt; is null (null)"
     */
    public static <T> T requireNonNull(String action, String argument, T value) {
        return InvalidStorageArgumentException.requireNonNull(action, argument, value);
    }
}
