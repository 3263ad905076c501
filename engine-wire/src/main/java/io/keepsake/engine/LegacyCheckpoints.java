package io.keepsake.engine;

import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's latest legacy checkpoints (SeaTunnel 2.3.x files, legacy v0 encoding), read and decoded
 * to the runtime model, written once for the restorer, the retained-checkpoint promotion and the
 * tool's migration. Every decoded checkpoint must name the job, pipeline and checkpoint it was
 * stored under. Stateless.
 */
public final class LegacyCheckpoints {

    /**
     * One decoded legacy checkpoint.
     *
     * @param pipelineId   the pipeline
     * @param checkpointId the checkpoint
     * @param source       the file it came from, or a description when the storage does not name files
     * @param checkpoint   the decoded checkpoint
     */
    public record Decoded(int pipelineId, long checkpointId, String source, CompletedCheckpoint checkpoint) {
    }

    private LegacyCheckpoints() {
    }

    /**
     * The newest readable checkpoint of each pipeline, as the legacy SPI's {@code getLatestCheckpoint}
     * returns them (a pipeline whose newest file does not decode falls back to an older one, with a
     * warning from the storage), decoded, in pipeline order; empty when the job has none.
     *
     * @throws SavepointStorageException   when the checkpoints cannot be read
     * @throws CheckpointCorruptedException when a checkpoint does not decode or names another job,
     *                                     pipeline or checkpoint
     */
    public static List<Decoded> latest(CheckpointStorage checkpoints, String jobId) {
        List<PipelineState> states;
        try {
            states = new ArrayList<>(checkpoints.getLatestCheckpoint(jobId));
        } catch (CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot read the latest legacy checkpoints of job " + jobId + ": "
                    + e.getMessage(), e);
        }
        states.sort(Comparator.comparingInt(PipelineState::pipelineId));
        List<Decoded> decoded = new ArrayList<>();
        for (PipelineState s : states) {
            decoded.add(decode(jobId, s, "legacy checkpoint " + s.checkpointId() + " of job " + jobId + " pipeline "
                    + s.pipelineId()));
        }
        return decoded;
    }

    /**
     * The newest checkpoint file of each pipeline, which must be readable: unlike {@link #latest},
     * a pipeline whose newest file does not decode fails, naming the file, instead of falling back
     * to older state. Empty when the job has none.
     *
     * @throws CheckpointCorruptedException when a pipeline's newest file does not decode
     * @throws SavepointStorageException   when a file cannot be listed or read
     */
    public static List<Decoded> newest(KeepsakeStorage storage, String jobId) {
        Map<Integer, CheckpointFile> newest = new TreeMap<>();
        try {
            for (CheckpointFile f : storage.checkpointFiles(jobId)) {
                CheckpointFile best = newest.get(f.pipelineId());
                if (best == null || f.checkpointId() >= best.checkpointId()) {
                    newest.put(f.pipelineId(), f);
                }
            }
        } catch (CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot list the legacy checkpoints of job " + jobId + ": "
                    + e.getMessage(), e);
        }
        return read(storage, jobId, newest.values());
    }

    /**
     * The given checkpoint files of a job (one per pipeline, such as an earlier checkpoint an
     * operator chose over an unreadable newest one), read and decoded, in the order given; each
     * must be readable.
     *
     * @throws CheckpointCorruptedException when a file does not decode
     * @throws SavepointStorageException   when a file cannot be read
     */
    public static List<Decoded> read(KeepsakeStorage storage, String jobId, Collection<CheckpointFile> files) {
        List<Decoded> decoded = new ArrayList<>();
        for (CheckpointFile f : files) {
            PipelineState state;
            try {
                state = storage.getCheckpoint(jobId, Integer.toString(f.pipelineId()), Long.toString(f.checkpointId()));
            } catch (CheckpointStorageException e) {
                if (e.getCause() instanceof CheckpointCorruptedException corrupted) {
                    throw corrupted;
                }
                throw new SavepointStorageException("Cannot read legacy checkpoint " + f.checkpointId() + " of job "
                        + jobId + " pipeline " + f.pipelineId() + ": " + e.getMessage() + " (" + f.path() + ")", e);
            }
            decoded.add(decode(jobId, state, f.path()));
        }
        return decoded;
    }

    private static Decoded decode(String jobId, PipelineState s, String source) {
        CompletedCheckpoint cp = LegacyCheckpointCodec.decodeCheckpoint(s.states(), source);
        requireSame(source, "job id", jobId, s.jobId());
        requireSame(source, "job id", s.jobId(), Long.toString(cp.jobId()));
        requireSame(source, "pipeline id", Integer.toString(s.pipelineId()), Integer.toString(cp.pipelineId()));
        requireSame(source, "checkpoint id", Long.toString(s.checkpointId()), Long.toString(cp.checkpointId()));
        return new Decoded(s.pipelineId(), s.checkpointId(), source, cp);
    }

    private static void requireSame(String source, String what, String expected, String actual) {
        if (!expected.equals(actual)) {
            throw new CheckpointCorruptedException(source, "Legacy checkpoint's " + what
                    + " differs from where it was stored", expected, actual);
        }
    }
}
