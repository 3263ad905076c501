package io.keepsake.wire;

import io.protostuff.Input;

/**
 * Boilerplate shared by the legacy layout's list, map and {@code boolean[]} schemas: names by
 * number and the bounded-input check. The legacy messages themselves are {@code FrozenSchema} tables.
 */
abstract class LegacySchemaBase<T> extends NamedFieldSchema<T> {

    /** The prefix of the legacy messages' full names. */
    static final String FORMAT_NAME = "legacy-v0";

    LegacySchemaBase(String messageName, Class<T> typeClass, String... fieldNames) {
        super(FORMAT_NAME, messageName, typeClass, fieldNames);
    }

    static BoundedInput bounded(Input input) throws WireFormatException {
        if (input instanceof BoundedInput b) {
            return b;
        }
        throw new WireFormatException("the legacy layout reads only through a bounded input ("
                + input.getClass().getName() + ")");
    }
}
