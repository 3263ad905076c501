package io.keepsake.wire;

import io.protostuff.ByteString;
import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;
import io.protostuff.WireFormat;
import io.keepsake.storage.KeptArrayInput;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A strict reader of the protostuff wire format (nested messages as start/end groups) over a byte
 * array or a stream, for untrusted input.
 *
 * <p>Unlike protostuff's own {@code ByteArrayInput} it never trusts a declared length: every length
 * is checked against the bytes that may remain, without integer overflow, before anything is
 * allocated. It checks that each field is read with the wire type its tag declares, that every
 * end-group tag closes the group it should, that the input does not end inside a group, and it
 * skips unknown fields (including whole unknown groups) iteratively, so hostile nesting cannot
 * overflow the stack. It also keeps a budget of "expanded" elements (such as runs of nulls a few
 * bytes can declare) so that a small input cannot demand a huge allocation.
 *
 * <p>Over a stream it holds one buffer of {@link #STREAM_BUFFER_BYTES}, never the whole input: a
 * byte array field longer than what the buffer holds is read from the stream straight into the
 * array it becomes (through {@link KeptArrayInput#readKept} when the stream offers it, so that a
 * verifying stream can hash that array on another thread). The bound of a stream is the most bytes
 * it may hold; a declared length beyond what is left of it is refused before any allocation, and
 * a byte array above {@link #EXACT_ALLOCATION_BYTES} grows as its bytes arrive, so a bound larger
 * than the real input cannot make the reader allocate more than that many bytes ahead of them.
 * With {@code retainByteArrays} off, byte array fields are read, checked for length and dropped
 * (decoded as empty arrays): a structural check in bounded memory.
 *
 * <p>Every failure is a {@link WireFormatException}. Not thread-safe: one instance per decode.
 */
final class BoundedInput implements Input {

    /** Deepest group nesting accepted, counting known and skipped groups. */
    public static final int MAX_DEPTH = 64;

    /** The buffer between a stream and the reader: 16 KiB. */
    static final int STREAM_BUFFER_BYTES = 16 * 1024;

    /** Byte arrays up to this size are allocated whole once their length is checked; longer ones grow: 32 MiB. */
    static final int EXACT_ALLOCATION_BYTES = 32 * 1024 * 1024;

    private static final byte[] EMPTY = new byte[0];

    private final InputStream in;
    private final long bound;
    private final boolean capped;
    private final boolean retainByteArrays;
    private byte[] buffer;
    private int limit;
    private int offset;
    private long base;
    private int lastTag;
    private int depth;
    private final int[] openGroups = new int[MAX_DEPTH];
    private boolean groupClosed;
    private long expansionBudget;

    /**
     * Creates a reader over the whole array.
     *
     * @param buffer          the bytes to read
     * @param expansionBudget how many elements {@link #reserveExpansion} may hand out in total
     */
    public BoundedInput(byte[] buffer, long expansionBudget) {
        this.in = null;
        this.buffer = buffer;
        this.limit = buffer.length;
        this.bound = buffer.length;
        this.capped = false;
        this.retainByteArrays = true;
        this.expansionBudget = expansionBudget;
    }

    /**
     * Creates a reader over a stream that holds at most {@code bound} bytes; the stream stays open.
     *
     * @param in               the stream, read up to its end
     * @param bound            the most bytes the stream may hold
     * @param capped           true when the bound is a cap rather than the stream's known length,
     *                         for the wording of errors
     * @param retainByteArrays false to read byte array fields without keeping them
     * @param expansionBudget  how many elements {@link #reserveExpansion} may hand out in total
     */
    BoundedInput(InputStream in, long bound, boolean capped, boolean retainByteArrays, long expansionBudget) {
        this.in = in;
        this.buffer = new byte[(int) Math.max(16, Math.min(STREAM_BUFFER_BYTES, bound + 1))];
        this.bound = bound;
        this.capped = capped;
        this.retainByteArrays = retainByteArrays;
        this.expansionBudget = expansionBudget;
    }

    /**
     * Reads a whole top-level message with the given schema and checks that every byte was used.
     *
     * @throws WireFormatException when the bytes are malformed for the schema
     */
    public <T> T readMessage(T message, Schema<T> schema) throws IOException {
        schema.mergeFrom(this, message);
        if (depth != 0 || hasMore()) {
            throw new WireFormatException("the message ended before the input did (offset "
                    + offset() + (in == null ? " of " + limit : "") + ")");
        }
        return message;
    }

    /** Returns the read position, for error messages. */
    public int offset() {
        return (int) Math.min(Integer.MAX_VALUE, base + offset);
    }

    /** Returns how many bytes remain unread (over a stream, how many more it may hold). */
    public int remaining() {
        return (int) Math.min(Integer.MAX_VALUE, left());
    }

    private long position() {
        return base + offset;
    }

    private long left() {
        return bound - position();
    }

    /** True when another byte can be read; over a stream, refills the buffer to find out. */
    private boolean hasMore() throws IOException {
        return offset < limit || (in != null && refill() > 0);
    }

    /**
     * Moves the unread bytes to the front of the buffer and reads more after them; returns how
     * many bytes are now unread (0 at the end of the stream).
     */
    private int refill() throws IOException {
        if (in == null) {
            return limit - offset;
        }
        int unread = limit - offset;
        if (offset > 0) {
            System.arraycopy(buffer, offset, buffer, 0, unread);
            base += offset;
            offset = 0;
            limit = unread;
        }
        int n = in.read(buffer, limit, buffer.length - limit);
        if (n > 0) {
            limit += n;
            if (base + limit > bound) {
                throw tooLong();
            }
        }
        return limit - offset;
    }

    private WireFormatException tooLong() {
        return new WireFormatException(capped ? "the payload is longer than the cap of " + bound + " bytes"
                : "the input is longer than its " + bound + " bytes");
    }

    /** Makes {@code count} bytes (at most the buffer's size) readable at {@code offset}, or fails. */
    private void require(int count) throws IOException {
        while (limit - offset < count) {
            int before = limit - offset;
            if (in == null || refill() == before) {
                throw new WireFormatException(count + " bytes are needed but "
                        + (limit - offset) + " remain (offset " + offset() + ")");
            }
        }
    }

    private byte nextByte(String inside) throws IOException {
        if (offset == limit && (in == null || refill() == 0)) {
            throw new WireFormatException("the input ends inside " + inside + " (offset " + offset() + ")");
        }
        return buffer[offset++];
    }

    /**
     * Takes {@code count} elements from the expansion budget, for data whose size the input declares
     * but does not pay for byte by byte.
     *
     * @throws WireFormatException when the count is negative or the budget is exhausted
     */
    public void reserveExpansion(long count, String what) throws WireFormatException {
        if (count < 0) {
            throw new WireFormatException(what + " declares a negative count (" + count + ")");
        }
        if (count > expansionBudget) {
            throw new WireFormatException(what + " declares more elements than one input may expand to (" + count
                    + " declared, " + expansionBudget + " left)");
        }
        expansionBudget -= count;
    }

    /** Returns the wire type of the field just read by {@link #readFieldNumber}. */
    public int lastWireType() {
        return lastTag & 7;
    }

    @Override
    public <T> int readFieldNumber(Schema<T> schema) throws IOException {
        if (!hasMore()) {
            if (depth != 0) {
                throw new WireFormatException("the input ends inside group field "
                        + openGroups[depth - 1] + " (offset " + offset() + ")");
            }
            lastTag = 0;
            return 0;
        }
        long tagOffset = position();
        int tag = readRawVarint32();
        int number = tag >>> 3;
        int wireType = tag & 7;
        if (number == 0) {
            throw new WireFormatException("a tag has field number 0 (offset " + tagOffset + ")");
        }
        if (wireType == WireFormat.WIRETYPE_END_GROUP) {
            if (depth == 0) {
                throw new WireFormatException("an end-group tag stands outside any group (field "
                        + number + " at offset " + tagOffset + ")");
            }
            if (openGroups[depth - 1] != number) {
                throw new WireFormatException("the end-group tag of field " + number
                        + " closes group field " + openGroups[depth - 1] + " (offset " + tagOffset + ")");
            }
            groupClosed = true;
            lastTag = 0;
            return 0;
        }
        if (wireType > WireFormat.WIRETYPE_FIXED32) {
            throw new WireFormatException("invalid wire type " + wireType + " of field "
                    + number + " (offset " + tagOffset + ")");
        }
        lastTag = tag;
        return number;
    }

    @Override
    public <T> void handleUnknownField(int fieldNumber, Schema<T> schema) throws IOException {
        skipValue(lastTag);
    }

    private void skipValue(int tag) throws IOException {
        switch (tag & 7) {
            case WireFormat.WIRETYPE_VARINT -> readRawVarint64();
            case WireFormat.WIRETYPE_FIXED64 -> advance(8);
            case WireFormat.WIRETYPE_LENGTH_DELIMITED -> advance(readLength());
            case WireFormat.WIRETYPE_FIXED32 -> advance(4);
            case WireFormat.WIRETYPE_START_GROUP -> skipGroup(tag >>> 3);
            default -> throw new WireFormatException("field " + (tag >>> 3) + " has wire type "
                    + (tag & 7) + ", which cannot be skipped (offset " + offset() + ")");
        }
    }

    /** Skips a group whose start tag was just read, iteratively, nested groups included. */
    private void skipGroup(int number) throws IOException {
        int outer = depth;
        push(number);
        while (depth > outer) {
            if (!hasMore()) {
                throw new WireFormatException("the input ends inside unknown group field " + number + " (offset "
                        + offset() + ")");
            }
            long tagOffset = position();
            int tag = readRawVarint32();
            int n = tag >>> 3;
            int wireType = tag & 7;
            if (n == 0) {
                throw new WireFormatException("a tag inside unknown group field " + number + " has field number 0 (offset "
                        + tagOffset + ")");
            }
            if (wireType == WireFormat.WIRETYPE_END_GROUP) {
                if (openGroups[depth - 1] != n) {
                    throw new WireFormatException("inside unknown group field " + number + ", the end-group tag of field "
                            + n + " closes group field " + openGroups[depth - 1] + " (offset " + tagOffset + ")");
                }
                depth--;
            } else if (wireType == WireFormat.WIRETYPE_START_GROUP) {
                push(n);
            } else if (wireType > WireFormat.WIRETYPE_FIXED32) {
                throw new WireFormatException("inside unknown group field " + number + ", invalid wire type "
                        + wireType + " (offset " + tagOffset + ")");
            } else {
                skipValue(tag);
            }
        }
    }

    private void push(int number) throws WireFormatException {
        if (depth == MAX_DEPTH) {
            throw new WireFormatException("groups nest deeper than " + MAX_DEPTH
                    + " levels (offset " + offset() + ")");
        }
        openGroups[depth++] = number;
    }

    private void expect(int wireType) throws WireFormatException {
        if ((lastTag & 7) != wireType) {
            throw new WireFormatException("field " + (lastTag >>> 3) + " has wire type "
                    + (lastTag & 7) + " where the layout expects " + wireType + " (offset " + offset() + ")");
        }
    }

    private void advance(int count) throws IOException {
        if (count < 0 || count > left()) {
            throw new WireFormatException(count + " bytes are needed but "
                    + left() + " remain (offset " + offset() + ")");
        }
        int buffered = limit - offset;
        if (count <= buffered) {
            offset += count;
            return;
        }
        offset = limit;
        long skip = count - buffered;
        if (in instanceof KeptArrayInput kept) {
            long n = kept.discard(skip);
            base += limit + n;
            offset = 0;
            limit = 0;
            if (n < skip) {
                throw new WireFormatException(count + " bytes are needed but the input ended " + (skip - n)
                        + " bytes short (offset " + offset() + ")");
            }
            return;
        }
        while (skip > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, skip));
            if (n < 0) {
                throw new WireFormatException(count + " bytes are needed but the input ended " + skip
                        + " bytes short (offset " + offset() + ")");
            }
            base += limit;
            offset = n;
            limit = n;
            skip -= n;
        }
    }

    private int readLength() throws IOException {
        long lengthOffset = position();
        long length = readRawVarint64();
        if (length < 0 || length > left()) {
            throw new WireFormatException("a declared length exceeds the " + (capped ? "cap" : "input") + " ("
                    + length + " declared, " + left() + " remain at offset " + lengthOffset + ")");
        }
        return (int) length;
    }

    /** Reads a varint of at most 10 bytes and returns its low 32 bits, as protobuf does. */
    public int readRawVarint32() throws IOException {
        return (int) readRawVarint64();
    }

    /** Reads a varint of at most 10 bytes. */
    public long readRawVarint64() throws IOException {
        if (limit - offset >= 10) {
            long result = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                byte b = buffer[offset++];
                result |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return result;
                }
            }
            throw new WireFormatException("a varint is longer than 10 bytes (offset " + offset() + ")");
        }
        long result = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            byte b = nextByte("a varint");
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new WireFormatException("a varint is longer than 10 bytes (offset " + offset() + ")");
    }

    private int readRawLittleEndian32() throws IOException {
        require(4);
        int start = offset;
        offset += 4;
        return (buffer[start] & 0xFF) | (buffer[start + 1] & 0xFF) << 8 | (buffer[start + 2] & 0xFF) << 16
                | (buffer[start + 3] & 0xFF) << 24;
    }

    private long readRawLittleEndian64() throws IOException {
        long low = readRawLittleEndian32() & 0xFFFFFFFFL;
        long high = readRawLittleEndian32() & 0xFFFFFFFFL;
        return low | high << 32;
    }

    @Override
    public int readInt32() throws IOException {
        expect(WireFormat.WIRETYPE_VARINT);
        return readRawVarint32();
    }

    @Override
    public int readUInt32() throws IOException {
        expect(WireFormat.WIRETYPE_VARINT);
        return readRawVarint32();
    }

    @Override
    public int readSInt32() throws IOException {
        int n = readUInt32();
        return (n >>> 1) ^ -(n & 1);
    }

    @Override
    public int readFixed32() throws IOException {
        expect(WireFormat.WIRETYPE_FIXED32);
        return readRawLittleEndian32();
    }

    @Override
    public int readSFixed32() throws IOException {
        return readFixed32();
    }

    @Override
    public long readInt64() throws IOException {
        expect(WireFormat.WIRETYPE_VARINT);
        return readRawVarint64();
    }

    @Override
    public long readUInt64() throws IOException {
        return readInt64();
    }

    @Override
    public long readSInt64() throws IOException {
        long n = readInt64();
        return (n >>> 1) ^ -(n & 1);
    }

    @Override
    public long readFixed64() throws IOException {
        expect(WireFormat.WIRETYPE_FIXED64);
        return readRawLittleEndian64();
    }

    @Override
    public long readSFixed64() throws IOException {
        return readFixed64();
    }

    @Override
    public float readFloat() throws IOException {
        return Float.intBitsToFloat(readFixed32());
    }

    @Override
    public double readDouble() throws IOException {
        return Double.longBitsToDouble(readFixed64());
    }

    @Override
    public boolean readBool() throws IOException {
        expect(WireFormat.WIRETYPE_VARINT);
        return readRawVarint64() != 0;
    }

    @Override
    public int readEnum() throws IOException {
        return readInt32();
    }

    @Override
    public String readString() throws IOException {
        expect(WireFormat.WIRETYPE_LENGTH_DELIMITED);
        int length = readLength();
        if (length <= buffer.length) {
            require(length);
            String value = new String(buffer, offset, length, StandardCharsets.UTF_8);
            offset += length;
            return value;
        }
        return new String(readExactly(length), StandardCharsets.UTF_8);
    }

    @Override
    public byte[] readByteArray() throws IOException {
        expect(WireFormat.WIRETYPE_LENGTH_DELIMITED);
        int length = readLength();
        if (!retainByteArrays) {
            advance(length);
            return EMPTY;
        }
        return readExactly(length);
    }

    /** Reads {@code length} bytes, already checked against what is left, into a new array. */
    private byte[] readExactly(int length) throws IOException {
        if (in == null) {
            byte[] value = Arrays.copyOfRange(buffer, offset, offset + length);
            offset += length;
            return value;
        }
        int buffered = Math.min(length, limit - offset);
        byte[] value = new byte[Math.min(length, Math.max(buffered, EXACT_ALLOCATION_BYTES))];
        System.arraycopy(buffer, offset, value, 0, buffered);
        offset += buffered;
        int filled = buffered;
        while (filled < length) {
            if (filled == value.length) {
                value = Arrays.copyOf(value, (int) Math.min(length, 2L * value.length));
            }
            int n = in instanceof KeptArrayInput kept ? kept.readKept(value, filled, value.length - filled)
                    : in.read(value, filled, value.length - filled);
            if (n < 0) {
                throw new WireFormatException("a field declares " + length + " bytes but the input ends after "
                        + filled + " of them (offset " + offset() + ")");
            }
            filled += n;
            base += n;
            if (base + limit > bound) {
                throw tooLong();
            }
        }
        return value;
    }

    @Override
    public ByteString readBytes() throws IOException {
        return ByteString.copyFrom(readByteArray());
    }

    @Override
    public void readBytes(ByteBuffer target) throws IOException {
        byte[] bytes = readByteArray();
        if (bytes.length > target.remaining()) {
            throw new WireFormatException("field " + (lastTag >>> 3) + " holds " + bytes.length
                    + " bytes, more than the target buffer takes (" + target.remaining() + " remain)");
        }
        target.put(bytes);
    }

    @Override
    public ByteBuffer readByteBuffer() throws IOException {
        return ByteBuffer.wrap(readByteArray());
    }

    @Override
    public <T> T mergeObject(T value, Schema<T> schema) throws IOException {
        expect(WireFormat.WIRETYPE_START_GROUP);
        int number = lastTag >>> 3;
        push(number);
        int myDepth = depth;
        T message = value == null ? schema.newMessage() : value;
        schema.mergeFrom(this, message);
        if (!groupClosed || depth != myDepth) {
            throw new WireFormatException("schema " + schema.messageName() + " of group field " + number
                    + " stopped before its end-group tag (offset " + offset() + ")");
        }
        groupClosed = false;
        depth--;
        if (!schema.isInitialized(message)) {
            throw new WireFormatException("group field " + number + " (" + schema.messageName()
                    + ") is missing a required field (offset " + offset() + ")");
        }
        return message;
    }

    @Override
    public void transferByteRangeTo(Output output, boolean utf8String, int fieldNumber, boolean repeated)
            throws IOException {
        expect(WireFormat.WIRETYPE_LENGTH_DELIMITED);
        int length = readLength();
        if (in == null) {
            output.writeByteRange(utf8String, fieldNumber, buffer, offset, length, repeated);
            offset += length;
        } else {
            byte[] bytes = readExactly(length);
            output.writeByteRange(utf8String, fieldNumber, bytes, 0, length, repeated);
        }
    }
}
