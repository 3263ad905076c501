package io.keepsake.seatunnel;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.PipelineState;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.api.serialization.DefaultSerializer;
import org.apache.seatunnel.connectors.seatunnel.fake.source.FakeSourceSplit;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * How far a FakeSource reader had got at one checkpoint, read from the checkpoint's own state.
 *
 * <p>FakeSource 2.3.8's enumerator hands every split to the reader when the job starts; the reader
 * reads one split per {@code pollNext} (which then sleeps a second) and snapshots the splits it has
 * not read yet, each serialized by the source's split serializer (SeaTunnel's
 * {@code DefaultSerializer}, Java serialization). On a restore the reader's splits go back to the
 * enumerator, which hands them to the reader again, so a pipeline restored from checkpoint C has
 * exactly C's unread splits: any checkpoint it takes afterwards holds a subset of them. A restart
 * from scratch or from an older checkpoint brings splits that C had read back into the unread set.
 *
 * @param jobId        the job
 * @param pipelineId   the pipeline
 * @param checkpointId the checkpoint the state was read from
 * @param unread       the ids of the splits the reader had not read yet
 * @param unreadRows   the rows in those splits
 */
record FakeSourceProgress(long jobId, int pipelineId, long checkpointId, SortedSet<Integer> unread, long unreadRows) {

    FakeSourceProgress {
        unread = Collections.unmodifiableSortedSet(new TreeSet<>(unread));
    }

    /** The reader's progress in one checkpoint file as Keepsake reads it. */
    static FakeSourceProgress of(PipelineState state) {
        return of(LegacyCheckpointCodec.decodeCheckpoint(state.states(), "checkpoint " + state.checkpointId()
                + " of job " + state.jobId() + " pipeline " + state.pipelineId()));
    }

    /**
     * The reader's progress in a decoded checkpoint: the FakeSource action's subtask states, every
     * element one unread split.
     *
     * @throws IllegalStateException naming the job, pipeline and checkpoint when the checkpoint holds no
     *                               (or more than one) FakeSource action, a reader slot is empty, or a
     *                               split does not deserialize
     */
    static FakeSourceProgress of(CompletedCheckpoint checkpoint) {
        String where = "checkpoint " + checkpoint.checkpointId() + " of job " + checkpoint.jobId() + " pipeline "
                + checkpoint.pipelineId();
        List<ActionState> sources = checkpoint.taskStates().values().stream()
                .filter(a -> a.stateKey().name().contains("FakeSource")).toList();
        if (sources.size() != 1) {
            throw new IllegalStateException("Cannot read the FakeSource reader's progress in " + where + ": expected one"
                    + " FakeSource action, found " + sources.size() + " among " + checkpoint.taskStates().keySet());
        }
        ActionState source = sources.get(0);
        DefaultSerializer<FakeSourceSplit> serializer = new DefaultSerializer<>();
        SortedSet<Integer> unread = new TreeSet<>();
        long rows = 0;
        for (int slot = 0; slot < source.subtaskStates().size(); slot++) {
            ActionSubtaskState reader = source.subtaskStates().get(slot);
            if (reader == null) {
                throw new IllegalStateException("Cannot read the FakeSource reader's progress in " + where
                        + ": reader subtask " + slot + " of " + source.stateKey().name() + " reported no state");
            }
            for (byte[] bytes : reader.state()) {
                FakeSourceSplit split;
                try {
                    split = serializer.deserialize(bytes);
                } catch (IOException | RuntimeException e) {
                    throw new IllegalStateException("Cannot read the FakeSource reader's progress in " + where
                            + ": a split of reader subtask " + slot + " does not deserialize: " + e, e);
                }
                if (!unread.add(split.getSplitId())) {
                    throw new IllegalStateException("Cannot read the FakeSource reader's progress in " + where
                            + ": split " + split.getSplitId() + " is held twice");
                }
                rows += split.getRowNum();
            }
        }
        return new FakeSourceProgress(checkpoint.jobId(), checkpoint.pipelineId(), checkpoint.checkpointId(), unread, rows);
    }

    /** Rows read by this checkpoint, for a job whose pipeline has {@code totalRows} rows. */
    long rowsRead(long totalRows) {
        return totalRows - unreadRows;
    }

    /**
     * Fails unless the reader had read something and still had something to read: fewer than
     * {@code splits} splits unread, and at least one.
     */
    void requireUnderWay(int splits, String when) {
        if (unread.size() >= splits) {
            throw new AssertionError("No progress " + when + ": " + this + " still holds all " + splits + " splits");
        }
        if (unread.isEmpty()) {
            throw new AssertionError("Nothing left to read " + when + ": " + this + " holds no split; the job's "
                    + splits + " splits must outlast the test");
        }
    }

    /**
     * Fails unless this checkpoint, the first one after the pipeline was restored from {@code from},
     * continues from {@code from}: its unread splits are a subset of {@code from}'s (a restore from an
     * older checkpoint, or from nothing, brings read splits back), not all {@code splits} of the job
     * again, and not none.
     */
    void requireResumedFrom(FakeSourceProgress from, int splits) {
        String what = "pipeline " + pipelineId + " of job " + jobId + ": checkpoint " + checkpointId
                + ", the first after the restore from checkpoint " + from.checkpointId;
        if (from.jobId != jobId || from.pipelineId != pipelineId) {
            throw new AssertionError("Cannot compare " + this + " with " + from + ": another job or pipeline");
        }
        SortedSet<Integer> back = new TreeSet<>(unread);
        back.removeAll(from.unread);
        if (!back.isEmpty()) {
            throw new AssertionError(what + " holds " + back.size() + " split(s) that checkpoint " + from.checkpointId
                    + " had already read (" + head(back) + "): the pipeline did not resume from checkpoint "
                    + from.checkpointId + " (unread " + from.unread.size() + " there, " + unread.size() + " here)");
        }
        if (unread.size() >= splits) {
            throw new AssertionError(what + " holds all " + splits + " splits again: the pipeline started over");
        }
        if (unread.isEmpty()) {
            throw new AssertionError(what + " holds no split: the reader lost the " + from.unread.size()
                    + " splits checkpoint " + from.checkpointId + " had left to read");
        }
    }

    private static String head(SortedSet<Integer> ids) {
        List<Integer> first = ids.stream().limit(10).toList();
        return ids.size() > first.size() ? first + " ..." : first.toString();
    }

    @Override
    public String toString() {
        return "FakeSourceProgress[job " + jobId + ", pipeline " + pipelineId + ", checkpoint " + checkpointId
                + ", " + unread.size() + " splits unread (" + unreadRows + " rows)]";
    }
}
