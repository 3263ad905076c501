package io.keepsake.seatunnel.engine;

import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.seatunnel.KeepsakeCheckpointStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static io.keepsake.seatunnel.engine.JobSavepoints.RESTORE_SAVEPOINT_OPTION;

/**
 * The restore ({@code -r}) of one job whose storage is Keepsake's plugin, for {@link JobSavepoints}:
 * the newest completed state of each pipeline, checkpoint file or pipeline of a savepoint bundle;
 * with the job option {@value JobSavepoints#RESTORE_SAVEPOINT_OPTION} the savepoint of that id,
 * which must hold every pipeline of the job, and the pipelines' checkpoint ids go on above every id
 * the job used. The option is taken as applied already when the job has a checkpoint newer than its
 * newest savepoint. The state is read once, on the first pipeline's call. Thread-safe.
 */
final class JobRestore {

    private static final Logger LOG = LoggerFactory.getLogger(JobRestore.class);

    private final String jobId;
    private final KeepsakeCheckpointStorage keepsake;
    private final Set<Integer> pipelines;
    private final String chosenSavepoint;
    private boolean restoreRead;
    private RestoredState restored;

    JobRestore(String jobId, KeepsakeCheckpointStorage keepsake, Set<Integer> pipelines, String chosenSavepoint) {
        this.jobId = jobId;
        this.keepsake = keepsake;
        this.pipelines = pipelines;
        this.chosenSavepoint = chosenSavepoint;
    }

    /**
     * The state pipeline {@code pipelineId} starts from, in the engine's own form; null when it has none.
     *
     * @throws CheckpointStorageException when the state cannot be read
     */
    PipelineState pipelineState(String jobId, String pipelineId) throws CheckpointStorageException {
        int pid = Integer.parseInt(pipelineId.trim());
        RestoredState state = restored();
        io.keepsake.engine.CompletedCheckpoint checkpoint = state == null ? null : state.checkpoints().get(pid);
        if (checkpoint == null) {
            LOG.info("Job {} pipeline {}: no state to restore; it starts afresh", jobId, pid);
            return null;
        }
        keepsake.savepointKeptOrRestored(jobId, pid);
        RestoredState.Origin origin = state.origins().get(pid);
        // Restoring a chosen savepoint: the pipeline's ids go on above every id the job has used, so that
        // no later checkpoint file shares an id with an older one and the newest state stays the highest id.
        long seed = chosenSavepoint == null ? checkpoint.checkpointId() : Math.max(checkpoint.checkpointId(), newestId(pid));
        LOG.info("Job {} pipeline {}: restoring checkpoint {} from {} ({}); next checkpoint id {}", jobId, pid,
                checkpoint.checkpointId(), origin.savepointId().map(id -> "savepoint " + id).orElse("a checkpoint file"),
                origin.location(), seed + 1);
        return PipelineState.builder().jobId(jobId).pipelineId(pid).checkpointId(seed)
                .states(LegacyCheckpointCodec.encodeCheckpoint(checkpoint)).build();
    }

