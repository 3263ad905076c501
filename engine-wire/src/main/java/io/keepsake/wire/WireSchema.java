package io.keepsake.wire;

import io.protostuff.Schema;

/** Boilerplate shared by the hand-written engine-wire-v1 schemas: field names by tag. */
abstract class WireSchema<T> implements Schema<T> {

    private final Class<T> typeClass;
    private final String[] fieldNames;

    /** Takes the field names in tag order: the name at index i has tag i + 1. */
    WireSchema(Class<T> typeClass, String... fieldNames) {
        this.typeClass = typeClass;
        this.fieldNames = fieldNames;
    }

    @Override
    public final String getFieldName(int number) {
        return number >= 1 && number <= fieldNames.length ? fieldNames[number - 1] : null;
    }

    @Override
    public final int getFieldNumber(String name) {
        for (int i = 0; i < fieldNames.length; i++) {
            if (fieldNames[i].equals(name)) {
                return i + 1;
            }
        }
        return 0;
    }

    @Override
    public final boolean isInitialized(T message) {
        return true;
    }

    @Override
    public final String messageName() {
        return typeClass.getSimpleName();
    }

    @Override
    public final String messageFullName() {
        return CheckpointWireCodec.FORMAT_NAME + "." + typeClass.getSimpleName();
    }

    @Override
    public final Class<? super T> typeClass() {
        return typeClass;
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
