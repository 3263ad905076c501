package io.keepsake.seatunnel.engine;

import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.seatunnel.KeepsakeCheckpointStorage;
import io.keepsake.storage.SavepointCommitFailedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.StagedCheckpoint;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.apache.seatunnel.engine.common.config.server.CheckpointConfig;
import org.apache.seatunnel.engine.common.utils.PassiveCompletableFuture;
import org.apache.seatunnel.engine.core.job.JobStatus;
import org.apache.seatunnel.engine.server.checkpoint.CheckpointCoordinator;
import org.apache.seatunnel.engine.server.checkpoint.CheckpointPlan;
import org.apache.seatunnel.engine.server.checkpoint.CompletedCheckpoint;
import org.apache.seatunnel.engine.server.dag.physical.PhysicalPlan;
import org.apache.seatunnel.engine.server.master.JobMaster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * What the patched {@code CheckpointManager} of SeaTunnel 2.3.8 delegates to: one job's savepoints
 * as one Keepsake {@link SavepointSaveSession}, and its restore through {@link SavepointRestorer}
 * and the reader registry.
 *
 * <p>Active only when the job's checkpoint storage is Keepsake's SeaTunnel plugin
 * ({@code checkpoint.storage.type: keepsake}); with any other storage every call goes to that
 * storage unchanged, as the released engine makes it.
 *
 * <p>Save: {@link #triggerSavePoints} opens one session for every pipeline of the job before any
 * coordinator starts its savepoint. Each coordinator's completed savepoint comes to
 * {@link #storeCheckPoint}: its SeaTunnel {@code .ser} file is written and synced under a hidden
 * name, and its state is reported into the session (engine-wire v1). When the last pipeline
 * reaches its savepoint ({@link #pipelineReachedSavepoint}, just before its coordinator turns
 * SUSPEND) the session commits, then the hidden files are published; a commit that fails fails
 * that coordinator, as a failed store does in the released engine. A pipeline's savepoint that
 * fails or expires, a coordinator reset (failover) or the job's end aborts the session: nothing of
 * it becomes visible and the hidden files are removed. A pipeline whose savepoint could not be
 * stored has its later checkpoints refused by the plugin, so the engine fails the job after its
 * retries, as the plugin alone does.
 *
 * <p>Job status: the engine sets the job to {@code DOING_SAVEPOINT} before the savepoint starts and
 * never sets it back. A request that cannot start (a pipeline's coordinator would refuse it, or the
 * session cannot be opened) is refused before any barrier: no task stopped, and the job is put back
 * to {@code RUNNING}. A savepoint aborted after it started (a pipeline's savepoint failed, expired or
 * could not be stored or committed) also puts the job back to {@code RUNNING}, and the engine's
 * failover then restarts or fails the pipelines as it does for any failed checkpoint; a job left in
 * {@code DOING_SAVEPOINT} would otherwise show that status while it runs on, and end
 * {@code SAVEPOINT_DONE} when its pipelines finish although no savepoint was kept.
 *
 * <p>Restore ({@code -r}): the newest completed state of each pipeline, checkpoint file or
 * pipeline of a savepoint bundle ({@link SavepointRestorer#recoverLatest}); with the job option
 * {@value #RESTORE_SAVEPOINT_OPTION} the savepoint of that id, which must hold every pipeline of
 * the job, and the pipelines' checkpoint ids go on above every id the job used. The option is
 * taken as applied already when the job has a checkpoint newer than its newest savepoint (it ran
 * since: a master failover re-reads the same options), and the newest state is recovered, with a
 * warning. A bundle whose format version is outside the registry's window fails the submission
 * with the registry's message. Bundles that fail their checks are skipped for older state, named at
 * ERROR, as the plugin does.
 *
 * <p>Thread-safe: the job's coordinators call it from their own threads.
 */
public final class JobSavepoints {

    /** The job option ({@code env} block) naming the savepoint a restore ({@code -r}) starts from. */
    public static final String RESTORE_SAVEPOINT_OPTION = "keepsake.restore.savepoint-id";

    private static final Logger LOG = LoggerFactory.getLogger(JobSavepoints.class);

    private final String jobId;
    private final JobMaster jobMaster;
    private final CheckpointStorage engineStorage;
    private final KeepsakeCheckpointStorage keepsake;
    private final Set<Integer> pipelines;
    private final Duration sessionTimeout;

    /** The job's restore; null when its storage is not Keepsake's. */
    private final JobRestore restore;

    private SavepointSaveSession session;
    private final Map<Integer, StagedCheckpoint> staged = new TreeMap<>();
    private final Map<Integer, Long> reportedIds = new TreeMap<>();
    private final Set<Integer> reached = new TreeSet<>();
    private String lastAbort = "no savepoint was triggered";
    /** Savepoint requests so far: a status reset for an older request never touches a newer one's. */
    private long requests;
    /** A savepoint of the job committed: its pipelines are ending with it, and the job must end SAVEPOINT_DONE. */
    private boolean committed;

    private JobSavepoints(long jobId, JobMaster jobMaster, CheckpointStorage engineStorage,
                          KeepsakeCheckpointStorage keepsake, Set<Integer> pipelines, String chosenSavepoint,
                          Duration sessionTimeout) {
        this.jobId = Long.toString(jobId);
        this.jobMaster = jobMaster;
        this.engineStorage = engineStorage;
        this.keepsake = keepsake;
        this.pipelines = Collections.unmodifiableSet(new TreeSet<>(pipelines));
        this.restore = keepsake == null ? null : new JobRestore(this.jobId, keepsake, this.pipelines, chosenSavepoint);
        this.sessionTimeout = sessionTimeout;
    }

    /**
     * The job's savepoints on the storage the engine opened for it.
     *
     * @param jobId     the job
     * @param jobMaster the job's master, whose job options may name a savepoint to restore; may be null
     * @param storage   the checkpoint storage the engine created for the job
     * @param plans     the job's checkpoint plans, one per pipeline
     * @param config    the job's checkpoint config (its timeout bounds a savepoint session)
     * @return the job's savepoints, inert unless {@code storage} is Keepsake's plugin
     */
    public static JobSavepoints of(long jobId, JobMaster jobMaster, CheckpointStorage storage,
                                   Map<Integer, CheckpointPlan> plans, CheckpointConfig config) {
        Set<Integer> pipelines = new TreeSet<>();
        plans.values().forEach(p -> pipelines.add(p.getPipelineId()));
        String chosen = chosenSavepoint(jobMaster);
        if (!(storage instanceof KeepsakeCheckpointStorage keepsake)) {
            if (chosen != null) {
                LOG.warn("Job {} names savepoint {} in {}, but its checkpoint storage is not Keepsake's ({}):"
                        + " the option is ignored", jobId, chosen, RESTORE_SAVEPOINT_OPTION, storage.getClass().getName());
            }
            return new JobSavepoints(jobId, jobMaster, storage, null, pipelines, null, null);
        }
        // A backstop only: the coordinators' own checkpoint timeout fails a late savepoint first, and that aborts the session.
        long timeoutMillis = Math.max(config.getCheckpointTimeout(), 10_000L) * 3 + 60_000L;
        LOG.info("Job {}: savepoints are job-level Keepsake bundles of pipelines {} (engine overlay){}", jobId,
                pipelines, chosen == null ? "" : "; a restore starts from savepoint " + chosen);
        JobSavepoints savepoints = new JobSavepoints(jobId, jobMaster, storage, keepsake, pipelines, chosen,
                Duration.ofMillis(timeoutMillis));
        savepoints.takenOverWhileSaving();
        return savepoints;
    }

    /**
     * A job master creates its checkpoint manager when a job is submitted, restored with {@code -r}, or
     * taken over by a new master after the old one was lost. Only the last finds the job in
     * {@code DOING_SAVEPOINT}: a stop-with-savepoint was requested from the master that was lost, and
     * its session died with it (nothing of it was published but a bundle it had committed already). The
     * engine would leave the job in that status while its pipelines run on, and end a batch job
     * {@code SAVEPOINT_DONE}; so the job is put back to {@code RUNNING} and the operator told at ERROR.
     */
    private void takenOverWhileSaving() {
        PhysicalPlan plan = jobMaster == null ? null : jobMaster.getPhysicalPlan();
        if (plan == null || plan.getJobStatus() != JobStatus.DOING_SAVEPOINT) {
            return;
        }
        LOG.error("Job {} was taken over by this engine member while a savepoint of it was in progress on the member"
                + " that was lost: that savepoint did not finish here and the job does not stop; `keepsake list {}`"
                + " shows whether it was kept before the loss; request a new one with `seatunnel.sh -s {}`", jobId,
                jobId, jobId);
        resumeRunning(0, "the savepoint requested before the take-over was lost with the member that ran it");
    }

    private static String chosenSavepoint(JobMaster jobMaster) {
        if (jobMaster == null || jobMaster.getJobImmutableInformation() == null
                || jobMaster.getJobImmutableInformation().getJobConfig() == null) {
            return null;
        }
        Object value = jobMaster.getJobImmutableInformation().getJobConfig().getEnvOptions().get(RESTORE_SAVEPOINT_OPTION);
        return value == null || value.toString().isBlank() ? null : value.toString().trim();
    }

    /** Whether the job's savepoints go through Keepsake sessions (its storage is Keepsake's plugin). */
    public boolean active() {
        return keepsake != null;
    }

    // ---------------------------------------------------------------------------------------------
    // Restore
    // ---------------------------------------------------------------------------------------------

    /**
     * The state a restored pipeline starts from, in the engine's own form; null when it has none.
     *
     * @throws CheckpointStorageException when the state cannot be read: a bundle of a format version
     *                                    outside the registry's window, a chosen savepoint that is missing
     *                                    or lacks a pipeline, or a storage that cannot be read
     */
    public PipelineState getLatestCheckpointByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException {
        if (keepsake == null) {
            return engineStorage.getLatestCheckpointByJobIdAndPipelineId(jobId, pipelineId);
        }
        return restore.pipelineState(jobId, pipelineId);
    }

    // ---------------------------------------------------------------------------------------------
    // Save
    // ---------------------------------------------------------------------------------------------

    /**
     * Starts a savepoint of every pipeline, as {@code CheckpointManager.triggerSavePoints} does, after
     * opening the job's session; a savepoint already in progress is joined, not opened twice. A new
     * savepoint that a pipeline's coordinator would refuse (its tasks not all ready, or it ended), or
     * whose session cannot be opened, is refused before any barrier: every returned future fails with
     * the reason, and the job is put back to {@code RUNNING}.
     */
    @SuppressWarnings("unchecked")
    public PassiveCompletableFuture<CompletedCheckpoint>[] triggerSavePoints(
            Map<Integer, CheckpointCoordinator> coordinators) {
        if (keepsake == null) {
            return coordinators.values().parallelStream().map(CheckpointCoordinator::startSavepoint)
                    .toArray(PassiveCompletableFuture[]::new);
        }
        SavepointSaveSession opened;
        SavepointSaveSession inProgress;
        String refused = null;
        long request;
        synchronized (this) {
            request = ++requests;
            if (session != null && session.completion().isDone()) {
                // Ended on its own (its timeout): forget it, so that this request opens a new one.
                abort(session, "it ended before this request: " + session.completion().handle((h, e) -> e == null
                        ? "committed" : message(e)).join());
            }
            inProgress = session;
            opened = null;
            if (inProgress == null) {
                refused = refusal(coordinators);
                if (refused == null) {
                    opened = open(coordinators);
                    if (opened == null) {
                        refused = lastAbort;
                    }
                } else {
                    lastAbort = refused;
                }
            }
        }
        if (refused != null) {
            String message = "Cannot start a savepoint of job " + jobId + ": " + refused + "; no task was stopped"
                    + " and nothing was written, the job goes on RUNNING";
            LOG.error(message);
            resumeRunning(request, refused);
            return failedFutures(coordinators, message);
        }
        if (inProgress != null) {
            // Joined outside this object's lock: a coordinator's startSavepoint may wait for the pending
            // savepoint, whose completion comes through storeCheckPoint, which takes that lock.
            LOG.info("Savepoint {} of job {} is in progress; the new request joins it", inProgress.savepointId(), jobId);
            return start(coordinators, inProgress);
        }
        return start(coordinators, opened);
    }

    /** Opens the job's session; the caller holds this object's lock. Null when it cannot be opened. */
    private SavepointSaveSession open(Map<Integer, CheckpointCoordinator> coordinators) {
        SavepointSaveSession opened;
        try {
            opened = SavepointSaveSession.builder(keepsake.savepointSide(), jobId, pipelines)
                    .kind(SavepointKind.MANUAL).timeout(sessionTimeout).open();
        } catch (RuntimeException e) {
            LOG.error("Cannot start a savepoint of job {} (pipelines {}): {}", jobId, coordinators.keySet(),
                    e.getMessage(), e);
            lastAbort = "the savepoint could not be opened under " + keepsake.savepointSide().savepointRoot() + ": "
                    + e.getMessage();
            return null;
        }
        session = opened;
        staged.clear();
        reportedIds.clear();
        reached.clear();
        return opened;
    }

    /**
     * Why a coordinator would refuse a savepoint started now (as its {@code startSavepoint} checks
     * first), naming the pipeline; null when every one would start. The caller holds this object's lock.
     */
    private String refusal(Map<Integer, CheckpointCoordinator> coordinators) {
        for (Map.Entry<Integer, CheckpointCoordinator> e : new TreeMap<>(coordinators).entrySet()) {
            String reason = e.getValue().savepointRefusal();
            if (reason != null) {
                return "pipeline " + e.getKey() + " cannot take a savepoint now (the engine's checkpoint coordinator: "
                        + reason + ")";
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private PassiveCompletableFuture<CompletedCheckpoint>[] failedFutures(Map<Integer, CheckpointCoordinator> coordinators,
                                                                          String message) {
        CompletableFuture<CompletedCheckpoint> failed = new CompletableFuture<>();
        failed.completeExceptionally(new IllegalStateException(message));
        return coordinators.keySet().stream().map(pid -> new PassiveCompletableFuture<>(failed))
                .toArray(PassiveCompletableFuture[]::new);
    }

    @SuppressWarnings("unchecked")
    private PassiveCompletableFuture<CompletedCheckpoint>[] start(Map<Integer, CheckpointCoordinator> coordinators,
                                                                  SavepointSaveSession target) {
        List<Map.Entry<Integer, CheckpointCoordinator>> entries = new ArrayList<>(coordinators.entrySet());
        PassiveCompletableFuture<CompletedCheckpoint>[] futures = entries.parallelStream()
                .map(e -> e.getValue().startSavepoint()).toArray(PassiveCompletableFuture[]::new);
        for (int i = 0; i < futures.length; i++) {
            int pid = entries.get(i).getKey();
            futures[i].whenComplete((checkpoint, error) -> {
                if (error != null) {
                    abortAndResume(target, "the savepoint of pipeline " + pid + " failed in the engine: "
                            + message(error));
                }
            });
        }
        return futures;
    }

    /**
     * Stores one completed checkpoint of a pipeline: a checkpoint as the storage does; a savepoint
     * into the job's session, its {@code .ser} file staged until the session commits.
     *
     * @throws CheckpointStorageException when the savepoint cannot be saved (the session is aborted),
     *                                    or the storage refuses the checkpoint
     */
    public void storeCheckPoint(CompletedCheckpoint completed, PipelineState state) throws CheckpointStorageException {
        if (keepsake == null || !completed.getCheckpointType().isSavepoint()) {
            engineStorage.storeCheckPoint(state);
            return;
        }
        int pid = state.getPipelineId();
        long checkpointId = state.getCheckpointId();
        SavepointSaveSession target;
        synchronized (this) {
            target = session;
        }
        if (target == null) {
            refuse(pid, checkpointId, "(none)", "the job's savepoint was aborted: " + lastAbort);
            throw new CheckpointStorageException("Cannot store savepoint checkpoint " + checkpointId + " of job " + jobId
                    + " pipeline " + pid + ": no savepoint of the job is open (" + lastAbort + "); nothing of it is"
                    + " kept, and the pipeline's later checkpoints are refused so that the engine ends the job");
        }
        StagedCheckpoint file = null;
        try {
            file = keepsake.checkpointSide().stageCheckPoint(new io.keepsake.storage.PipelineState(state.getJobId(),
                    pid, checkpointId, state.getStates()));
            target.report(LegacyCheckpointCodec.decodeCheckpoint(state.getStates(), "savepoint checkpoint "
                    + checkpointId + " of job " + jobId + " pipeline " + pid));
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            if (file != null) {
                file.close();
            }
            String reason = "pipeline " + pid + " (checkpoint " + checkpointId + ") could not be saved: " + e.getMessage();
            abortAndResume(target, reason);
            refuse(pid, checkpointId, target.savepointId(), reason);
            String message = "Cannot save pipeline " + pid + " (checkpoint " + checkpointId + ") into savepoint "
                    + target.savepointId() + " of job " + jobId + " under " + keepsake.savepointSide().savepointRoot()
                    + ": " + e.getMessage() + "; the savepoint is aborted and nothing of it is visible";
            LOG.error(message);
            throw new CheckpointStorageException(message, e);
        }
        synchronized (this) {
            if (session == target) {
                staged.put(pid, file);
                reportedIds.put(pid, checkpointId);
                return;
            }
        }
        file.close();
        refuse(pid, checkpointId, target.savepointId(), "the job's savepoint was aborted: " + lastAbort);
        throw new CheckpointStorageException("Cannot store savepoint checkpoint " + checkpointId + " of job " + jobId
                + " pipeline " + pid + ": savepoint " + target.savepointId() + " was aborted meanwhile (" + lastAbort + ")");
    }

    /**
     * Records that a pipeline reached its savepoint (its coordinator turns SUSPEND next); the last
     * pipeline commits the job's savepoint and publishes the staged checkpoint files.
     *
     * @throws SavepointCommitFailedException when the savepoint was aborted or its commit failed; the
     *                                        coordinator then fails, as on a failed store
     */
    public void pipelineReachedSavepoint(int pipelineId) {
        if (keepsake == null) {
            return;
        }
        synchronized (this) {
            SavepointSaveSession target = session;
            if (target == null) {
                refuse(pipelineId, reportedIds.getOrDefault(pipelineId, Long.MIN_VALUE), "(none)", lastAbort);
                throw new SavepointCommitFailedException("Cannot end pipeline " + pipelineId + " of job " + jobId
                        + " with its savepoint: the job's savepoint was aborted (" + lastAbort + ")", null);
            }
            try {
                target.pipelineSuspended(pipelineId);
                reached.add(pipelineId);
                if (!reached.containsAll(pipelines)) {
                    LOG.info("Job {} pipeline {} reached savepoint {}; waiting for pipelines {}", jobId, pipelineId,
                            target.savepointId(), missing(reached));
                    return;
                }
                SavepointHandle handle = target.commit();
                for (Map.Entry<Integer, StagedCheckpoint> e : staged.entrySet()) {
                    try (StagedCheckpoint file = e.getValue()) {
                        file.publish();
                    } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException failed) {
                        LOG.warn("Job {} pipeline {}: the checkpoint file of savepoint {} could not be published ({});"
                                + " the bundle holds the state and a restore reads it", jobId, e.getKey(),
                                target.savepointId(), failed.getMessage());
                    }
                    keepsake.savepointKeptOrRestored(jobId, e.getKey());
                }
                staged.clear();
                session = null;
                committed = true;
                LOG.info("Committed savepoint {} of job {} with pipelines {} (checkpoints {}) at {}",
                        handle.savepointId(), jobId, pipelines, reportedIds, handle.location());
            } catch (RuntimeException e) {
                String reason = "pipeline " + pipelineId + " reached its savepoint but the savepoint failed: " + e.getMessage();
                abortAndResume(target, reason);
                reportedIds.forEach((pid, id) -> refuse(pid, id, target.savepointId(), reason));
                String message = "Cannot commit savepoint " + target.savepointId() + " of job " + jobId + " (pipelines "
                        + pipelines + ") under " + keepsake.savepointSide().savepointRoot() + ": " + e.getMessage()
                        + "; nothing of it is visible, pipeline " + pipelineId + " fails as on a failed store and the"
                        + " job's later checkpoints are refused so that the engine ends the job";
                LOG.error(message);
                throw new SavepointCommitFailedException(message, e);
            }
        }
    }

    /** Aborts a savepoint still open when the job ends; its checkpoints and bundles are left as they are. */
    public void jobEnded(JobStatus status) {
        if (keepsake == null) {
            return;
        }
        SavepointSaveSession target;
        synchronized (this) {
            target = session;
        }
        if (target != null) {
            abort(target, "the job ended " + status);
        }
    }

    /** Aborts {@code target}; true when it was the job's open session (now closed). */
    private boolean abort(SavepointSaveSession target, String reason) {
        synchronized (this) {
            target.abort(reason);
            if (session == target) {
                staged.values().forEach(StagedCheckpoint::close);
                staged.clear();
                session = null;
                lastAbort = "savepoint " + target.savepointId() + ": " + reason;
                return true;
            }
            return false;
        }
    }

    /**
     * Aborts a savepoint that started and puts the job back to {@code RUNNING}; the engine's failover
     * then handles the pipelines whose savepoint failed. The status changes later, on another thread.
     */
    private void abortAndResume(SavepointSaveSession target, String reason) {
        long request;
        synchronized (this) {
            if (!abort(target, reason)) {
                return;
            }
            request = requests;
        }
        resumeRunning(request, "savepoint " + target.savepointId() + " was aborted: " + reason);
    }

    /**
     * Sets the job from {@code DOING_SAVEPOINT} back to {@code RUNNING}, on the job master's executor
     * (the caller may be a coordinator thread in the middle of a store), unless a newer request came
     * since {@code request}, a session is open again, or a savepoint of the job was committed (a request
     * refused because the pipelines are already ending with that savepoint). The check and the change hold the physical
     * plan's monitor, which its own state changes hold: a job that turned FAILING, CANCELING or ended
     * meanwhile is left as it is. A request that set {@code DOING_SAVEPOINT} but has not reached
     * {@link #triggerSavePoints} yet is not seen: its savepoint then runs with the job RUNNING, and the
     * job ends FINISHED instead of SAVEPOINT_DONE (its savepoint kept, its checkpoints not deleted).
     */
    private void resumeRunning(long request, String reason) {
        if (jobMaster == null) {
            return;
        }
        Runnable reset = () -> {
            PhysicalPlan plan = jobMaster.getPhysicalPlan();
            if (plan == null) {
                return;
            }
            JobStatus before;
            synchronized (plan) {
                synchronized (this) {
                    if (requests != request || session != null || committed) {
                        LOG.info("Job {}: {}; its status is left as it is", jobId, committed
                                ? "a savepoint of the job was committed" : "a newer savepoint request is in progress");
                        return;
                    }
                }
                before = plan.getJobStatus();
                if (before != JobStatus.DOING_SAVEPOINT) {
                    return;
                }
                plan.updateJobState(JobStatus.RUNNING);
            }
            LOG.warn("Job {} is back from {} to {}: its savepoint was refused or aborted ({})", jobId, before,
                    plan.getJobStatus(), reason);
        };
        Executor executor = jobMaster.getExecutorService();
        try {
            if (executor == null) {
                CompletableFuture.runAsync(reset);
            } else {
                executor.execute(reset);
            }
        } catch (RejectedExecutionException e) {
            LOG.warn("Job {}: its status stays as it is after the savepoint ({}): the job master is stopping", jobId,
                    reason);
        }
    }

    private void refuse(int pipelineId, long checkpointId, String savepointId, String reason) {
        keepsake.refuseCheckpointsAfterFailedSavepoint(jobId, pipelineId, checkpointId, savepointId, reason);
    }

    private Set<Integer> missing(Set<Integer> have) {
        Set<Integer> missing = new TreeSet<>(pipelines);
        missing.removeAll(have);
        return missing;
    }

    private static String message(Throwable error) {
        Throwable t = error;
        while (t.getCause() != null && (t instanceof CompletionException
                || t instanceof ExecutionException)) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
