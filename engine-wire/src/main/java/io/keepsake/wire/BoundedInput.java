package io.keepsake.wire;

import io.protostuff.ByteString;
import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Schema;
import io.protostuff.WireFormat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A strict reader of the protostuff wire format (nested messages as start/end groups) over a byte
 * array, for untrusted input.
 *
 * <p>Unlike protostuff's own {@code ByteArrayInput} it never trusts a declared length: every length
 * is checked against the bytes that remain, without integer overflow, before anything is
 * allocated. It checks that each field is read with the wire type its tag declares, that every
 * end-group tag closes the group it should, that the input does not end inside a group, and it
 * skips unknown fields (including whole unknown groups) iteratively, so hostile nesting cannot
 * overflow the stack. It also keeps a budget of "expanded" elements (such as runs of nulls a few
 * bytes can declare) so that a small input cannot demand a huge allocation.
 *
 * <p>Every failure is a {@link WireFormatException}. Not thread-safe: one instance per decode.
 */
final class BoundedInput implements Input {

    /** Deepest group nesting accepted, counting known and skipped groups. */
    public static final int MAX_DEPTH = 64;

    private final byte[] buffer;
    private final int limit;
    private int offset;
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
        this.buffer = buffer;
        this.limit = buffer.length;
        this.expansionBudget = expansionBudget;
    }

    /**
     * Reads a whole top-level message with the given schema and checks that every byte was used.
     *
     * @throws WireFormatException when the bytes are malformed for the schema
     */
    public <T> T readMessage(T message, Schema<T> schema) throws IOException {
        schema.mergeFrom(this, message);
        if (offset != limit || depth != 0) {
            throw new WireFormatException("the message ended before the input did (offset "
                    + offset + " of " + limit + ")");
        }
        return message;
    }

    /** Returns the read position, for error messages. */
    public int offset() {
        return offset;
    }

    /** Returns how many bytes remain unread. */
    public int remaining() {
        return limit - offset;
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
        if (offset == limit) {
            if (depth != 0) {
                throw new WireFormatException("the input ends inside group field "
                        + openGroups[depth - 1] + " (offset " + offset + ")");
            }
            lastTag = 0;
            return 0;
        }
        int tagOffset = offset;
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
                    + (tag & 7) + ", which cannot be skipped (offset " + offset + ")");
        }
    }

    /** Skips a group whose start tag was just read, iteratively, nested groups included. */
    private void skipGroup(int number) throws IOException {
        int base = depth;
        push(number);
        while (depth > base) {
            if (offset == limit) {
                throw new WireFormatException("the input ends inside unknown group field " + number + " (offset "
                        + offset + ")");
            }
            int tagOffset = offset;
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
                    + " levels (offset " + offset + ")");
        }
        openGroups[depth++] = number;
    }

    private void expect(int wireType) throws WireFormatException {
        if ((lastTag & 7) != wireType) {
            throw new WireFormatException("field " + (lastTag >>> 3) + " has wire type "
                    + (lastTag & 7) + " where the layout expects " + wireType + " (offset " + offset + ")");
        }
    }

    private void advance(int count) throws WireFormatException {
        if (count < 0 || count > limit - offset) {
            throw new WireFormatException(count + " bytes are needed but "
                    + (limit - offset) + " remain (offset " + offset + ")");
        }
        offset += count;
    }

    private int readLength() throws IOException {
        int lengthOffset = offset;
        long length = readRawVarint64();
        if (length < 0 || length > limit - offset) {
            throw new WireFormatException("a declared length exceeds the input (" + length
                    + " declared, " + (limit - offset) + " remain at offset " + lengthOffset + ")");
        }
        return (int) length;
    }

    /** Reads a varint of at most 10 bytes and returns its low 32 bits, as protobuf does. */
    public int readRawVarint32() throws IOException {
        return (int) readRawVarint64();
    }

    /** Reads a varint of at most 10 bytes. */
    public long readRawVarint64() throws IOException {
        long result = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (offset == limit) {
                throw new WireFormatException("the input ends inside a varint (offset " + offset
                        + ")");
            }
            byte b = buffer[offset++];
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new WireFormatException("a varint is longer than 10 bytes (offset " + offset + ")");
    }

    private int readRawLittleEndian32() throws WireFormatException {
        int start = offset;
        advance(4);
        return (buffer[start] & 0xFF) | (buffer[start + 1] & 0xFF) << 8 | (buffer[start + 2] & 0xFF) << 16
                | (buffer[start + 3] & 0xFF) << 24;
    }

    private long readRawLittleEndian64() throws WireFormatException {
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
        String value = new String(buffer, offset, length, StandardCharsets.UTF_8);
        offset += length;
        return value;
    }

    @Override
    public byte[] readByteArray() throws IOException {
        expect(WireFormat.WIRETYPE_LENGTH_DELIMITED);
        int length = readLength();
        byte[] value = Arrays.copyOfRange(buffer, offset, offset + length);
        offset += length;
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
                    + " stopped before its end-group tag (offset " + offset + ")");
        }
        groupClosed = false;
        depth--;
        if (!schema.isInitialized(message)) {
            throw new WireFormatException("group field " + number + " (" + schema.messageName()
                    + ") is missing a required field (offset " + offset + ")");
        }
        return message;
    }

    @Override
    public void transferByteRangeTo(Output output, boolean utf8String, int fieldNumber, boolean repeated)
            throws IOException {
        expect(WireFormat.WIRETYPE_LENGTH_DELIMITED);
        int length = readLength();
        output.writeByteRange(utf8String, fieldNumber, buffer, offset, length, repeated);
        offset += length;
    }
}
