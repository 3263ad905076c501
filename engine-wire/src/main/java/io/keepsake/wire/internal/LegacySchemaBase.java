package io.keepsake.wire.internal;

import io.protostuff.Input;
import io.protostuff.Schema;

/** Boilerplate shared by the hand-written schemas: names by number and the bounded-input check. */
abstract class LegacySchemaBase<T> implements Schema<T> {

    private final String messageName;
    private final Class<T> typeClass;
    private final String[] fieldNames;

    LegacySchemaBase(String messageName, Class<T> typeClass, String... fieldNames) {
        this.messageName = messageName;
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
        return messageName;
    }

    @Override
    public final String messageFullName() {
        return "legacy-v0." + messageName;
    }

    @Override
    public final Class<? super T> typeClass() {
        return typeClass;
    }

    static BoundedInput bounded(Input input) throws WireFormatException {
        if (input instanceof BoundedInput b) {
            return b;
        }
        throw new WireFormatException("the legacy layout reads only through a bounded input ("
                + input.getClass().getName() + ")");
    }
}
