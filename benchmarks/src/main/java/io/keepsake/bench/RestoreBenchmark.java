package io.keepsake.bench;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.PipelineState;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The cost of restoring the state of a 4-pipeline job (~1 MiB per pipeline) from the local disk,
 * in milliseconds per restore:
 * <ul>
 *   <li>{@link #keepsakeRestoreById()}: {@link SavepointRestorer#restoreSavepoint(String, String)}, which reads
 *       and verifies {@code _metadata.ser}, reads every payload while checking its length and
 *       SHA-256, and decodes engine-wire-v1;</li>
 *   <li>{@link #legacyLatestCheckpoint()}: the baseline, the SeaTunnel restore path: the latest v0
 *       checkpoint file of each pipeline through the legacy {@code getLatestCheckpoint} SPI, decoded
 *       with {@link LegacyCheckpointCodec#decodeCheckpoint(byte[], String)}, nothing verified.</li>
 * </ul>
 * Both read files written once in the trial set-up, so they are served from the page cache: this
 * measures the CPU cost of reading, checking and decoding, not a cold disk. One instance per thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RestoreBenchmark extends LocalDiskTrial {

    /** The id of the savepoint the trial set-up writes. */
    public static final String SAVEPOINT_ID = "bench-restore";

    private SavepointRestorer restorer;

    /** Writes the four pipelines once as a Keepsake savepoint and once as legacy checkpoint files. */
    @Setup(Level.Trial)
    public void setUp() throws CheckpointStorageException {
        openTrial("restore");
        List<CompletedCheckpoint> checkpoints = checkpoints();
        KeepsakeStorage storage = storage();
        List<Integer> pipelineIds = checkpoints.stream().map(CompletedCheckpoint::pipelineId).toList();
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, BenchStates.JOB, pipelineIds)
                .savepointId(SAVEPOINT_ID).open()) {
            for (CompletedCheckpoint c : checkpoints) {
                session.report(c);
                session.pipelineSuspended(c.pipelineId());
            }
            session.commit();
        }
        for (CompletedCheckpoint c : checkpoints) {
            storage.storeCheckPoint(new PipelineState(BenchStates.JOB, c.pipelineId(), c.checkpointId(),
                    LegacyCheckpointCodec.encodeCheckpoint(c)));
        }
        restorer = new SavepointRestorer(storage, storage);
    }

    /** Keepsake: reads, verifies and decodes the savepoint. */
    @Benchmark
    public Map<Integer, CompletedCheckpoint> keepsakeRestoreById() {
        return restorer.restoreSavepoint(BenchStates.JOB, SAVEPOINT_ID).checkpoints();
    }

    /** Baseline: reads the latest legacy checkpoint of each pipeline and decodes it, unverified. */
    @Benchmark
    public Map<Integer, CompletedCheckpoint> legacyLatestCheckpoint() throws CheckpointStorageException {
        Map<Integer, CompletedCheckpoint> byPipeline = new TreeMap<>();
        for (PipelineState state : storage().getLatestCheckpoint(BenchStates.JOB)) {
            byPipeline.put(state.pipelineId(), LegacyCheckpointCodec.decodeCheckpoint(state.states(),
                    "legacy checkpoint of pipeline " + state.pipelineId()));
        }
        return byPipeline;
    }
}
