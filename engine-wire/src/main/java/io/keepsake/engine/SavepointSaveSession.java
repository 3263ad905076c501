package io.keepsake.engine;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointCommitFailedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.Versions;
import io.keepsake.storage.internal.Arguments;
import io.keepsake.wire.CheckpointWireCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One savepoint of one job, as the engine's job master drives it. Pipeline coordinators hand in
 * their {@link CompletedCheckpoint}s (from any thread); each is encoded with
 * {@link CheckpointWireCodec} and streamed into the staged writer. {@link #commit()} publishes
 * the bundle only when every expected pipeline has reported its checkpoint and reached SUSPEND;
 * a failure, a cancel, a timeout or a missing pipeline aborts it and nothing becomes visible.
 * {@code commit()} and {@code abort()} are idempotent and safe to race: the first to decide wins.
 * At most one session per job is open at a time in a process (single flight). After a periodic
 * savepoint commits, the oldest periodic savepoints beyond the retention are deleted; manual and
 * retained-checkpoint savepoints are never deleted here. Thread-safe.
 */
public final class SavepointSaveSession implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointSaveSession.class);
    private static final Map<String, SavepointSaveSession> OPEN = new ConcurrentHashMap<>();
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "keepsake-savepoint-timeout");
        t.setDaemon(true);
        return t;
    });

    private enum State { OPEN, COMMITTED, ABORTED }

    private final SavepointStorage storage;
    private final String jobId;
    private final Set<Integer> expected;
    private final SavepointKind kind;
    private final int periodicMaxRetained;
    private final String flightKey;
    private final CheckpointWireCodec codec = new CheckpointWireCodec();
    private final String savepointId;
    private final SavepointWriter writer;
    private final Set<Integer> reported = new HashSet<>();
    private final Set<Integer> writing = new HashSet<>();
    private final Set<Integer> suspended = new HashSet<>();
    private final CompletableFuture<SavepointHandle> completion = new CompletableFuture<>();
    private final ScheduledFuture<?> timeout;
    private State state = State.OPEN;
    private SavepointHandle handle;
    private String abortReason;

    private SavepointSaveSession(Builder b) {
        this.storage = b.targetRoot == null ? b.storage : b.storage.withSavepointRoot(b.targetRoot);
        this.jobId = b.jobId;
        this.expected = Set.copyOf(b.expectedPipelines);
        this.kind = b.kind;
        this.periodicMaxRetained = b.periodicMaxRetained != null ? b.periodicMaxRetained : b.storage.periodicMaxRetained();
        this.flightKey = b.storage.savepointRoot() + "|" + b.jobId;
        String savepointId = b.savepointId != null ? b.savepointId : SavepointRequest.generateId(System.currentTimeMillis());
        SavepointRequest request = new SavepointRequest(jobId, savepointId, kind, Versions.PRODUCER_VERSION,
                CheckpointWireCodec.FORMAT_NAME, System.currentTimeMillis(),
                Map.of("pipelines", new TreeSet<>(expected).toString()));
        this.savepointId = savepointId;
        // The session is published here, before its writer exists: a racing open reads only the
        // id, which is set above, from the session it lost to (never a second, racy lookup).
        SavepointSaveSession inProgress = OPEN.putIfAbsent(flightKey, this);
        if (inProgress != null) {
            throw new SavepointInProgressException("Cannot open savepoint " + savepointId + " of job " + jobId
                    + ": savepoint " + inProgress.savepointId + " of this job is still in progress ("
                    + b.storage.savepointRoot() + ")");
        }
        try {
            this.writer = storage.beginSavepoint(request);
        } catch (RuntimeException e) {
            OPEN.remove(flightKey, this);
            throw e;
        }
        this.timeout = b.timeout == null ? null : TIMER.schedule(
                () -> abort("timed out after " + b.timeout), b.timeout.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("Opened savepoint {} of job {} for pipelines {} ({})", savepointId, jobId, new TreeSet<>(expected),
                kind.stableName());
    }

    /** Starts describing a session. */
    public static Builder builder(SavepointStorage storage, String jobId, Collection<Integer> expectedPipelines) {
        return new Builder(storage, jobId, expectedPipelines);
    }

    /** The savepoint's id. */
    public String savepointId() {
        return savepointId;
    }

    /** The job's id. */
    public String jobId() {
        return jobId;
    }

    /** Completes with the handle on commit, or exceptionally with the reason on abort. */
    public CompletableFuture<SavepointHandle> completion() {
        return completion.copy();
    }

    /**
     * Encodes one pipeline's checkpoint and streams it into the savepoint.
     *
     * @throws InvalidStorageArgumentException when the pipeline is not expected, already reported, or of another job
     * @throws SavepointCommitFailedException  when the session is no longer open or the write failed (it is aborted)
     */
    public void report(CompletedCheckpoint checkpoint) {
        Arguments.requireNonNull("report checkpoint to savepoint " + savepointId() + " of job " + jobId, "checkpoint",
                checkpoint);
        int pipelineId = checkpoint.pipelineId();
        synchronized (this) {
            requireOpen("report pipeline " + pipelineId);
            if (!Long.toString(checkpoint.jobId()).equals(jobId)) {
                throw new InvalidStorageArgumentException("Cannot report checkpoint to savepoint " + savepointId()
                        + " of job " + jobId + ": it belongs to another job (" + checkpoint.jobId() + ")");
            }
            if (!expected.contains(pipelineId)) {
                throw new InvalidStorageArgumentException("Cannot report checkpoint to savepoint " + savepointId()
                        + " of job " + jobId + ": pipeline is not expected (" + pipelineId + ", expected " + expected + ")");
            }
            if (reported.contains(pipelineId) || !writing.add(pipelineId)) {
                throw new InvalidStorageArgumentException("Cannot report checkpoint to savepoint " + savepointId()
                        + " of job " + jobId + ": pipeline already reported (" + pipelineId + ")");
            }
        }
        try (OutputStream out = writer.openPayload(pipelineId, checkpoint.checkpointId())) {
            codec.encode(checkpoint, out);
        } catch (IOException | RuntimeException e) {
            abort("writing pipeline " + pipelineId + " failed: " + e.getMessage());
            throw new SavepointCommitFailedException("Cannot save pipeline " + pipelineId + " into savepoint "
                    + savepointId() + " of job " + jobId + "; the savepoint was aborted: " + e.getMessage(), e);
        }
        synchronized (this) {
            writing.remove(pipelineId);
            reported.add(pipelineId);
        }
    }

    /** Records that a pipeline reached SUSPEND after its savepoint checkpoint. */
    public synchronized void pipelineSuspended(int pipelineId) {
        requireOpen("mark pipeline " + pipelineId + " suspended");
        if (!expected.contains(pipelineId)) {
            throw new InvalidStorageArgumentException("Cannot mark pipeline suspended in savepoint " + savepointId()
                    + " of job " + jobId + ": pipeline is not expected (" + pipelineId + ")");
        }
        suspended.add(pipelineId);
    }

    /**
     * Publishes the savepoint when every expected pipeline reported and is suspended; otherwise aborts.
     *
     * @return the committed savepoint; the same handle on every later call
     * @throws SavepointCommitFailedException when a pipeline is missing or the session was aborted
     * @throws SavepointStorageException      when publication fails (see its subtypes)
     */
    public synchronized SavepointHandle commit() {
        if (state == State.COMMITTED) {
            return handle;
        }
        requireOpen("commit");
        Set<Integer> missing = new TreeSet<>(expected);
        missing.removeAll(reported);
        Set<Integer> notSuspended = new TreeSet<>(expected);
        notSuspended.removeAll(suspended);
        if (!missing.isEmpty() || !notSuspended.isEmpty() || !writing.isEmpty()) {
            String reason = !missing.isEmpty() ? "pipelines " + missing + " did not report"
                    : !writing.isEmpty() ? "pipelines " + writing + " are still being written"
                    : "pipelines " + notSuspended + " did not reach SUSPEND";
            abort(reason);
            throw new SavepointCommitFailedException("Cannot commit savepoint " + savepointId() + " of job " + jobId
                    + ": " + reason + "; it was aborted and nothing is visible", null);
        }
        try {
            handle = writer.commit(System.currentTimeMillis());
        } catch (RuntimeException e) {
            state = State.ABORTED;
            abortReason = "commit failed: " + e.getMessage();
            finish();
            completion.completeExceptionally(e);
            throw e;
        }
        state = State.COMMITTED;
        finish();
        completion.complete(handle);
        applyRetention();
        return handle;
    }

    /**
     * Aborts the savepoint unless it is already committed; nothing becomes visible.
     *
     * @return true when this call aborted it
     */
    public synchronized boolean abort(String reason) {
        if (state != State.OPEN) {
            return false;
        }
        state = State.ABORTED;
        abortReason = reason;
        try {
            writer.abort();
        } finally {
            finish();
            completion.completeExceptionally(new SavepointCommitFailedException("Savepoint " + savepointId() + " of job "
                    + jobId + " was aborted: " + reason, null));
            LOG.warn("Aborted savepoint {} of job {}: {}", savepointId(), jobId, reason);
        }
        return true;
    }

    /** Aborts because the job was cancelled. */
    public boolean cancel() {
        return abort("cancelled");
    }

    /** Aborts unless committed. */
    @Override
    public void close() {
        abort("closed without commit");
    }

    private void finish() {
        OPEN.remove(flightKey, this);
        if (timeout != null) {
            timeout.cancel(false);
        }
    }

    private void requireOpen(String what) {
        if (state != State.OPEN) {
            throw new SavepointCommitFailedException("Cannot " + what + " in savepoint " + savepointId() + " of job "
                    + jobId + ": the session is " + (state == State.ABORTED ? "aborted (" + abortReason + ")" : "committed"),
                    null);
        }
    }

    private void applyRetention() {
        if (kind != SavepointKind.PERIODIC || periodicMaxRetained <= 0) {
            return;
        }
        try {
            List<SavepointHandle> periodic = new ArrayList<>();
            for (SavepointHandle h : storage.listSavepoints(jobId)) {
                if (h.meta().kind() == SavepointKind.PERIODIC) {
                    periodic.add(h);
                }
            }
            for (SavepointHandle old : periodic.subList(Math.min(periodicMaxRetained, periodic.size()), periodic.size())) {
                storage.deleteSavepoint(jobId, old.savepointId());
                LOG.info("Deleted periodic savepoint {} of job {} beyond retention {}", old.savepointId(), jobId,
                        periodicMaxRetained);
            }
        } catch (SavepointStorageException e) {
            LOG.warn("Retention of periodic savepoints of job {} failed after committing {}; will retry next time",
                    jobId, savepointId(), e);
        }
    }

    /**
     * Describes a session before it opens. Defaults, each changed by its setter: kind
     * {@link SavepointKind#MANUAL}; the storage's configured savepoint root; a generated id
     * ({@code sp-<epoch millis>-<8 hex digits>}, {@link SavepointRequest#generateId}); no timeout (the
     * session stays open until it commits, aborts or is closed); and, for periodic savepoints only,
     * the storage's {@code savepoint.periodic.max-retained} (0 keeps all). Scope: the settings
     * belong to this one session. The single flight is per JVM (a static table of the
     * {@code SavepointSaveSession} class, so per class loader that loaded it): {@link #open()} refuses a second open session of the same
     * job under the same configured savepoint root, whichever storage instance it comes through and
     * whatever {@link #targetRoot} it sets. It is not across processes: two processes can each hold
     * a session of one job, and each publishes its own savepoint (given one id, one commit wins and
     * the other fails with {@link io.keepsake.storage.SavepointAlreadyExistsException}; nothing
     * partial becomes visible). Retention runs after a periodic savepoint
     * commits, over the job's periodic savepoints in the root it was written to, whoever wrote them.
     */
    public static final class Builder {
        private final SavepointStorage storage;
        private final String jobId;
        private final Set<Integer> expectedPipelines;
        private SavepointKind kind = SavepointKind.MANUAL;
        private String targetRoot;
        private String savepointId;
        private Duration timeout;
        private Integer periodicMaxRetained;

        private Builder(SavepointStorage storage, String jobId, Collection<Integer> expectedPipelines) {
            this.storage = Arguments.requireNonNull("open savepoint of job " + jobId, "storage", storage);
            this.jobId = jobId;
            this.expectedPipelines = new HashSet<>(Arguments.requireNonNull("open savepoint of job " + jobId,
                    "expectedPipelines", expectedPipelines));
            if (this.expectedPipelines.contains(null)) {
                throw new InvalidStorageArgumentException("Cannot open savepoint of job " + jobId
                        + ": expectedPipelines holds a null (" + expectedPipelines + ")");
            }
            if (this.expectedPipelines.isEmpty()) {
                throw new InvalidStorageArgumentException("Cannot open savepoint of job " + jobId
                        + ": no pipeline is expected (" + expectedPipelines + ")");
            }
        }

        /** Manual (default), periodic or retained-checkpoint. */
        public Builder kind(SavepointKind kind) {
            this.kind = Arguments.requireNonNull("open savepoint of job " + jobId, "kind", kind);
            return this;
        }

        /** Writes this savepoint under another root than the configured one. */
        public Builder targetRoot(String root) {
            this.targetRoot = root;
            return this;
        }

        /** Uses this id instead of a generated one. */
        public Builder savepointId(String id) {
            this.savepointId = id;
            return this;
        }

        /** Aborts the session when it has not committed within {@code timeout}. */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** Overrides the storage's {@code savepoint.periodic.max-retained} for this session. */
        public Builder periodicMaxRetained(int max) {
            this.periodicMaxRetained = max;
            return this;
        }

        /**
         * Opens the session and its staged writer.
         *
         * @throws SavepointInProgressException when a session of this job is already open
         */
        public SavepointSaveSession open() {
            return new SavepointSaveSession(this);
        }
    }
}
