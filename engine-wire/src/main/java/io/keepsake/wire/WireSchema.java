package io.keepsake.wire;

import java.util.function.Supplier;

/** Boilerplate shared by the hand-written engine-wire-v1 schemas: field names by tag, new messages. */
abstract class WireSchema<T> extends NamedFieldSchema<T> {

    private final Supplier<T> factory;

    /** Takes the field names in tag order: the name at index i has tag i + 1. */
    WireSchema(Class<T> typeClass, Supplier<T> factory, String... fieldNames) {
        super(CheckpointWireCodec.FORMAT_NAME, typeClass.getSimpleName(), typeClass, fieldNames);
        this.factory = factory;
    }

    @Override
    public final T newMessage() {
        return factory.get();
    }
}
