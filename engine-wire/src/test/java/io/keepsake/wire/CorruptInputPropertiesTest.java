package io.keepsake.wire;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointIncompatibleException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Mutated, truncated and random inputs to both decoders: the only failures allowed are the typed
 * corrupted/incompatible errors, and no decode may hang or exhaust memory.
 */
class CorruptInputPropertiesTest {

    private static final Duration NO_HANG = Duration.ofSeconds(10);

    private final CheckpointWireCodec codec = new CheckpointWireCodec();

    /** A mutation of an encoding: which bytes change, and how. */
    record Mutation(long seed, int kind, int count) {
        byte[] apply(byte[] valid) {
            Random random = new Random(seed);
            byte[] b = valid.clone();
            for (int i = 0; i < count; i++) {
                b = applyOnce(b, random);
            }
            return b;
        }

        private byte[] applyOnce(byte[] b, Random random) {
            if (b.length == 0) {
                return new byte[] {(byte) random.nextInt()};
            }
            int at = random.nextInt(b.length);
            switch (kind) {
                case 0 -> b[at] = (byte) random.nextInt();
                case 1 -> b[at] ^= (byte) (1 << random.nextInt(8));
                case 2 -> {
                    // a run of 0xFF: huge varints and declared lengths
                    int run = 1 + random.nextInt(6);
                    for (int i = at; i < Math.min(b.length, at + run); i++) {
                        b[i] = (byte) 0xFF;
                    }
                    if (at + run < b.length) {
                        b[at + run] = (byte) random.nextInt(0x10);
                    }
                }
                case 3 -> {
                    byte[] insert = new byte[1 + random.nextInt(8)];
                    random.nextBytes(insert);
                    byte[] out = new byte[b.length + insert.length];
                    System.arraycopy(b, 0, out, 0, at);
                    System.arraycopy(insert, 0, out, at, insert.length);
                    System.arraycopy(b, at, out, at + insert.length, b.length - at);
                    return out;
                }
                case 4 -> {
                    int len = 1 + random.nextInt(Math.min(16, b.length - at));
                    byte[] out = new byte[b.length - len];
                    System.arraycopy(b, 0, out, 0, at);
                    System.arraycopy(b, at + len, out, at, b.length - at - len);
                    return out;
                }
                case 5 -> {
                    // start-group tags: deep nesting
                    for (int i = at; i < Math.min(b.length, at + 200); i++) {
                        b[i] = 0x0B;
                    }
                }
                default -> {
                    return Arrays.copyOf(b, at);
                }
            }
            return b;
        }
    }

    @Provide
    Arbitrary<CompletedCheckpoint> checkpoints() {
        return CheckpointArbitraries.smallCheckpoints();
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.integers().between(0, 6),
                Arbitraries.integers().between(1, 4)).as(Mutation::new);
    }

    /**
     * One encoding under test: how a checkpoint is written, how bytes from a named source are read
     * back, and the extension of its files.
     */
    private record Encoding(Function<CompletedCheckpoint, byte[]> encode,
                            BiFunction<byte[], String, CompletedCheckpoint> decode, String extension) {
    }

    /** The wire v1 payload, a legacy checkpoint and a legacy checkpoint file. */
    private List<Encoding> encodings() {
        return List.of(new Encoding(codec::encode, codec::decode, ".wire"),
                new Encoding(LegacyCheckpointCodec::encodeCheckpoint, LegacyCheckpointCodec::decodeCheckpoint, ".ser"),
                new Encoding(LegacyCheckpointCodec::encodeFile, LegacyCheckpointCodec::decodeFile, ".ser"));
    }

    @Property
    void mutatedEncodingsFailOnlyWithTypedErrors(@ForAll("checkpoints") CompletedCheckpoint checkpoint,
                                                 @ForAll("mutations") Mutation mutation) {
        for (Encoding encoding : encodings()) {
            byte[] mutated = mutation.apply(encoding.encode().apply(checkpoint));
            assertDecodesOrFailsTyped(mutated, bytes -> encoding.decode().apply(bytes, "mutated" + encoding.extension()));
        }
    }

    @Property
    void randomBytesFailOnlyWithTypedErrors(@ForAll("randomBytes") byte[] bytes) {
        for (Encoding encoding : encodings()) {
            assertDecodesOrFailsTyped(bytes, b -> encoding.decode().apply(b, "random" + encoding.extension()));
        }
    }

    @Provide
    Arbitrary<byte[]> randomBytes() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(256);
    }

    private static void assertDecodesOrFailsTyped(byte[] bytes, Function<byte[], CompletedCheckpoint> decoder) {
        Throwable failure = assertTimeoutPreemptively(NO_HANG, () -> {
            try {
                CompletedCheckpoint decoded = decoder.apply(bytes);
                assertThat(decoded).isNotNull();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        if (failure != null) {
            assertThat(failure)
                    .isInstanceOfAny(SavepointCorruptedException.class, CheckpointCorruptedException.class,
                            SavepointIncompatibleException.class)
                    .hasMessageContaining(".");
        }
        if (failure instanceof SavepointCorruptedException corrupted) {
            assertThat(corrupted.file()).as("the error names the source").isNotNull();
            assertThat(corrupted.getMessage()).startsWith("Cannot ");
        }
        if (failure instanceof CheckpointCorruptedException corrupted) {
            assertThat(corrupted.file()).as("the error names the source").isNotNull();
            assertThat(corrupted.getMessage()).startsWith("Cannot ");
        }
    }
}
