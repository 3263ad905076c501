package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.seatunnel.KeepsakeCheckpointStorage;
import io.keepsake.seatunnel.KeepsakeCheckpointStorageFactory;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.Versions;
import io.keepsake.wire.CheckpointWireCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.apache.seatunnel.engine.serializer.protobuf.ProtoStuffSerializer;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

import static io.keepsake.bench.ObjectStoreSection.PIPELINES;

/**
 * Keepsake's side of the object-store rows, driven as SeaTunnel's engine drives it: the checkpoint
 * store and its rotation through the SeaTunnel plugin ({@link KeepsakeCheckpointStorage}),
 * savepoints through the engine session on the plugin's storage with every pipeline reporting
 * from its own thread, restores with {@link SavepointRestorer}. The pipeline threads also serve
 * the parallel calls of the store's floor.
 */
final class PluginKeepsake implements AutoCloseable {

    private final KeepsakeCheckpointStorage plugin;
    private final KeepsakeStorage storage;
    private final SavepointRestorer restorer;
    private final ExecutorService pipelines;
    private final ProtoStuffSerializer serializer = new ProtoStuffSerializer();
    /** What the timed reads returned, kept so that no read is optimised away. */
    private final LongAdder sink = new LongAdder();

    /**
     * Opens the plugin's storage.
     *
     * @param keys       the plugin factory's keys, as SeaTunnel users write them
     * @param threadName the name of the pipeline threads
     */
    PluginKeepsake(Map<String, String> keys, String threadName) throws CheckpointStorageException {
        this.plugin = (KeepsakeCheckpointStorage) new KeepsakeCheckpointStorageFactory().create(keys);
        this.storage = (KeepsakeStorage) plugin.checkpointSide();
        this.restorer = new SavepointRestorer(storage);
        this.pipelines = Executors.newFixedThreadPool(PIPELINES, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** The plugin's storage. */
    KeepsakeStorage storage() {
        return storage;
    }

    /** SeaTunnel's engine state of checkpoint {@code id} of pipeline 1: the serialized checkpoint in its wrapper. */
    PipelineState checkpointState(int stateBytes, long id) {
        CompletedCheckpoint c = BenchStates.reportState(stateBytes, BenchStates.JOB_ID, 1, id, id);
        var engine = SeaTunnelPath.toEngine(c);
        return SeaTunnelPath.wrap(engine, serializer.serialize(engine));
    }

    /** Stores a checkpoint and rotates {@code previous} away, as the engine's checkpoint coordinator does. */
    void storeAndRotate(PipelineState state, long previous) throws Exception {
        plugin.storeCheckPoint(state);
        plugin.deleteCheckpoint(BenchStates.JOB, "1", List.of(Long.toString(previous)));
    }

    /** Stores a checkpoint through the plugin. */
    void store(PipelineState state) throws Exception {
        plugin.storeCheckPoint(state);
    }

    /** A savepoint as the engine takes one: every pipeline reports from its own coordinator thread. */
    String save(List<CompletedCheckpoint> states) throws Exception {
        List<Integer> ids = states.stream().map(CompletedCheckpoint::pipelineId).toList();
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, BenchStates.JOB, ids)
                .kind(SavepointKind.MANUAL).open()) {
            parallel(states.size(), p -> {
                CompletedCheckpoint c = states.get(p - 1);
                session.report(c);
                session.pipelineSuspended(c.pipelineId());
            });
            return session.commit().savepointId();
        }
    }

    /** Restores a savepoint of the job, every payload verified. */
    void restore(String savepointId) {
        sink.add(restorer.restoreSavepoint(BenchStates.JOB, savepointId).checkpoints().size());
    }

    /** Finds and restores the newest state of {@code job}. */
    void recoverLatest(String job) {
        sink.add(restorer.recoverLatest(job).nextCheckpointId());
    }

    /** Deletes a savepoint of the job. */
    void deleteSavepoint(String savepointId) {
        storage.deleteSavepoint(BenchStates.JOB, savepointId);
    }

    /** Runs {@code each} for pipelines 1..count from the pipeline threads at once; returns the nanoseconds of all. */
    long parallel(int count, PipelineCall each) throws Exception {
        long start = System.nanoTime();
        List<Future<?>> calls = new ArrayList<>();
        for (int p = 1; p <= count; p++) {
            int pipeline = p;
            calls.add(pipelines.submit(() -> {
                each.run(pipeline);
                return null;
            }));
        }
        for (Future<?> call : calls) {
            call.get();
        }
        return System.nanoTime() - start;
    }

    /** One pipeline's part of a parallel call. */
    @FunctionalInterface
    interface PipelineCall {
        void run(int pipeline) throws Exception;
    }

    /**
     * Writes savepoint {@code sp-<i>} of one pipeline of {@code job} (about 1 KiB of state at
     * checkpoint {@code i}) straight through the storage's writer, for seeding a lookup job.
     *
     * @return the state written
     */
    static CompletedCheckpoint seedOne(KeepsakeStorage storage, String job, int i) throws IOException {
        CompletedCheckpoint state = BenchStates.reportState(1024, Long.parseLong(job), 1, i, i);
        try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest(job, String.format("sp-%06d", i),
                SavepointKind.MANUAL, Versions.PRODUCER_VERSION, CheckpointWireCodec.FORMAT_NAME,
                1_700_000_000_000L + i, Map.of()))) {
            try (OutputStream out = w.openPayload(1, i)) {
                new CheckpointWireCodec().encode(state, out);
            }
            w.commit(1_700_000_000_000L + i);
        }
        return state;
    }

    @Override
    public void close() {
        pipelines.shutdownNow();
        plugin.checkpointSide().close();
    }
}
