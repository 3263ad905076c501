package io.keepsake.wire;

import io.protostuff.Schema;

/**
 * What the hand-written schemas that are not field tables share (the legacy layout's list, map
 * and {@code boolean[]} groups): field names by tag (the name at index i has tag i + 1), a message
 * name under a format prefix, and no required fields. Subclasses supply reading, writing and
 * message creation. Immutable and thread-safe.
 */
abstract class NamedFieldSchema<T> implements Schema<T> {

    private final String formatName;
    private final String messageName;
    private final Class<T> typeClass;
    private final String[] fieldNames;

    /** Takes the field names in tag order. */
    protected NamedFieldSchema(String formatName, String messageName, Class<T> typeClass, String... fieldNames) {
        this.formatName = formatName;
        this.messageName = messageName;
        this.typeClass = typeClass;
        this.fieldNames = fieldNames.clone();
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
        return formatName + "." + messageName;
    }

    @Override
    public final Class<? super T> typeClass() {
        return typeClass;
    }
}
