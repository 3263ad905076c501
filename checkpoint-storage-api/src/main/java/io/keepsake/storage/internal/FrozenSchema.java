package io.keepsake.storage.internal;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ObjIntConsumer;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * A protostuff {@link Schema} written by hand as a table of frozen tags: the field at index i of
 * the table has tag i + 1 and says how it is written and read. {@link #writeTo} writes the fields in
 * tag order: int32, int64 and bool fields always, strings, byte arrays and single groups only when
 * they are not null, and a repeated field once per element that is not null, with no collection
 * wrapper. {@link #mergeFrom} reads fields in any order, adds each element of a repeated field to
 * its list, and skips unknown tags. These are the rules protostuff's {@code RuntimeSchema} follows
 * in a JVM with default settings, but the bytes depend only on the table, never on JVM-wide
 * protostuff settings. No field is required. Immutable and thread-safe.
 *
 * @param <T> the mutable message the table reads and writes
 */
public final class FrozenSchema<T> implements Schema<T> {

    /** Writes one field of a message under its tag. */
    @FunctionalInterface
    public interface FieldWriter<T> {
        void write(Output output, int tag, T message) throws IOException;
    }

    /** Reads one field, whose tag was just read, into a message. */
    @FunctionalInterface
    public interface FieldReader<T> {
        void read(Input input, T message) throws IOException;
    }

    /** Sets a bool field. */
    @FunctionalInterface
    public interface ObjBooleanConsumer<T> {
        void accept(T message, boolean value);
    }

    /** Writes one value under a tag. */
    @FunctionalInterface
    public interface ValueWriter<V> {
        void write(Output output, int tag, V value, boolean repeated) throws IOException;
    }

    /** Reads one value whose tag was just read. */
    @FunctionalInterface
    public interface ValueReader<V> {
        V read(Input input) throws IOException;
    }

    /**
     * How one value of a type is written and read: what a nullable field or a repeated field's
     * element holds.
     */
    public record Value<V>(ValueWriter<V> writer, ValueReader<V> reader) {
    }

    /** A string, as UTF-8 bytes. */
    public static final Value<String> STRING = new Value<>(Output::writeString, Input::readString);

    /** A byte array. */
    public static final Value<byte[]> BYTES = new Value<>(Output::writeByteArray, Input::readByteArray);

    /** An int32 element of a repeated field. */
    public static final Value<Integer> INT32 = new Value<>(Output::writeInt32, Input::readInt32);

    /** A bool element of a repeated field. */
    public static final Value<Boolean> BOOL = new Value<>(Output::writeBool, Input::readBool);

    /** A nested message of {@code schema}, as a group. */
    public static <M> Value<M> group(Schema<M> schema) {
        return new Value<>((output, tag, value, repeated) -> output.writeObject(tag, value, schema, repeated),
                input -> input.mergeObject(null, schema));
    }

    private record Field<T>(String name, FieldWriter<T> writer, FieldReader<T> reader) {
    }

    private final String messageName;
    private final String messageFullName;
    private final Class<T> typeClass;
    private final Supplier<T> factory;
    private final List<Field<T>> fields;

    private FrozenSchema(Table<T> table) {
        this.messageName = table.messageName;
        this.messageFullName = table.messageFullName;
        this.typeClass = table.typeClass;
        this.factory = table.factory;
        this.fields = List.copyOf(table.fields);
    }

    /**
     * Starts the table of a message.
     *
     * @param messageName     the short name protostuff reports for the message
     * @param messageFullName its qualified name
     * @param typeClass       the class of the message
     * @param factory         makes an empty message to read into
     */
    public static <T> Table<T> table(String messageName, String messageFullName, Class<T> typeClass,
            Supplier<T> factory) {
        return new Table<>(messageName, messageFullName, typeClass, factory);
    }

    @Override
    public String getFieldName(int number) {
        return number >= 1 && number <= fields.size() ? fields.get(number - 1).name() : null;
    }

    @Override
    public int getFieldNumber(String name) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).name().equals(name)) {
                return i + 1;
            }
        }
        return 0;
    }

    @Override
    public boolean isInitialized(T message) {
        return true;
    }

    @Override
    public T newMessage() {
        return factory.get();
    }

    @Override
    public String messageName() {
        return messageName;
    }

    @Override
    public String messageFullName() {
        return messageFullName;
    }

    @Override
    public Class<? super T> typeClass() {
        return typeClass;
    }

    @Override
    public void mergeFrom(Input input, T message) throws IOException {
        for (int number = input.readFieldNumber(this); number != 0; number = input.readFieldNumber(this)) {
            if (number <= fields.size()) {
                fields.get(number - 1).reader().read(input, message);
            } else {
                input.handleUnknownField(number, this);
            }
        }
    }

    @Override
    public void writeTo(Output output, T message) throws IOException {
        for (int i = 0; i < fields.size(); i++) {
            fields.get(i).writer().write(output, i + 1, message);
        }
    }

    /** The fields of a message in tag order, from tag 1; {@link #build} makes the schema. */
    public static final class Table<T> {
        private final String messageName;
        private final String messageFullName;
        private final Class<T> typeClass;
        private final Supplier<T> factory;
        private final List<Field<T>> fields = new ArrayList<>();

        private Table(String messageName, String messageFullName, Class<T> typeClass, Supplier<T> factory) {
            this.messageName = messageName;
            this.messageFullName = messageFullName;
            this.typeClass = typeClass;
            this.factory = factory;
        }

        /** The next tag, written and read as the two functions say. */
        public Table<T> field(String name, FieldWriter<T> writer, FieldReader<T> reader) {
            fields.add(new Field<>(name, writer, reader));
            return this;
        }

        /** The next tag, read by {@code reader} and never written: a field of a layout this schema only reads. */
        public Table<T> readOnly(String name, FieldReader<T> reader) {
            String message = messageName;
            return field(name, (output, tag, m) -> {
                throw new UnsupportedOperationException("the " + message + " schema only reads (" + name + ")");
            }, reader);
        }

        /**
         * The next tag, written from {@code get} when it is not null and never read: a field of a
         * layout this schema only writes.
         */
        public <V> Table<T> writeOnly(String name, ValueWriter<V> value, Function<T, V> get) {
            String message = messageName;
            return field(name, whenPresent(value, get), (input, m) -> {
                throw new UnsupportedOperationException("the " + message + " schema only writes (" + name + ")");
            });
        }

        /** The next tag: an int32, always written. */
        public Table<T> int32(String name, ToIntFunction<T> get, ObjIntConsumer<T> set) {
            return field(name, (output, tag, m) -> output.writeInt32(tag, get.applyAsInt(m), false),
                    (input, m) -> set.accept(m, input.readInt32()));
        }

        /** The next tag: an int64, always written. */
        public Table<T> int64(String name, ToLongFunction<T> get, ObjLongConsumer<T> set) {
            return field(name, (output, tag, m) -> output.writeInt64(tag, get.applyAsLong(m), false),
                    (input, m) -> set.accept(m, input.readInt64()));
        }

        /** The next tag: a bool, always written. */
        public Table<T> bool(String name, Predicate<T> get, ObjBooleanConsumer<T> set) {
            return field(name, (output, tag, m) -> output.writeBool(tag, get.test(m), false),
                    (input, m) -> set.accept(m, input.readBool()));
        }

        /** The next tag: a string, written when it is not null. */
        public Table<T> string(String name, Function<T, String> get, BiConsumer<T, String> set) {
            return optional(name, STRING, get, set);
        }

        /** The next tag: a byte array, written when it is not null. */
        public Table<T> bytes(String name, Function<T, byte[]> get, BiConsumer<T, byte[]> set) {
            return optional(name, BYTES, get, set);
        }

        /** The next tag: one value, written when it is not null. */
        public <V> Table<T> optional(String name, Value<V> value, Function<T, V> get, BiConsumer<T, V> set) {
            return field(name, whenPresent(value.writer(), get),
                    (input, m) -> set.accept(m, value.reader().read(input)));
        }

        /**
         * The next tag: a repeated field, written once per element that is not null; each element
         * read is added to the list {@code list} returns, which must not be null when reading.
         */
        public <V> Table<T> repeated(String name, Value<V> value, Function<T, List<V>> list) {
            return field(name, (output, tag, m) -> {
                List<V> elements = list.apply(m);
                if (elements != null) {
                    for (V element : elements) {
                        if (element != null) {
                            value.writer().write(output, tag, element, true);
                        }
                    }
                }
            }, (input, m) -> list.apply(m).add(value.reader().read(input)));
        }

        /** Writes what {@code get} returns, unless it is null. */
        private static <T, V> FieldWriter<T> whenPresent(ValueWriter<V> value, Function<T, V> get) {
            return (output, tag, m) -> {
                V v = get.apply(m);
                if (v != null) {
                    value.write(output, tag, v, false);
                }
            };
        }

        /** The schema of this table. */
        public FrozenSchema<T> build() {
            return new FrozenSchema<>(this);
        }
    }
}
