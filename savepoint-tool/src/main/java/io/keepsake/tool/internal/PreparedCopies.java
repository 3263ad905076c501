package io.keepsake.tool.internal;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Finds the checkpoint files {@code keepsake prepare-restore} wrote: a pipeline's newest checkpoint
 * file that holds a savepoint's state for that pipeline, with nothing changed but the checkpoint id
 * (numbered above the savepoint's), and that no savepoint of the job numbers above. Files are read
 * and decoded to compare; stateless.
 */
public final class PreparedCopies {

    private PreparedCopies() {
    }

    /**
     * A pipeline's newest checkpoint file, found holding a savepoint's state.
     *
     * @param pipelineId   the pipeline
     * @param checkpointId the checkpoint id the savepoint holds for it
     * @param restoresAs   the checkpoint id of the file
     * @param file         the file's name
     */
    public record Copy(int pipelineId, long checkpointId, long restoresAs, String file) {
    }

    /**
     * The newest checkpoint file of each pipeline of {@code chosen} when every one of them holds
     * that pipeline's chosen state renumbered above it, and no savepoint of the job numbers that
     * pipeline higher; empty otherwise.
     *
     * @param chosen the state to find, by pipeline, as the savepoints hold it
     * @throws SavepointStorageException when the job's checkpoints cannot be listed or read
     */
    public static Optional<List<Copy>> find(KeepsakeStorage storage, String jobId,
                                            Map<Integer, CompletedCheckpoint> chosen) {
        Map<Integer, CheckpointFile> newest = newestFiles(storage, jobId);
        List<SavepointEntry> savepoints = storage.listJobs().contains(jobId) ? storage.scanSavepoints(jobId) : List.of();
        List<Copy> copies = new java.util.ArrayList<>();
        for (Map.Entry<Integer, CompletedCheckpoint> e : chosen.entrySet()) {
            CheckpointFile f = newest.get(e.getKey());
            if (f == null || savepointAbove(savepoints, e.getKey(), f.checkpointId())
                    || !holds(storage, f, e.getValue())) {
                return Optional.empty();
            }
            copies.add(new Copy(e.getKey(), e.getValue().checkpointId(), f.checkpointId(), f.fileName()));
        }
        return Optional.of(List.copyOf(copies));
    }

    /** The newest checkpoint file of each pipeline of the job, by pipeline. */
    public static Map<Integer, CheckpointFile> newestFiles(KeepsakeStorage storage, String jobId) {
        Map<Integer, CheckpointFile> newest = new TreeMap<>();
        List<CheckpointFile> files;
        try {
            files = storage.checkpointFiles(jobId);
        } catch (CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot list the checkpoints of job " + jobId + ": " + e.getMessage(), e);
        }
        for (CheckpointFile f : files) {
            CheckpointFile best = newest.get(f.pipelineId());
            if (best == null || f.checkpointId() >= best.checkpointId()) {
                newest.put(f.pipelineId(), f);
            }
        }
        return newest;
    }

    /**
     * True when checkpoint file {@code f} holds {@code saved} with only its checkpoint id changed,
     * to one above the saved one: what a restore preparation writes.
     *
     * @throws SavepointStorageException when the file cannot be read
     */
    public static boolean holds(KeepsakeStorage storage, CheckpointFile f, CompletedCheckpoint saved) {
        if (f.checkpointId() <= saved.checkpointId()) {
            return false;
        }
        PipelineState state;
        try {
            state = storage.getLatestCheckpointByJobIdAndPipelineId(f.jobId(), Integer.toString(f.pipelineId()));
        } catch (CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot read the newest checkpoint of pipeline " + f.pipelineId()
                    + " of job " + f.jobId() + ": " + e.getMessage() + " (" + f.path() + ")", e);
        }
        if (state == null || state.checkpointId() != f.checkpointId()) {
            return false;
        }
        CompletedCheckpoint found;
        try {
            found = LegacyCheckpointCodec.decodeCheckpoint(state.states(), f.path());
        } catch (RuntimeException doesNotDecode) {
            return false; // not a copy of a savepoint's state, whatever else it is
        }
        CompletedCheckpoint renumbered = new CompletedCheckpoint(saved.jobId(), saved.pipelineId(), f.checkpointId(),
                saved.triggerTimestamp(), saved.checkpointType(), saved.completedTimestamp(), saved.taskStates(),
                saved.taskStatistics());
        return found.equals(renumbered);
    }

    /** True when a complete savepoint of the job holds {@code pipeline} at a checkpoint id above {@code id}. */
    private static boolean savepointAbove(List<SavepointEntry> savepoints, int pipeline, long id) {
        for (SavepointEntry s : savepoints) {
            ManifestEntry m = s.handle().map(h -> h.meta().entryForPipeline(pipeline)).orElse(null);
            if (m != null && m.checkpointId() > id) {
                return true;
            }
        }
        return false;
    }
}
