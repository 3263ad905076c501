package io.keepsake.wire;

import io.keepsake.storage.internal.FrozenSchema;

import java.util.function.Supplier;

/** Starts the field table of an engine-wire-v1 message: its names under the format's name. */
final class WireSchema {

    private WireSchema() {
    }

    /** The table of {@code typeClass}'s fields, tag 1 first; messages read into {@code factory}'s. */
    static <T> FrozenSchema.Table<T> table(Class<T> typeClass, Supplier<T> factory) {
        return FrozenSchema.table(typeClass.getSimpleName(),
                CheckpointWireCodec.FORMAT_NAME + "." + typeClass.getSimpleName(), typeClass, factory);
    }
}