    private synchronized RestoredState restored() throws CheckpointStorageException {
        if (restoreRead) {
            return restored;
        }
        SavepointRestorer restorer = new SavepointRestorer(keepsake.checkpointSide(), keepsake.savepointSide())
                .withFallbackPastCorrupted(true);
        try {
            Map<Integer, Long> checkpointedPast = chosenSavepoint == null ? Map.of() : checkpointedPastSavepoints();
            if (chosenSavepoint != null && !checkpointedPast.isEmpty()) {
                // The job checkpointed after its newest savepoint: it ran since the chosen restore (a master
                // failover re-reads the same job options) or crashed past its last savepoint. Recovery wins.
                LOG.warn("Job {} names savepoint {} in {}, but it has checkpoints newer than its newest savepoint"
                        + " (pipeline: newest checkpoint id {}): the option is taken as applied already and the job"
                        + " recovers its newest state; to go back to {}, stop the job with a savepoint first, or run"
                        + " `keepsake prepare-restore {} {}` and restore without the option", jobId, chosenSavepoint,
                        RESTORE_SAVEPOINT_OPTION, checkpointedPast, chosenSavepoint, jobId, chosenSavepoint);
                restored = restorer.recoverLatest(jobId);
            } else if (chosenSavepoint != null) {
                RestoredState state = restorer.restoreSavepoint(jobId, chosenSavepoint);
                Set<Integer> missing = new TreeSet<>(pipelines);
                missing.removeAll(state.checkpoints().keySet());
                if (!missing.isEmpty()) {
                    throw new CheckpointStorageException("Cannot restore job " + jobId + " from savepoint "
                            + chosenSavepoint + " (" + RESTORE_SAVEPOINT_OPTION + "): it holds no state of pipelines "
                            + missing + " (it holds " + new TreeSet<>(state.checkpoints().keySet()) + "; "
                            + state.savepoint().map(SavepointHandle::location).orElse("") + ")");
                }
                restored = state;
            } else {
                restored = restorer.recoverLatest(jobId);
            }
        } catch (SavepointNotFoundException e) {
            if (chosenSavepoint != null) {
                throw new CheckpointStorageException("Cannot restore job " + jobId + " from savepoint " + chosenSavepoint
                        + " (" + RESTORE_SAVEPOINT_OPTION + "): " + e.getMessage() + "; `keepsake list " + jobId
                        + "` shows the job's savepoints", e);
            }
            restored = null; // the job has no state at all: it starts afresh, as the released engine does
        } catch (RuntimeException e) {
            throw new CheckpointStorageException("Cannot restore job " + jobId + (chosenSavepoint == null ? ""
                    : " from savepoint " + chosenSavepoint) + " under " + keepsake.savepointSide().savepointRoot()
                    + ": " + e.getMessage(), e);
        }
        restoreRead = true;
        return restored;
    }

    /**
     * The pipelines whose newest checkpoint file is newer than every savepoint bundle of the job holds
     * for them, with that file's id; empty when the job has not checkpointed since its newest savepoint.
     */
    private Map<Integer, Long> checkpointedPastSavepoints() {
        Map<Integer, Long> past = new TreeMap<>();
        try {
            Map<Integer, Long> inBundles = new TreeMap<>();
            for (SavepointHandle h : keepsake.savepointSide().listSavepoints(jobId)) {
                for (ManifestEntry e : h.meta().manifest()) {
                    inBundles.merge(e.pipelineId(), e.checkpointId(), Math::max);
                }
            }
            for (int pid : pipelines) {
                io.keepsake.storage.PipelineState file = keepsake.checkpointSide()
                        .getLatestCheckpointByJobIdAndPipelineId(jobId, Integer.toString(pid));
                if (file != null && file.checkpointId() > inBundles.getOrDefault(pid, Long.MIN_VALUE)) {
                    past.put(pid, file.checkpointId());
                }
            }
        } catch (io.keepsake.storage.CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot list the checkpoints of job " + jobId
                    + ": " + e.getMessage(), e);
        }
        return past;
    }

    /** The highest checkpoint id the job has used for a pipeline, in checkpoint files and bundles. */
    private long newestId(int pipelineId) throws CheckpointStorageException {
        long newest = Long.MIN_VALUE;
        try {
            io.keepsake.storage.PipelineState file = keepsake.checkpointSide()
                    .getLatestCheckpointByJobIdAndPipelineId(jobId, Integer.toString(pipelineId));
            if (file != null) {
                newest = file.checkpointId();
            }
            for (SavepointHandle h : keepsake.savepointSide().listSavepoints(jobId)) {
                for (ManifestEntry e : h.meta().manifest()) {
                    if (e.pipelineId() == pipelineId) {
                        newest = Math.max(newest, e.checkpointId());
                    }
                }
            }
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            throw new CheckpointStorageException("Cannot restore job " + jobId + " from savepoint " + chosenSavepoint
                    + ": the ids the job used cannot be listed: " + e.getMessage(), e);
        }
        return newest;
    }
}
