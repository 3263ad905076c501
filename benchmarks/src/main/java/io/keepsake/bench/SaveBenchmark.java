package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The cost of saving the state of a 4-pipeline job (~1 MiB per pipeline) to the local disk,
 * encoding included, in milliseconds per save:
 * <ul>
 *   <li>{@link #keepsakeSavepoint()}: a full Keepsake savepoint through {@link SavepointSaveSession}
 *       (engine-wire-v1, staged files hashed with SHA-256 while written, every file and directory
 *       fsynced, one atomic rename, {@code _metadata.ser});</li>
 *   <li>{@link #legacyStoreCheckpoint()}: the SeaTunnel way, one v0 checkpoint file per pipeline
 *       through the legacy {@code storeCheckPoint} SPI, as Keepsake implements it (temporary file,
 *       fsync, rename, directory fsync);</li>
 *   <li>{@link #rawLegacyWrite()}: the v0 files written with {@link Files#write} and nothing else, no
 *       fsync and no rename, which is what SeaTunnel's own {@code localfile} plugin does.</li>
 * </ul>
 * Whatever an invocation wrote is deleted in the invocation tear-down, which JMH does not time.
 * One instance per benchmark thread; not meant for more than one thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SaveBenchmark extends LocalDiskTrial {

    private List<Integer> pipelineIds;
    private Path rawJobDirectory;
    private long sequence;
    private String lastSavepointId;

    /** Generates the four pipelines, opens a storage in a fresh directory and makes the raw writes' directory. */
    @Setup(Level.Trial)
    public void setUp() {
        openTrial("save");
        pipelineIds = checkpoints().stream().map(CompletedCheckpoint::pipelineId).toList();
        rawJobDirectory = trialDirectory().resolve("raw").resolve(BenchStates.JOB);
        try {
            Files.createDirectories(rawJobDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create benchmark directory (" + rawJobDirectory + ")", e);
        }
    }

    /** Keepsake: one complete savepoint of the four pipelines. */
    @Benchmark
    public SavepointHandle keepsakeSavepoint() {
        lastSavepointId = "bench-" + (++sequence);
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage(), BenchStates.JOB, pipelineIds)
                .savepointId(lastSavepointId).open()) {
            for (CompletedCheckpoint checkpoint : checkpoints()) {
                session.report(checkpoint);
            }
            for (int pipelineId : pipelineIds) {
                session.pipelineSuspended(pipelineId);
            }
            return session.commit();
        }
    }

    /** Baseline: the four pipelines as v0 checkpoint files through the legacy SPI (fsynced and renamed). */
    @Benchmark
    public List<String> legacyStoreCheckpoint() throws CheckpointStorageException {
        List<String> names = new ArrayList<>(checkpoints().size());
        for (CompletedCheckpoint c : checkpoints()) {
            names.add(storage().storeCheckPoint(new PipelineState(BenchStates.JOB, c.pipelineId(), c.checkpointId(),
                    LegacyCheckpointCodec.encodeCheckpoint(c))));
        }
        return names;
    }

    /** Raw baseline: the four v0 checkpoint files written in place, without fsync or rename. */
    @Benchmark
    public List<Path> rawLegacyWrite() throws IOException {
        List<Path> files = new ArrayList<>(checkpoints().size());
        for (CompletedCheckpoint c : checkpoints()) {
            // SeaTunnel's checkpoint file name: <millis>-<random 0..999>-<pipelineId>-<checkpointId>.ser
            Path file = rawJobDirectory.resolve(System.currentTimeMillis() + "-"
                    + ThreadLocalRandom.current().nextInt(1000) + "-" + c.pipelineId() + "-" + c.checkpointId() + ".ser");
            files.add(Files.write(file, LegacyCheckpointCodec.encodeFile(c)));
        }
        return files;
    }

    /** Deletes whatever the invocation wrote, so that every save starts from the same disk state. */
    @TearDown(Level.Invocation)
    public void deleteWritten() {
        if (lastSavepointId != null) {
            storage().deleteSavepoint(BenchStates.JOB, lastSavepointId);
            lastSavepointId = null;
        }
        storage().deleteCheckpoint(BenchStates.JOB);
        BenchFiles.emptyDirectory(rawJobDirectory);
    }

    /** Where {@link #rawLegacyWrite()} writes. */
    Path rawJobDirectory() {
        return rawJobDirectory;
    }
}
