package io.keepsake.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Assembles protobuf/protostuff wire bytes by hand, so tests can state a layout byte by byte. */
final class WireBytes {

    static final int VARINT = 0;
    static final int LENGTH_DELIMITED = 2;
    static final int START_GROUP = 3;
    static final int END_GROUP = 4;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    WireBytes tag(int field, int wireType) {
        return rawVarint((long) field << 3 | wireType);
    }

    WireBytes rawVarint(long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) (value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.write((int) value);
        return this;
    }

    /** An int32/int64/enum/bool field; an int32 is sign-extended to 64 bits like protobuf does. */
    WireBytes varint(int field, long value) {
        return tag(field, VARINT).rawVarint(value);
    }

    WireBytes bytes(int field, byte[] value) {
        tag(field, LENGTH_DELIMITED).rawVarint(value.length);
        out.write(value, 0, value.length);
        return this;
    }

    WireBytes string(int field, String value) {
        return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    WireBytes startGroup(int field) {
        return tag(field, START_GROUP);
    }

    WireBytes endGroup(int field) {
        return tag(field, END_GROUP);
    }

    WireBytes raw(byte[] value) {
        out.write(value, 0, value.length);
        return this;
    }

    byte[] toByteArray() {
        return out.toByteArray();
    }
}
