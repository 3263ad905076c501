package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.wire.CheckpointWireCodec;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every benchmark method once, outside JMH, and checks that it does what its numbers claim:
 * the bytes decode to the generated state, saves restore to what was saved, tear-downs leave
 * nothing behind. Nothing here is timed.
 */
class BenchmarkSmokeTest {

    @ParameterizedTest
    @ValueSource(strings = {BenchStates.SMALL, BenchStates.LARGE})
    void codecBenchmarksRoundTripTheirState(String size) {
        CodecBenchmark benchmark = new CodecBenchmark();
        benchmark.size = size;
        benchmark.setUp();
        CompletedCheckpoint state = benchmark.checkpoint();

        byte[] wire = benchmark.encodeWireV1();
        byte[] legacy = benchmark.encodeLegacyV0();

        assertThat(new CheckpointWireCodec().decode(wire, "encodeWireV1")).isEqualTo(state);
        assertThat(LegacyCheckpointCodec.decodeCheckpoint(legacy, "encodeLegacyV0")).isEqualTo(state);
        assertThat(benchmark.decodeWireV1()).isEqualTo(state);
        assertThat(benchmark.decodeLegacyV0()).isEqualTo(state);
        assertThat(wire).hasSize(CodecBenchmark.encodedSize(size, CodecBenchmark.WIRE_V1));
        assertThat(legacy).hasSize(CodecBenchmark.encodedSize(size, CodecBenchmark.LEGACY_V0));
        if (size.equals(BenchStates.SMALL)) {
            assertThat(wire.length).isBetween(10_000, 11 * 1024);
        } else {
            assertThat(wire.length).isBetween(4 * 1024 * 1024, 4 * 1024 * 1024 + 16 * 1024);
        }
    }

    @Test
    void saveBenchmarksStoreWhatTheyAreGivenAndCleanUpAfterEachSave() throws Exception {
        SaveBenchmark benchmark = new SaveBenchmark();
        benchmark.setUp();
        inTrial(benchmark, saved -> {
            assertThat(saved).hasSize(BenchStates.PIPELINES);

            SavepointHandle handle = benchmark.keepsakeSavepoint();
            Map<Integer, CompletedCheckpoint> restored = new SavepointRestorer(null, benchmark.storage())
                    .restoreSavepoint(BenchStates.JOB, handle.savepointId()).checkpoints();
            assertThat(restored.values()).containsExactlyElementsOf(saved);
            benchmark.deleteWritten();
            assertThat(benchmark.storage().listSavepoints(BenchStates.JOB)).isEmpty();

            assertThat(benchmark.legacyStoreCheckpoint()).hasSize(BenchStates.PIPELINES);
            List<CompletedCheckpoint> stored = new ArrayList<>();
            for (PipelineState state : benchmark.storage().getLatestCheckpoint(BenchStates.JOB)) {
                stored.add(LegacyCheckpointCodec.decodeCheckpoint(state.states(), "legacyStoreCheckpoint"));
            }
            assertThat(stored).containsExactlyInAnyOrderElementsOf(saved);
            benchmark.deleteWritten();
            assertThat(benchmark.storage().getAllCheckpoints(BenchStates.JOB)).isEmpty();

            List<CompletedCheckpoint> written = new ArrayList<>();
            for (Path file : benchmark.rawLegacyWrite()) {
                written.add(LegacyCheckpointCodec.decodeFile(Files.readAllBytes(file), file.toString()));
            }
            assertThat(written).containsExactlyElementsOf(saved);
            benchmark.deleteWritten();
            try (var left = Files.list(benchmark.rawJobDirectory())) {
                assertThat(left).isEmpty();
            }

            // A second save after the clean-up works too: each invocation uses a fresh savepoint id.
            assertThat(benchmark.keepsakeSavepoint().savepointId()).isNotEqualTo(handle.savepointId());
            benchmark.deleteWritten();
        });
    }

    @Test
    void restoreBenchmarksReturnTheSavedCheckpoints() throws Exception {
        RestoreBenchmark benchmark = new RestoreBenchmark();
        benchmark.setUp();
        inTrial(benchmark, saved -> {
            assertThat(benchmark.keepsakeRestoreById().values()).containsExactlyElementsOf(saved);
            assertThat(benchmark.legacyLatestCheckpoint().values()).containsExactlyElementsOf(saved);
        });
    }

    /** What a test checks of a set-up trial, given the trial's checkpoints. */
    @FunctionalInterface
    private interface TrialCheck {
        void check(List<CompletedCheckpoint> saved) throws Exception;
    }

    /** Runs {@code check} on a set-up trial, tears the trial down whatever happens, and checks that nothing is left. */
    private static void inTrial(LocalDiskTrial trial, TrialCheck check) throws Exception {
        try {
            check.check(trial.checkpoints());
        } finally {
            trial.tearDown();
        }
        assertThat(trial.trialDirectory()).doesNotExist();
    }
}
