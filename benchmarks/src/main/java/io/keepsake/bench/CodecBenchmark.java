package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.wire.CheckpointWireCodec;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * Encoding and decoding one pipeline's {@link CompletedCheckpoint} in memory: Keepsake's tagged
 * engine-wire-v1 against the baseline, the legacy v0 layout that SeaTunnel 2.3.x writes today
 * (the checkpoint bytes only, without the {@code PipelineState} file wrapper, so both sides
 * encode the same thing). Decoding v1 includes its validation (slot bounds, end marker).
 *
 * <p>Reported in operations per second; multiply by {@link #encodedSize(String, String)} for bytes
 * per second. One instance per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CodecBenchmark {

    /** The format name of the Keepsake side, for {@link #encodedSize(String, String)}. */
    public static final String WIRE_V1 = CheckpointWireCodec.FORMAT_NAME;

    /** The format name of the baseline side, for {@link #encodedSize(String, String)}. */
    public static final String LEGACY_V0 = LegacyCheckpointCodec.FORMAT_NAME;

    /** Which state: {@link BenchStates#SMALL} (~10 KiB) or {@link BenchStates#LARGE} (~4 MiB). */
    @Param({BenchStates.SMALL, BenchStates.LARGE})
    public String size;

    private final CheckpointWireCodec wireCodec = new CheckpointWireCodec();
    private CompletedCheckpoint checkpoint;
    private byte[] wireBytes;
    private byte[] legacyBytes;

    /** Generates the state and encodes it once in each format, for the decode benchmarks. */
    @Setup(Level.Trial)
    public void setUp() {
        checkpoint = BenchStates.codecCheckpoint(size);
        wireBytes = wireCodec.encode(checkpoint);
        legacyBytes = LegacyCheckpointCodec.encodeCheckpoint(checkpoint);
    }

    /** Keepsake: encodes the checkpoint to engine-wire-v1. */
    @Benchmark
    public byte[] encodeWireV1() {
        return wireCodec.encode(checkpoint);
    }

    /** Baseline: encodes the checkpoint to the legacy v0 layout. */
    @Benchmark
    public byte[] encodeLegacyV0() {
        return LegacyCheckpointCodec.encodeCheckpoint(checkpoint);
    }

    /** Keepsake: decodes and validates engine-wire-v1 bytes. */
    @Benchmark
    public CompletedCheckpoint decodeWireV1() {
        return wireCodec.decode(wireBytes, "benchmark");
    }

    /** Baseline: decodes legacy v0 bytes. */
    @Benchmark
    public CompletedCheckpoint decodeLegacyV0() {
        return LegacyCheckpointCodec.decodeCheckpoint(legacyBytes, "benchmark");
    }

    /** The checkpoint the benchmarks encode (after {@link #setUp()}). */
    CompletedCheckpoint checkpoint() {
        return checkpoint;
    }

    /**
     * Returns how many bytes the state of the given size encodes to in the given format.
     *
     * @param size   {@link BenchStates#SMALL} or {@link BenchStates#LARGE}
     * @param format {@link #WIRE_V1} or {@link #LEGACY_V0}
     * @throws IllegalArgumentException when either is unknown
     */
    public static int encodedSize(String size, String format) {
        CompletedCheckpoint c = BenchStates.codecCheckpoint(size);
        if (WIRE_V1.equals(format)) {
            return new CheckpointWireCodec().encode(c).length;
        }
        if (LEGACY_V0.equals(format)) {
            return LegacyCheckpointCodec.encodeCheckpoint(c).length;
        }
        throw new IllegalArgumentException("Cannot size encoded state: unknown format (" + format + ")");
    }
}
