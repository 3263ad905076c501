package io.keepsake.wire;

import io.keepsake.wire.internal.NamedFieldSchema;

/** Boilerplate shared by the hand-written engine-wire-v1 schemas: field names by tag. */
abstract class WireSchema<T> extends NamedFieldSchema<T> {

    private final Class<T> typeClass;

    /** Takes the field names in tag order: the name at index i has tag i + 1. */
    WireSchema(Class<T> typeClass, String... fieldNames) {
        super(CheckpointWireCodec.FORMAT_NAME, typeClass.getSimpleName(), typeClass, fieldNames);
        this.typeClass = typeClass;
    }

    @Override
    public final T newMessage() {
        try {
            return typeClass.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot create " + typeClass.getSimpleName()
                    + ": no public no-argument constructor (" + e + ")", e);
        }
    }
}
