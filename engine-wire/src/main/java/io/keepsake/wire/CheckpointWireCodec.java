package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SubtaskStatistics;
import io.keepsake.engine.SubtaskStatus;
import io.keepsake.engine.TaskStatistics;
import io.keepsake.storage.KeptArrayInput;
import io.keepsake.storage.SavepointCorruptedException;
import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Encodes and decodes engine-wire-v1, the savepoint payload format of one pipeline's
 * {@link CompletedCheckpoint}.
 *
 * <p>The layout is the protostuff format of {@link WireCheckpoint} and the transfer objects under
 * it, written by their hand-written schemas with frozen tags (see each class for its tag table).
 * Enums are stored by name, maps as lists sorted by key, empty slots by position; the runtime-only
 * {@code restored} flag is not stored and decodes as false.
 *
 * <p>Contract:
 * <ul>
 *   <li>deterministic: equal checkpoints always encode to the same bytes, whatever their map order;</li>
 *   <li>lossless: {@code decode(encode(c))} equals {@code c};</li>
 *   <li>forward tolerant: fields with tags this version does not know are skipped;</li>
 *   <li>truncation evident: every strict prefix of a payload is rejected, because the end marker
 *       ({@link WireCheckpoint#complete}) is written last and nested groups must be closed;</li>
 *   <li>safe on untrusted input: malformed, truncated or hostile bytes raise
 *       {@link SavepointCorruptedException} naming the source, never another exception; declared
 *       lengths and slot counts are bounded before anything is allocated; streams are read up to a
 *       size cap.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe. It does not checksum or frame the payload; the savepoint manifest
 * records each payload's length and SHA-256.
 */
public final class CheckpointWireCodec {

    /** The payload format name recorded in savepoint metadata. */
    public static final String FORMAT_NAME = "engine-wire-v1";

    /** The default cap on a payload read from a stream: 1 GiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 30;

    /** Most subtask slots (action parallelism plus statistics slots) one payload may declare in total. */
    public static final long MAX_SLOTS = 1L << 22;

    /** The one buffer between the encoder and the stream when encoding to a stream: 64 KiB. */
    public static final int ENCODE_BUFFER_BYTES = 64 * 1024;

    private static final int MAX_ARRAY_BYTES = Integer.MAX_VALUE - 16;

    private static final String WHAT = FORMAT_NAME + " checkpoint";

    private final int maxPayloadBytes;

    /** Creates a codec that reads streams of up to {@link #DEFAULT_MAX_PAYLOAD_BYTES}. */
    public CheckpointWireCodec() {
        this(DEFAULT_MAX_PAYLOAD_BYTES);
    }

    /**
     * Creates a codec that refuses streams longer than the given number of bytes.
     *
     * @throws IllegalArgumentException when the cap is not positive or exceeds what an array holds
     */
    public CheckpointWireCodec(int maxPayloadBytes) {
        if (maxPayloadBytes <= 0 || maxPayloadBytes > MAX_ARRAY_BYTES) {
            throw new IllegalArgumentException("Cannot create " + FORMAT_NAME + " codec: the payload cap must be"
                    + " between 1 and " + MAX_ARRAY_BYTES + " bytes (" + maxPayloadBytes + ")");
        }
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /** Encodes a checkpoint to engine-wire-v1 bytes. */
    public byte[] encode(CompletedCheckpoint checkpoint) {
        return ProtostuffIOUtil.toByteArray(toWire(checkpoint), WireCheckpoint.SCHEMA, LinkedBuffer.allocate(4096));
    }

    /**
     * Encodes a checkpoint to engine-wire-v1 and writes it to the stream, which stays open.
     *
     * <p>One buffer of {@link #ENCODE_BUFFER_BYTES} sits between the encoder and {@code out}:
     * field headers and the state arrays that fit in what is left of it are gathered there and
     * reach {@code out} in writes of up to that size; a state array that does not fit is written
     * to {@code out} as it is, uncopied, right after the buffered bytes before it. So no byte is
     * copied more than once on its way to {@code out}, and {@code out} needs no buffer of its own.
     *
     * @throws IOException when the stream fails
     */
    public void encode(CompletedCheckpoint checkpoint, OutputStream out) throws IOException {
        Objects.requireNonNull(out, "Cannot encode " + WHAT + ": out is null");
        ProtostuffIOUtil.writeTo(out, toWire(checkpoint), WireCheckpoint.SCHEMA,
                LinkedBuffer.allocate(ENCODE_BUFFER_BYTES));
    }

    /**
     * Decodes engine-wire-v1 bytes.
     *
     * @param bytes      the payload
     * @param sourceName where the bytes came from, for error messages
     * @throws SavepointCorruptedException when the bytes are not a valid engine-wire-v1 checkpoint
     */
    public CompletedCheckpoint decode(byte[] bytes, String sourceName) {
        Objects.requireNonNull(bytes, "Cannot decode " + WHAT + ": bytes is null");
        WireCheckpoint wire = Decoding.run(WHAT, sourceName,
                () -> new BoundedInput(bytes, 0).readMessage(new WireCheckpoint(), WireCheckpoint.SCHEMA));
        if (!wire.complete) {
            throw new SavepointCorruptedException(sourceName, "Cannot decode " + WHAT + ": the end marker (tag 9)"
                    + " is missing, so the payload was cut short or not written by " + FORMAT_NAME,
                    "complete=true", "absent");
        }
        return fromWire(wire, sourceName);
    }

    /**
     * Decodes a stream to its end (up to the cap this codec was created with); the stream stays
     * open. The stream is read through one small buffer, never whole into memory.
     *
     * @param in         the payload stream
     * @param sourceName where the bytes came from, for error messages
     * @throws SavepointCorruptedException when the payload is too long or not a valid engine-wire-v1 checkpoint
     * @throws IOException                 when reading the stream fails
     */
    public CompletedCheckpoint decode(InputStream in, String sourceName) throws IOException {
        Objects.requireNonNull(in, "Cannot decode " + WHAT + ": in is null");
        return fromWire(readWire(new BoundedInput(in, maxPayloadBytes, true, true, 0), sourceName), sourceName);
    }

    /**
     * Decodes a stream of exactly {@code length} bytes (a manifest's length, say) to its end; the
     * stream stays open. Memory beyond the decoded checkpoint is one small buffer: no payload
     * length cap applies, and a stream of {@link KeptArrayInput} reads state arrays straight into
     * place.
     *
     * @param in         the payload stream
     * @param length     how many bytes the stream holds
     * @param sourceName where the bytes came from, for error messages
     * @throws SavepointCorruptedException when the stream is longer or the bytes are not a valid checkpoint
     * @throws IOException                 when reading the stream fails
     */
    public CompletedCheckpoint decode(InputStream in, long length, String sourceName) throws IOException {
        Objects.requireNonNull(in, "Cannot decode " + WHAT + ": in is null");
        return fromWire(readWire(new BoundedInput(in, length, false, true, 0), sourceName), sourceName);
    }

    /**
     * Checks that a stream of exactly {@code length} bytes is a valid engine-wire-v1 checkpoint
     * without keeping its state objects, which are read and dropped: the check a verifier runs in
     * bounded memory, whatever the size of the state. The stream stays open.
     *
     * @param in         the payload stream
     * @param length     how many bytes the stream holds
     * @param sourceName where the bytes came from, for error messages
     * @throws SavepointCorruptedException when the stream is longer or the bytes are not a valid checkpoint
     * @throws IOException                 when reading the stream fails
     */
    public CheckpointSummary check(InputStream in, long length, String sourceName) throws IOException {
        Objects.requireNonNull(in, "Cannot check " + WHAT + ": in is null");
        CompletedCheckpoint shell = fromWire(readWire(new BoundedInput(in, length, false, false, 0), sourceName),
                sourceName);
        return new CheckpointSummary(shell.jobId(), shell.pipelineId(), shell.checkpointId());
    }

    /**
     * What a checked payload holds, without its state.
     *
     * @param jobId        the job's numeric id
     * @param pipelineId   the pipeline
     * @param checkpointId the checkpoint
     */
    public record CheckpointSummary(long jobId, int pipelineId, long checkpointId) {
    }

    private WireCheckpoint readWire(BoundedInput input, String sourceName) throws IOException {
        WireCheckpoint wire;
        try {
            wire = Decoding.run(WHAT, sourceName, () -> {
                try {
                    return input.readMessage(new WireCheckpoint(), WireCheckpoint.SCHEMA);
                } catch (WireFormatException e) {
                    throw e;
                } catch (IOException e) {
                    throw new Decoding.StreamFailure(e);
                }
            });
        } catch (Decoding.StreamFailure e) {
            throw e.io();
        }
        if (!wire.complete) {
            throw new SavepointCorruptedException(sourceName, "Cannot decode " + WHAT + ": the end marker (tag 9)"
                    + " is missing, so the payload was cut short or not written by " + FORMAT_NAME,
                    "complete=true", "absent");
        }
        return wire;
    }

    /** Maps a checkpoint to its transfer objects: maps sorted by key, empty slots left out, end marker set. */
    WireCheckpoint toWire(CompletedCheckpoint checkpoint) {
        Objects.requireNonNull(checkpoint, "Cannot encode " + WHAT + ": checkpoint is null");
        WireCheckpoint wire = new WireCheckpoint();
        wire.jobId = checkpoint.jobId();
        wire.pipelineId = checkpoint.pipelineId();
        wire.checkpointId = checkpoint.checkpointId();
        wire.triggerTimestamp = checkpoint.triggerTimestamp();
        wire.checkpointType = checkpoint.checkpointType().typeName();
        wire.completedTimestamp = checkpoint.completedTimestamp();
        List<ActionState> actions = new ArrayList<>(checkpoint.taskStates().values());
        actions.sort(Comparator.comparing(a -> a.stateKey().name()));
        for (ActionState action : actions) {
            wire.actionStates.add(toWire(action));
        }
        List<TaskStatistics> statistics = new ArrayList<>(checkpoint.taskStatistics().values());
        statistics.sort(Comparator.comparing(TaskStatistics::jobVertexId));
        for (TaskStatistics stats : statistics) {
            wire.taskStatistics.add(toWire(stats));
        }
        wire.complete = true;
        return wire;
    }

    /**
     * Maps transfer objects back to a checkpoint, checking every constraint of the layout except the
     * end marker, which only {@link #decode(byte[], String)} checks.
     *
     * @param wire   the transfer objects, typically just decoded
     * @param source where they came from, for error messages
     * @throws SavepointCorruptedException when they violate the layout (unknown enum name, bad slot, ...)
     */
    CompletedCheckpoint fromWire(WireCheckpoint wire, String source) {
        Objects.requireNonNull(wire, "Cannot decode " + WHAT + ": wire is null");
        return Decoding.run(WHAT, source, () -> new FromWire(source).checkpoint(wire));
    }

    // ------------------------------------------------------------------ model -> wire

    private static WireActionState toWire(ActionState action) {
        WireActionState wire = new WireActionState();
        wire.name = action.stateKey().name();
        wire.parallelism = action.parallelism();
        addFilledSlots(action.subtaskStates(), wire.subtasks, CheckpointWireCodec::toWire);
        if (action.coordinatorState() != null) {
            wire.coordinator = toWire(action.coordinatorState(), WireSubtaskState.COORDINATOR_SLOT);
        }
        return wire;
    }

    /** Adds the transfer object of each filled slot, with its position, to {@code wire}; empty slots are left out. */
    private static <S, W> void addFilledSlots(List<S> slots, List<W> wire, SlotWriter<S, W> toWire) {
        for (int slot = 0; slot < slots.size(); slot++) {
            if (slots.get(slot) != null) {
                wire.add(toWire.toWire(slots.get(slot), slot));
            }
        }
    }

    /** The transfer object of one filled slot. */
    @FunctionalInterface
    private interface SlotWriter<S, W> {
        W toWire(S value, int slot);
    }

    private static WireSubtaskState toWire(ActionSubtaskState subtask, int slot) {
        WireSubtaskState wire = new WireSubtaskState();
        wire.slot = slot;
        wire.index = subtask.index();
        List<byte[]> state = subtask.state();
        for (int i = 0; i < state.size(); i++) {
            if (state.get(i) == null) {
                wire.nullStatePositions.add(i);
            } else {
                wire.state.add(state.get(i));
            }
        }
        return wire;
    }

    private static WireTaskStatistics toWire(TaskStatistics stats) {
        WireTaskStatistics wire = new WireTaskStatistics();
        wire.jobVertexId = stats.jobVertexId();
        wire.subtaskCount = stats.parallelism();
        addFilledSlots(stats.subtaskStats(), wire.subtaskStats, CheckpointWireCodec::toWire);
        for (int slot = 0; slot < stats.subtaskStats().size(); slot++) {
            wire.subtaskCompleted.add(stats.isSubtaskCompleted(slot));
        }
        wire.numAcknowledgedSubtasks = stats.numAcknowledgedSubtasks();
        if (stats.latestAckedSubtaskStatistics() != null) {
            wire.latestAcked = toWire(stats.latestAckedSubtaskStatistics(), WireSubtaskStatistics.LATEST_ACKED_SLOT);
        }
        return wire;
    }

    private static WireSubtaskStatistics toWire(SubtaskStatistics stats, int slot) {
        WireSubtaskStatistics wire = new WireSubtaskStatistics();
        wire.slot = slot;
        wire.subtaskIndex = stats.subtaskIndex();
        wire.ackTimestamp = stats.ackTimestamp();
        wire.stateSize = stats.stateSize();
        wire.status = stats.subtaskStatus().name();
        return wire;
    }

    // ------------------------------------------------------------------ wire -> model

    /** One conversion: carries the source and the slot budget. */
    private static final class FromWire {
        private final String source;
        private long slotsLeft = MAX_SLOTS;

        FromWire(String source) {
            this.source = source;
        }

        CompletedCheckpoint checkpoint(WireCheckpoint wire) throws WireFormatException {
            if (wire.checkpointType == null) {
                throw new WireFormatException("the checkpoint lacks its type (tag 5)");
            }
            CheckpointType type = CheckpointType.fromName(wire.checkpointType).orElseThrow(() ->
                    unknownName("checkpoint type", wire.checkpointType, CheckpointType.names()));
            Map<ActionStateKey, ActionState> taskStates = new LinkedHashMap<>();
            for (WireActionState action : orEmpty(wire.actionStates)) {
                ActionState state = action(notNull(action, "an action state"));
                if (taskStates.put(state.stateKey(), state) != null) {
                    throw new WireFormatException("two action states have the same name (" + action.name + ")");
                }
            }
            Map<Long, TaskStatistics> taskStatistics = new LinkedHashMap<>();
            for (WireTaskStatistics stats : orEmpty(wire.taskStatistics)) {
                TaskStatistics value = statistics(notNull(stats, "a task statistics entry"));
                if (taskStatistics.put(value.jobVertexId(), value) != null) {
                    throw new WireFormatException("two task statistics have the same job vertex id ("
                            + stats.jobVertexId + ")");
                }
            }
            return new CompletedCheckpoint(wire.jobId, wire.pipelineId, wire.checkpointId, wire.triggerTimestamp,
                    type, wire.completedTimestamp, taskStates, taskStatistics, false);
        }

        private ActionState action(WireActionState wire) throws WireFormatException {
            if (wire.name == null) {
                throw new WireFormatException("an action state lacks its name (tag 1)");
            }
            ActionStateKey key = new ActionStateKey(wire.name);
            List<ActionSubtaskState> slots = slots(wire.parallelism, "action " + wire.name);
            int previous = -1;
            for (WireSubtaskState subtask : orEmpty(wire.subtasks)) {
                notNull(subtask, "a subtask state of action " + wire.name);
                previous = checkSlot(subtask.slot, previous, wire.parallelism, "action " + wire.name);
                slots.set(subtask.slot, subtask(key, subtask));
            }
            ActionSubtaskState coordinator = null;
            if (wire.coordinator != null) {
                if (wire.coordinator.slot != WireSubtaskState.COORDINATOR_SLOT) {
                    throw new WireFormatException("the coordinator state of action " + wire.name
                            + " must have slot -1 (" + wire.coordinator.slot + ")");
                }
                coordinator = subtask(key, wire.coordinator);
            }
            return new ActionState(key, slots, coordinator, wire.parallelism);
        }

        private ActionSubtaskState subtask(ActionStateKey key, WireSubtaskState wire) throws WireFormatException {
            List<byte[]> present = orEmpty(wire.state);
            List<Integer> nullPositions = orEmpty(wire.nullStatePositions);
            int size = present.size() + nullPositions.size();
            List<byte[]> state = new ArrayList<>(size);
            int next = 0;
            int previous = -1;
            for (Integer position : nullPositions) {
                if (position == null || position <= previous || position >= size) {
                    throw new WireFormatException("the null state positions of a subtask of action " + key.name()
                            + " must ascend within 0.." + (size - 1) + " (" + position + ")");
                }
                while (state.size() < position) {
                    state.add(notNull(present.get(next++), "a state object of action " + key.name()));
                }
                state.add(null);
                previous = position;
            }
            while (next < present.size()) {
                state.add(notNull(present.get(next++), "a state object of action " + key.name()));
            }
            return new ActionSubtaskState(key, wire.index, state);
        }

        private TaskStatistics statistics(WireTaskStatistics wire) throws WireFormatException {
            String what = "task statistics " + wire.jobVertexId;
            List<SubtaskStatistics> slots = slots(wire.subtaskCount, what);
            List<Boolean> completed = orEmpty(wire.subtaskCompleted);
            if (completed.size() != wire.subtaskCount) {
                throw new WireFormatException(what + " must have one completed flag per slot, " + wire.subtaskCount
                        + " slots (" + completed.size() + " flags)");
            }
            boolean[] flags = new boolean[completed.size()];
            for (int i = 0; i < flags.length; i++) {
                flags[i] = notNull(completed.get(i), "a completed flag of " + what);
            }
            int previous = -1;
            for (WireSubtaskStatistics stats : orEmpty(wire.subtaskStats)) {
                notNull(stats, "a subtask statistics entry of " + what);
                previous = checkSlot(stats.slot, previous, wire.subtaskCount, what);
                slots.set(stats.slot, subtaskStatistics(stats));
            }
            SubtaskStatistics latest = null;
            if (wire.latestAcked != null) {
                if (wire.latestAcked.slot != WireSubtaskStatistics.LATEST_ACKED_SLOT) {
                    throw new WireFormatException("the latest acknowledgement of " + what + " must have slot -1 ("
                            + wire.latestAcked.slot + ")");
                }
                latest = subtaskStatistics(wire.latestAcked);
            }
            return new TaskStatistics(wire.jobVertexId, slots, flags, wire.numAcknowledgedSubtasks, latest);
        }

        private SubtaskStatistics subtaskStatistics(WireSubtaskStatistics wire) throws WireFormatException {
            if (wire.status == null) {
                throw new WireFormatException("subtask statistics of subtask " + wire.subtaskIndex
                        + " lack their status (tag 5)");
            }
            SubtaskStatus status = SubtaskStatus.fromName(wire.status).orElseThrow(() ->
                    unknownName("subtask status", wire.status, SubtaskStatus.names()));
            return new SubtaskStatistics(wire.subtaskIndex, wire.ackTimestamp, wire.stateSize, status);
        }

        private <T> List<T> slots(int count, String what) throws WireFormatException {
            if (count < 0) {
                throw new WireFormatException(what + " declares a negative number of slots (" + count + ")");
            }
            if (count > slotsLeft) {
                throw new WireFormatException(what + " declares more slots than one payload may hold (" + count
                        + " declared, " + slotsLeft + " left of " + MAX_SLOTS + ")");
            }
            slotsLeft -= count;
            return new ArrayList<>(Collections.nCopies(count, null));
        }

        private static int checkSlot(int slot, int previous, int count, String what) throws WireFormatException {
            if (slot <= previous || slot >= count) {
                throw new WireFormatException(what + " names slots that do not ascend within 0.." + (count - 1)
                        + " (" + slot + ")");
            }
            return slot;
        }

        private SavepointCorruptedException unknownName(String what, String name, List<String> known) {
            return new SavepointCorruptedException(source, "Cannot decode " + WHAT + ": unknown " + what
                    + " name; known names are " + known + " (" + name + ")", "one of " + known, name);
        }

        private static <T> List<T> orEmpty(List<T> list) {
            return list == null ? List.of() : list;
        }

        private static <T> T notNull(T value, String what) throws WireFormatException {
            if (value == null) {
                throw new WireFormatException(what + " is null (null)");
            }
            return value;
        }
    }

    @Override
    public String toString() {
        return "CheckpointWireCodec[" + FORMAT_NAME + ", maxPayloadBytes=" + maxPayloadBytes + "]";
    }
}
