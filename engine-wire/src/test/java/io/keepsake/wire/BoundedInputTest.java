package io.keepsake.wire;

import io.keepsake.storage.internal.FrozenSchema;
import io.protostuff.Output;
import io.protostuff.Schema;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BoundedInputTest {

    /** Collects (field number, value) of varint field 1 and string field 2; skips everything else. */
    private static final class Collected {
        final List<String> values = new ArrayList<>();
    }

    /** Reads field 1 as a varint, field 2 as a string and field 3 as a nested group of the same kind. */
    private static final Schema<Collected> SCHEMA = FrozenSchema.table("Collected", "Collected", Collected.class,
                    Collected::new)
            .field("int", BoundedInputTest::neverWritten, (input, m) -> m.values.add("int " + input.readInt64()))
            .field("str", BoundedInputTest::neverWritten, (input, m) -> m.values.add("str " + input.readString()))
            .field("group", BoundedInputTest::neverWritten,
                    (input, m) -> m.values.add("group " + input.mergeObject(null, BoundedInputTest.SCHEMA).values))
            .build();

    private static void neverWritten(Output output, int tag, Collected message) {
        throw new UnsupportedOperationException();
    }

    private static List<String> read(int... bytes) throws IOException {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return new BoundedInput(b, 10).readMessage(new Collected(), SCHEMA).values;
    }

    @Test
    void readsKnownFieldsAndNestedGroups() throws IOException {
        assertThat(read(0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i', 0x1B, 0x08, 0x01, 0x1C))
                .containsExactly("int 150", "str hi", "group [int 1]");
    }

    @Test
    void skipsUnknownFieldsOfEveryWireTypeIncludingNestedGroups() throws IOException {
        assertThat(read(0x20, 0x05, // 4: varint
                0x29, 1, 2, 3, 4, 5, 6, 7, 8, // 5: fixed64
                0x32, 0x01, 0x00, // 6: bytes
                0x3B, 0x0B, 0x08, 0x01, 0x0C, 0x3C, // 7: group holding group 1
                0x45, 1, 2, 3, 4, // 8: fixed32
                0x08, 0x07))
                .containsExactly("int 7");
    }

    @Test
    void rejectsALengthThatWouldOverflowTheOffset() {
        assertThatThrownBy(() -> read(0x08, 0x01, 0x12, 0xF8, 0xFF, 0xFF, 0xFF, 0x07, 'x'))
                .isInstanceOf(WireFormatException.class)
                .hasMessageContaining("a declared length exceeds the input (2147483640 declared, 1 remain");
    }

    @Test
    void rejectsAnEndGroupThatClosesAnotherGroup() {
        assertThatThrownBy(() -> read(0x1B, 0x08, 0x01, 0x24))
                .isInstanceOf(WireFormatException.class)
                .hasMessageContaining("the end-group tag of field 4 closes group field 3");
    }

    @Test
    void rejectsAnEndGroupAtTheTopLevel() {
        assertThatThrownBy(() -> read(0x08, 0x01, 0x1C, 0x08, 0x02))
                .isInstanceOf(WireFormatException.class)
                .hasMessageContaining("an end-group tag stands outside any group (field 3");
    }

    @Test
    void rejectsInputThatEndsInsideAGroup() {
        assertThatThrownBy(() -> read(0x1B, 0x08, 0x01))
                .isInstanceOf(WireFormatException.class)
                .hasMessageContaining("the input ends inside group field 3");
    }

    @Test
    void rejectsAnUnknownGroupThatNeverEnds() {
        assertThatThrownBy(() -> read(0x3B, 0x08, 0x01))
                .isInstanceOf(WireFormatException.class)
                .hasMessageContaining("the input ends inside unknown group field 7");
    }

    @Test
    void rejectsInvalidWireTypesAndFieldNumberZero() {
        assertThatThrownBy(() -> read(0x0E)).isInstanceOf(WireFormatException.class)
                .hasMessageContaining("invalid wire type 6");
        assertThatThrownBy(() -> read(0x00)).isInstanceOf(WireFormatException.class)
                .hasMessageContaining("field number 0");
    }

    @Test
    void rejectsAVarintLongerThanTenBytes() {
        assertThatThrownBy(() -> read(0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01))
                .isInstanceOf(WireFormatException.class)
                .hasMessageContaining("a varint is longer than 10 bytes");
    }

    @Test
    void chargesExpansionsToOneBudgetPerInput() throws WireFormatException {
        BoundedInput input = new BoundedInput(new byte[0], 10);
        input.reserveExpansion(6, "first");

        assertThatThrownBy(() -> input.reserveExpansion(5, "second"))
                .isInstanceOf(WireFormatException.class)
                .hasMessage("second declares more elements than one input may expand to (5 declared, 4 left)");
        assertThatThrownBy(() -> input.reserveExpansion(-1, "third"))
                .isInstanceOf(WireFormatException.class)
                .hasMessage("third declares a negative count (-1)");
    }
}
