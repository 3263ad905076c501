package io.keepsake.bench;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CompletedCheckpoint;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.apache.seatunnel.engine.checkpoint.storage.localfile.LocalFileStorage;
import org.apache.seatunnel.engine.serializer.protobuf.ProtoStuffSerializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The released SeaTunnel 2.3.8 checkpoint path, called the way its engine calls it: the
 * coordinator serializes its {@code CompletedCheckpoint} with {@link ProtoStuffSerializer}, wraps
 * the bytes in a {@link PipelineState} and hands that to {@link LocalFileStorage#storeCheckPoint},
 * which serializes the wrapper again and writes it with commons-io (no fsync, no checksum); a
 * restore is {@code getLatestCheckpointByJobIdAndPipelineId} followed by deserializing both levels.
 *
 * <p>The engine's model is built from Keepsake's with the same {@code byte[]} state arrays (no
 * copy), so both sides move the very same bytes. Task statistics are left empty on both sides
 * (SeaTunnel's {@code TaskStatistics} constructor is not public); they are a few bytes per action.
 * Not thread-safe: one instance per benchmark thread.
 */
public final class SeaTunnelPath {

    private final ProtoStuffSerializer serializer = new ProtoStuffSerializer();
    private final LocalFileStorage storage;

    /** Opens SeaTunnel's own local-file storage with {@code namespace} as its root. */
    public SeaTunnelPath(Path namespace) {
        String root = namespace.toAbsolutePath().toString();
        this.storage = new LocalFileStorage(Map.of("namespace", root.endsWith("/") ? root : root + "/"));
    }

    /** Returns SeaTunnel's engine model of {@code checkpoint}, sharing its state arrays. */
    public static org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint toEngine(CompletedCheckpoint checkpoint) {
        Map<org.apache.seatunnel.engine.server.checkpoint.ActionStateKey,
                org.apache.seatunnel.engine.server.checkpoint.ActionState> states = new LinkedHashMap<>();
        for (Map.Entry<ActionStateKey, ActionState> e : checkpoint.taskStates().entrySet()) {
            var key = new org.apache.seatunnel.engine.server.checkpoint.ActionStateKey(e.getKey().name());
            ActionState action = e.getValue();
            var engineAction = new org.apache.seatunnel.engine.server.checkpoint.ActionState(key, action.parallelism());
            List<ActionSubtaskState> subtasks = action.subtaskStates();
            for (int i = 0; i < subtasks.size(); i++) {
                ActionSubtaskState s = subtasks.get(i);
                if (s != null) {
                    engineAction.reportState(i, new org.apache.seatunnel.engine.server.checkpoint.ActionSubtaskState(
                            key, s.index(), s.state()));
                }
            }
            if (action.coordinatorState() != null) {
                engineAction.reportState(-1, new org.apache.seatunnel.engine.server.checkpoint.ActionSubtaskState(
                        key, -1, action.coordinatorState().state()));
            }
            states.put(key, engineAction);
        }
        return new org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint(checkpoint.jobId(),
                checkpoint.pipelineId(), checkpoint.checkpointId(), checkpoint.triggerTimestamp(),
                org.apache.seatunnel.engine.core.checkpoint.CheckpointType.valueOf(checkpoint.checkpointType().name()),
                checkpoint.completedTimestamp(), states, new LinkedHashMap<>());
    }

    /** The engine's first level: the checkpoint serialized as the coordinator does before storing it. */
    public byte[] serializeCheckpoint(org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint checkpoint) {
        return serializer.serialize(checkpoint);
    }

    /** The engine's wrapper around those bytes, as {@code CheckpointCoordinator} builds it. */
    public static PipelineState wrap(org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint checkpoint,
                                     byte[] states) {
        return PipelineState.builder().checkpointId(checkpoint.getCheckpointId())
                .jobId(String.valueOf(checkpoint.getJobId())).pipelineId(checkpoint.getPipelineId())
                .states(states).build();
    }

    /**
     * Encodes as the engine and its storage do: the checkpoint, then the {@link PipelineState}
     * holding it (the bytes of the checkpoint file).
     *
     * @throws UncheckedIOException when SeaTunnel's storage cannot serialize the wrapper
     */
    public byte[] encodeFile(org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint checkpoint) {
        try {
            return storage.serializeCheckPointData(wrap(checkpoint, serializeCheckpoint(checkpoint)));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode SeaTunnel checkpoint: the storage's serializer failed", e);
        }
    }

    /**
     * Decodes a checkpoint file's bytes as a restore does: the wrapper, then the checkpoint in it.
     *
     * @throws UncheckedIOException when SeaTunnel's storage cannot deserialize the wrapper
     */
    public org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint decodeFile(byte[] file) {
        try {
            PipelineState state = storage.deserializeCheckPointData(file);
            return serializer.deserialize(state.getStates(),
                    org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint.class);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot decode SeaTunnel checkpoint: the storage's serializer failed", e);
        }
    }

    /**
     * Saves as the engine does on a completed checkpoint or savepoint: serialize, wrap, {@code storeCheckPoint}.
     *
     * @throws CheckpointStorageException when SeaTunnel's storage fails
     */
    public String save(org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint checkpoint)
            throws CheckpointStorageException {
        return storage.storeCheckPoint(wrap(checkpoint, serializeCheckpoint(checkpoint)));
    }

    /**
     * Restores one pipeline as the engine does with {@code -r}: the latest file of the pipeline,
     * then both levels deserialized; null when the job has no checkpoint of that pipeline.
     *
     * @throws CheckpointStorageException when SeaTunnel's storage fails
     */
    public org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint restore(String jobId, int pipelineId)
            throws CheckpointStorageException {
        PipelineState state = storage.getLatestCheckpointByJobIdAndPipelineId(jobId, String.valueOf(pipelineId));
        return state == null ? null : serializer.deserialize(state.getStates(),
                org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint.class);
    }

    /** Deletes every checkpoint file of the job, as the engine's terminal cleanup does. */
    public void deleteJob(String jobId) {
        storage.deleteCheckpoint(jobId);
    }
}
