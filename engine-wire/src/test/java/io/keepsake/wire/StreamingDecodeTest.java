package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.KeptArrayInput;
import io.keepsake.storage.SavepointCorruptedException;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Decoding from a stream reads what decoding from an array reads, whatever sizes the stream's
 * reads come in; it refuses what the array decoder refuses; it reads state arrays through
 * {@link KeptArrayInput} when the stream offers it; and checking drops the state.
 */
class StreamingDecodeTest {

    private final CheckpointWireCodec codec = new CheckpointWireCodec();

    /** Hands out at most {@code step} bytes per read, and counts kept reads. */
    private static final class Trickle extends InputStream implements KeptArrayInput {
        private final ByteArrayInputStream in;
        private final int step;
        private final boolean kept;
        long keptBytes;

        Trickle(byte[] bytes, int step, boolean kept) {
            this.in = new ByteArrayInputStream(bytes);
            this.step = step;
            this.kept = kept;
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            return in.read(b, off, Math.min(len, step));
        }

        @Override
        public int readKept(byte[] b, int off, int len) {
            int n = read(b, off, len);
            if (n > 0 && kept) {
                keptBytes += n;
            }
            return n;
        }

        @Override
        public long discard(long n) {
            return in.skip(n);
        }
    }

    @Provide
    Arbitrary<CompletedCheckpoint> checkpoints() {
        return CheckpointArbitraries.smallCheckpoints();
    }

    @Property(tries = 200)
    void aStreamInAnyReadSizesDecodesLikeTheArray(@ForAll("checkpoints") CompletedCheckpoint checkpoint,
                                                  @ForAll @IntRange(min = 1, max = 40) int step) throws IOException {
        byte[] bytes = codec.encode(checkpoint);

        assertThat(codec.decode(new Trickle(bytes, step, false), bytes.length, "s")).isEqualTo(checkpoint);
        assertThat(codec.decode(new Trickle(bytes, step, false), "s")).isEqualTo(checkpoint);
        assertThat(codec.check(new Trickle(bytes, step, false), bytes.length, "s"))
                .isEqualTo(new CheckpointWireCodec.CheckpointSummary(checkpoint.jobId(), checkpoint.pipelineId(),
                        checkpoint.checkpointId()));
    }

    @Property(tries = 300)
    void aMutatedStreamFailsWhereTheArrayFails(@ForAll("checkpoints") CompletedCheckpoint checkpoint,
                                               @ForAll long seed, @ForAll @IntRange(min = 1, max = 7) int step) {
        byte[] mutated = new CorruptInputPropertiesTest.Mutation(seed, (int) Math.floorMod(seed, 7L), 1)
                .apply(codec.encode(checkpoint));
        CompletedCheckpoint fromArray;
        try {
            fromArray = codec.decode(mutated, "m");
        } catch (SavepointCorruptedException e) {
            assertThatThrownBy(() -> codec.decode(new Trickle(mutated, step, false), mutated.length, "m"))
                    .isInstanceOf(SavepointCorruptedException.class).hasMessageStartingWith("Cannot ");
            return;
        }
        try {
            assertThat(codec.decode(new Trickle(mutated, step, false), mutated.length, "m")).isEqualTo(fromArray);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void everyStrictPrefixOfAStreamIsRefused() {
        byte[] bytes = codec.encode(CheckpointArbitraries.smallCheckpoints().sample());
        Truncations.assertEveryStrictPrefixFails(bytes,
                prefix -> codec.decode(new Trickle(prefix, 3, false), bytes.length, "cut"),
                SavepointCorruptedException.class, failure -> { });
    }

    @Test
    void largeStateArraysAreReadStraightIntoPlaceThroughKeptReads() throws IOException {
        CompletedCheckpoint checkpoint = withState(3 * BoundedInput.STREAM_BUFFER_BYTES, 4);
        byte[] bytes = codec.encode(checkpoint);
        Trickle in = new Trickle(bytes, Integer.MAX_VALUE, true);

        assertThat(codec.decode(in, bytes.length, "big")).isEqualTo(checkpoint);
        assertThat(in.keptBytes).as("bytes read straight into state arrays")
                .isGreaterThan(4L * 2 * BoundedInput.STREAM_BUFFER_BYTES);
    }

    @Test
    void aStateArrayLongerThanTheExactAllocationGrowsAsItsBytesArrive() throws IOException {
        CompletedCheckpoint checkpoint = withState(BoundedInput.EXACT_ALLOCATION_BYTES + 12345, 1);
        byte[] bytes = codec.encode(checkpoint);

        assertThat(codec.decode(new Trickle(bytes, 1 << 20, true), bytes.length, "huge")).isEqualTo(checkpoint);
    }

    @Test
    void aStreamLongerThanItsDeclaredLengthIsRefused() {
        byte[] bytes = codec.encode(withState(100, 2));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);

        assertThatThrownBy(() -> codec.decode(new Trickle(longer, 5, false), bytes.length, "long.wire"))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("longer than its " + bytes.length + " bytes");
    }

    @Test
    void aDeclaredLengthBeyondTheStreamIsRefusedBeforeAllocating() {
        byte[] bytes = codec.encode(withState(1000, 1));

        byte[] first = Arrays.copyOf(bytes, 500);

        assertThatThrownBy(() -> codec.decode(new Trickle(first, 5, false), 500, "short.wire"))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("a declared length exceeds the input");
    }

    @Test
    void checkingReadsEveryByteButKeepsNoState() throws IOException {
        CompletedCheckpoint checkpoint = withState(50_000, 3);
        byte[] bytes = codec.encode(checkpoint);
        Trickle in = new Trickle(bytes, 1000, true);

        CheckpointWireCodec.CheckpointSummary summary = codec.check(in, bytes.length, "checked");

        assertThat(summary.pipelineId()).isEqualTo(checkpoint.pipelineId());
        assertThat(summary.checkpointId()).isEqualTo(checkpoint.checkpointId());
        assertThat(in.read()).as("the stream was read to its end").isEqualTo(-1);
        assertThat(in.keptBytes).as("no state array was kept").isZero();
    }

    private static CompletedCheckpoint withState(int bytesPerSubtask, int subtasks) {
        Random random = new Random(7);
        ActionStateKey key = new ActionStateKey("source");
        List<ActionSubtaskState> slots = new ArrayList<>();
        for (int i = 0; i < subtasks; i++) {
            byte[] state = new byte[bytesPerSubtask];
            random.nextBytes(state);
            slots.add(new ActionSubtaskState(key, i, List.of(state)));
        }
        return new CompletedCheckpoint(11, 2, 33, 1_700_000_000_000L, CheckpointType.SAVEPOINT_TYPE,
                1_700_000_000_500L, Map.of(key, new ActionState(key, slots, null, subtasks)), Map.of());
    }
}
