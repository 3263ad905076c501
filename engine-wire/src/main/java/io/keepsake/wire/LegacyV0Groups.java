package io.keepsake.wire;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the container groups of the legacy v0 layout: lists (field 1 values, field 2 null runs),
 * maps (field 1 entries holding key 1 and value 2) and {@code boolean[]} (field 1 length, field 2
 * elements). Runs of nulls are charged to the {@link BoundedInput}'s expansion budget; a field a
 * container does not hold is rejected, as protostuff rejects it. The schemas here only read:
 * {@link LegacyV0Writer} writes. Stateless and thread-safe.
 */
final class LegacyV0Groups {

    private LegacyV0Groups() {
    }

    /** Reads one value of a list element, map key or map value. */
    interface ValueReader<V> {
        V read(Input input) throws IOException;
    }

    /** Returns {@code value}, or fails naming the message and the field it lacks. */
    static <T> T required(T value, String message, int field, String name) throws WireFormatException {
        if (value == null) {
            throw new WireFormatException(message + " lacks field " + field + " (" + name + ")");
        }
        return value;
    }

    /** A schema that only reads; writing goes through {@link LegacyV0Writer}. */
    abstract static class ReadOnlySchema<T> extends LegacySchemaBase<T> {

        @SuppressWarnings({"unchecked", "rawtypes"})
        ReadOnlySchema(String messageName, Class<?> typeClass, String... fieldNames) {
            super(messageName, (Class) typeClass, fieldNames);
        }

        @Override
        public final void writeTo(Output output, T message) {
            throw new UnsupportedOperationException("the legacy " + messageName() + " reader does not write");
        }
    }

    // ---------------------------------------------------------------- List: field 1 values, field 2 null runs

    /** Reads a list group into a new list of its elements, nulls included. */
    static final class ListSchema<E> extends ReadOnlySchema<List<E>> {
        private final ValueReader<E> element;
        private final String what;

        ListSchema(ValueReader<E> element, String what) {
            super("List", List.class, "v", "n");
            this.element = element;
            this.what = what;
        }

        @Override
        public List<E> newMessage() {
            return new ArrayList<>();
        }

        @Override
        public void mergeFrom(Input input, List<E> elements) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> elements.add(element.read(input));
                    case 2 -> {
                        int nulls = input.readUInt32();
                        bounded(input).reserveExpansion(nulls, "a run of nulls in " + what);
                        for (int i = 0; i < nulls; i++) {
                            elements.add(null);
                        }
                    }
                    default -> throw new WireFormatException(what + " holds field " + number
                            + ", but a list holds only fields 1 and 2 (" + number + ")");
                }
            }
        }
    }

    // ---------------------------------------------------------------- Map: field 1 entries {1 key, 2 value}

    private static final class EntryMessage<K, V> {
        K key;
        V value;
    }

    /** Reads a map group into a new map in entry order; a missing key or value, or a repeated key, is rejected. */
    static final class MapSchema<K, V> extends ReadOnlySchema<Map<K, V>> {
        private final String what;
        private final EntrySchema<K, V> entrySchema;

        MapSchema(ValueReader<K> key, ValueReader<V> value, String what) {
            super("Map", Map.class, "e");
            this.what = what;
            this.entrySchema = new EntrySchema<>(key, value, what);
        }

        @Override
        public Map<K, V> newMessage() {
            return new LinkedHashMap<>();
        }

        @Override
        public void mergeFrom(Input input, Map<K, V> map) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                if (number != 1) {
                    throw new WireFormatException(what + " holds field " + number
                            + ", but a map holds only entries in field 1 (" + number + ")");
                }
                EntryMessage<K, V> entry = input.mergeObject(new EntryMessage<>(), entrySchema);
                required(entry.key, "an entry of " + what, 1, "key");
                required(entry.value, "an entry of " + what, 2, "value");
                if (map.containsKey(entry.key)) {
                    throw new WireFormatException(what + " holds a key twice (" + entry.key + ")");
                }
                map.put(entry.key, entry.value);
            }
        }
    }

    private static final class EntrySchema<K, V> extends ReadOnlySchema<EntryMessage<K, V>> {
        private final ValueReader<K> key;
        private final ValueReader<V> value;
        private final String what;

        EntrySchema(ValueReader<K> key, ValueReader<V> value, String what) {
            super("Entry", EntryMessage.class, "k", "v");
            this.key = key;
            this.value = value;
            this.what = what;
        }

        @Override
        public EntryMessage<K, V> newMessage() {
            return new EntryMessage<>();
        }

        @Override
        public void mergeFrom(Input input, EntryMessage<K, V> entry) throws IOException {
            for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
                switch (number) {
                    case 1 -> entry.key = key.read(input);
                    case 2 -> entry.value = value.read(input);
                    default -> throw new WireFormatException("an entry of " + what + " holds field " + number
                            + ", but an entry holds only fields 1 and 2 (" + number + ")");
                }
            }
        }
    }

    // ---------------------------------------------------------------- boolean[]: field 1 length, field 2 elements

    /** The mutable form of a {@code boolean[]}: the group's length comes first, so the array is made while reading. */
    static final class BoolArrayMessage {
        boolean[] values;
    }

    static final Schema<BoolArrayMessage> BOOL_ARRAY = new ReadOnlySchema<>("boolean[]", BoolArrayMessage.class,
            "length", "element") {
        @Override
        public BoolArrayMessage newMessage() {
            return new BoolArrayMessage();
        }

        @Override
        public void mergeFrom(Input input, BoolArrayMessage message) throws IOException {
            int number = input.readFieldNumber(this);
            if (number != 1) {
                throw new WireFormatException("a boolean[] must start with its length in field 1 (" + number + ")");
            }
            int length = input.readInt32();
            BoundedInput bounded = bounded(input);
            if (length < 0 || length > bounded.remaining() / 2) {
                throw new WireFormatException("a boolean[] declares a length that is negative or exceeds the input ("
                        + length + " declared, " + bounded.remaining() + " bytes remain)");
            }
            boolean[] values = new boolean[length];
            for (int i = 0; i < length; i++) {
                number = input.readFieldNumber(this);
                if (number != 2) {
                    throw new WireFormatException("a boolean[] of length " + length + " has field " + number
                            + " where element " + i + " (field 2) belongs (" + number + ")");
                }
                values[i] = input.readBool();
            }
            number = input.readFieldNumber(this);
            if (number != 0) {
                throw new WireFormatException("a boolean[] of length " + length + " has more fields than elements ("
                        + number + ")");
            }
            message.values = values;
        }
    };
}
