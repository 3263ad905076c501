package io.keepsake.wire;

import java.io.IOException;

/**
 * The bytes do not follow the protostuff wire format, or hold a value the layout does not allow.
 * The message is a reason phrase ("a declared length exceeds the input (...)"); codecs put it after
 * "Cannot decode &lt;what&gt;: " in the {@code SavepointCorruptedException} that names the source.
 */
final class WireFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a reason phrase that ends with the offending value in parentheses. */
    public WireFormatException(String reason) {
        super(reason);
    }
}
