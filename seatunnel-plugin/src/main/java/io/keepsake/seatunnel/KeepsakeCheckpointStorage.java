package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.KeepsakeException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StagedCheckpoint;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * SeaTunnel 2.3.x's {@code CheckpointStorage} on a Keepsake backend: checkpoints are stored and
 * read exactly as SeaTunnel's own plugins do (same layout, byte-identical {@code .ser} files), and
 * every pipeline state whose serialized checkpoint is of savepoint type is also committed as a
 * Keepsake savepoint bundle before {@link #storeCheckPoint} returns.
 *
 * <p>A savepoint bundle holds one pipeline of one checkpoint; its id is
 * {@code st-<checkpointId, 19 digits>-p<pipelineId>}. A bundle of that id counts as this savepoint
 * kept only when it verifies and holds this very state; otherwise (checkpoint ids repeat after a
 * restore that skipped a damaged bundle) the savepoint is kept as {@code st-...-pN-2}, {@code -3}
 * and so on. What a restore takes is ordered by the bundles' metadata, never their names. Bundles live
 * in the savepoint root, which the job's terminal cleanup ({@link #deleteCheckpoint(String)}) and
 * rotation never reach; only {@code keepsake delete} removes them. Every read method returns, per
 * pipeline, the newest state across the job's checkpoints and its kept savepoints (the highest
 * checkpoint id wins), re-encoded as SeaTunnel {@code PipelineState} bytes.
 *
 * <p>Thread-safe: the engine's pipeline coordinators call it concurrently. It does not decide
 * which state is valid for the engine beyond "newest complete". A restore
 * ({@link #getLatestCheckpointByJobIdAndPipelineId}) skips a savepoint bundle that fails its checks,
 * naming it at ERROR, and takes the newest state that reads back whole; the listing methods refuse
 * such a bundle with an error naming it.
 */
public final class KeepsakeCheckpointStorage implements org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage {

    private static final Logger LOG = LoggerFactory.getLogger(KeepsakeCheckpointStorage.class);
    /** Writes a savepoint's checkpoint file under its hidden name while the bundle commits. */
    private static final ExecutorService STAGING = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "keepsake-seatunnel-stage");
        t.setDaemon(true);
        return t;
    });

    private final CheckpointStorage checkpoints;
    private final SavepointStorage savepoints;
    private final SavepointReaderRegistry readers = SavepointReaderRegistry.standard();
    private final NewestReadableState newest;
    private final FailedSavepoints failedSavepoints = new FailedSavepoints();
    private final SavepointKeeper keeper;
    private final boolean stageWhileCommitting;
    /** Runs the rotations the engine asks for, in order, off its checkpoint's critical path. */
    private final CheckpointRetention retention;

    /** The name of the thread that runs rotations ({@link #deleteCheckpoint(String, String, List)}). */
    static final String RETENTION_THREAD_NAME = CheckpointRetention.THREAD_NAME;

    /**
     * Wraps a Keepsake storage and its savepoint capability (normally the same object).
     *
     * @param checkpoints the legacy checkpoint side
     * @param savepoints  the savepoint side of the same storage
     */
    public KeepsakeCheckpointStorage(CheckpointStorage checkpoints, SavepointStorage savepoints) {
        this(checkpoints, savepoints, true);
    }

    /** With {@code stageWhileCommitting} false a savepoint's checkpoint file is written after the bundle (for StoreCostTest). */
    KeepsakeCheckpointStorage(CheckpointStorage checkpoints, SavepointStorage savepoints, boolean stageWhileCommitting) {
        this.stageWhileCommitting = stageWhileCommitting;
        this.checkpoints = checkpoints;
        this.savepoints = savepoints;
        this.newest = new NewestReadableState(checkpoints, savepoints, readers);
        this.keeper = new SavepointKeeper(savepoints, readers, failedSavepoints);
        this.retention = new CheckpointRetention(checkpoints);
    }

    /**
     * The Keepsake checkpoint side this plugin writes SeaTunnel's {@code .ser} files through; for the
     * engine overlay ({@code seatunnel-engine-overlay}), which stages a savepoint's files itself.
     */
    public CheckpointStorage checkpointSide() {
        return checkpoints;
    }

    /** The savepoint side this plugin keeps bundles in; for the engine overlay, which opens job-level sessions on it. */
    public SavepointStorage savepointSide() {
        return savepoints;
    }

    /**
     * Refuses the pipeline's checkpoints after {@code checkpointId}, as after a savepoint this plugin
     * could not keep ({@link FailedSavepoints}); for the engine overlay, whose job-level savepoint failed.
     */
    public void refuseCheckpointsAfterFailedSavepoint(String jobId, int pipelineId, long checkpointId,
                                                     String savepointId, String reason) {
        failedSavepoints.failed(jobId, pipelineId, checkpointId, savepointId, reason);
    }

    /** Lifts a refusal of the pipeline's checkpoints: its savepoint was kept or the job was restored. */
    public void savepointKeptOrRestored(String jobId, int pipelineId) {
        failedSavepoints.kept(jobId, pipelineId);
    }

    /** The savepoint id this plugin gives the savepoint of one pipeline at one checkpoint. */
    public static String savepointId(long checkpointId, int pipelineId) {
        return String.format("st-%019d-p%d", checkpointId, pipelineId);
    }

    /**
     * Stores a checkpoint as SeaTunnel does; a savepoint is first committed as a Keepsake bundle.
     *
     * <p>When a savepoint cannot be kept, the pipeline's later checkpoints are refused as well, so
     * that the engine fails the job after its retries rather than leaving it in
     * {@code DOING_SAVEPOINT} (see {@link FailedSavepoints}).
     *
     * @throws CheckpointStorageException when the savepoint bundle or the checkpoint file cannot be written, or the
     *                                    state is a checkpoint after a savepoint of its pipeline that could not be kept
     */
    @Override
    public String storeCheckPoint(PipelineState state) throws CheckpointStorageException {
        io.keepsake.storage.PipelineState keepsake = toKeepsake(state);
        Optional<CompletedCheckpoint> savepoint = savepointIn(keepsake);
        if (savepoint.isPresent()) {
            return storeSavepoint(keepsake, savepoint.get());
        }
        failedSavepoints.checkCheckpoint(state.getJobId(), state.getPipelineId(), state.getCheckpointId());
        try {
            return checkpoints.storeCheckPoint(keepsake);
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            throw cannotStore(keepsake, e);
        }
    }

    /**
     * Keeps the bundle, then makes the checkpoint file visible. The file is written and synced under
     * its hidden name on another thread while the bundle commits, so that both syncs run at once;
     * it is renamed into place only after the commit returned, so the file never names a savepoint
     * that is not kept, and is removed when the bundle fails.
     */
    private String storeSavepoint(io.keepsake.storage.PipelineState keepsake, CompletedCheckpoint savepoint)
            throws CheckpointStorageException {
        if (!stageWhileCommitting) {
            keeper.keep(savepoint);
            try {
                return checkpoints.storeCheckPoint(keepsake);
            } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
                throw cannotStore(keepsake, e);
            }
        }
        Future<StagedCheckpoint> staging =
                STAGING.submit(() -> checkpoints.stageCheckPoint(keepsake));
        try {
            keeper.keep(savepoint);
        } catch (CheckpointStorageException | RuntimeException e) {
            try (StagedCheckpoint unused = awaitStaged(keepsake, staging)) {
                // removed unpublished by close
            } catch (CheckpointStorageException | RuntimeException stagingFailed) {
                e.addSuppressed(stagingFailed);
            }
            throw e;
        }
        try (StagedCheckpoint staged = awaitStaged(keepsake, staging)) {
            return staged.publish();
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            throw cannotStore(keepsake, e);
        }
    }

    private static StagedCheckpoint awaitStaged(io.keepsake.storage.PipelineState keepsake,
            Future<StagedCheckpoint> staging) throws CheckpointStorageException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return staging.get();
                } catch (InterruptedException e) {
                    interrupted = true; // the staged file must be published or removed, so wait on
                } catch (ExecutionException e) {
                    throw cannotStore(keepsake, e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static CheckpointStorageException cannotStore(io.keepsake.storage.PipelineState state, Throwable e) {
        return new CheckpointStorageException("Cannot store checkpoint " + state.checkpointId() + " of job "
                + state.jobId() + " pipeline " + state.pipelineId() + ": " + e.getMessage(), e);
    }

    /**
     * Stores synchronously, like {@link #storeCheckPoint}, so that a savepoint is durable when it returns.
     *
     * @throws CheckpointStorageException when the state cannot be stored
     */
    @Override
    public void asyncStoreCheckPoint(PipelineState state) throws CheckpointStorageException {
        storeCheckPoint(state);
    }

    /**
     * Every checkpoint of the job plus the kept savepoint states no checkpoint file still holds.
     *
     * @throws CheckpointStorageException when the checkpoints or savepoints cannot be read
     */
    @Override
    public List<PipelineState> getAllCheckpoints(String jobId) throws CheckpointStorageException {
        List<io.keepsake.storage.PipelineState> legacy = legacy(jobId, () -> checkpoints.getAllCheckpoints(jobId));
        return merged(jobId, null, legacy);
    }

    /**
     * The newest state of each pipeline of the job, checkpoint or kept savepoint.
     *
     * @throws CheckpointStorageException when the checkpoints or savepoints cannot be read
     */
    @Override
    public List<PipelineState> getLatestCheckpoint(String jobId) throws CheckpointStorageException {
        Map<Integer, PipelineState> newest = new TreeMap<>();
        for (PipelineState s : getAllCheckpoints(jobId)) {
            newest.merge(s.getPipelineId(), s, (a, b) -> a.getCheckpointId() >= b.getCheckpointId() ? a : b);
        }
        return new ArrayList<>(newest.values());
    }

    /**
     * The state a restore of one pipeline starts from: its newest state that reads back whole,
     * checkpoint or kept savepoint; {@code null} when there is none. Bundles that fail their checks
     * are skipped and named at ERROR; bundles older than the answer are not read ({@link NewestReadableState}).
     *
     * @throws CheckpointStorageException when the checkpoints or savepoints cannot be read, or no state
     *                                    of the pipeline reads back whole although some exist
     */
    @Override
    public PipelineState getLatestCheckpointByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException {
        int pid = pipeline(pipelineId);
        failedSavepoints.restored(jobId, pid);
        return newest.of(jobId, pid);
    }

    /**
     * Every state of one pipeline, checkpoints and kept savepoints, oldest first.
     *
     * @throws CheckpointStorageException when the checkpoints or savepoints cannot be read
     */
    @Override
    public List<PipelineState> getCheckpointsByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException {
        int pid = pipeline(pipelineId);
        List<io.keepsake.storage.PipelineState> legacy = legacy(jobId,
                () -> checkpoints.getCheckpointsByJobIdAndPipelineId(jobId, pipelineId));
        return merged(jobId, pid, legacy);
    }

    /**
     * One checkpoint of one pipeline, from its checkpoint file or else its kept savepoint.
     *
     * @throws CheckpointStorageException when neither holds it or it cannot be read
     */
    @Override
    public PipelineState getCheckpoint(String jobId, String pipelineId, String checkpointId)
            throws CheckpointStorageException {
        long cid;
        try {
            cid = Long.parseLong(checkpointId.trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new CheckpointStorageException("Cannot read checkpoint of job " + jobId + ": checkpoint id is not a"
                    + " number (" + checkpointId + ")");
        }
        for (PipelineState s : getCheckpointsByJobIdAndPipelineId(jobId, pipelineId)) {
            if (s.getCheckpointId() == cid) {
                return s;
            }
        }
        throw new CheckpointStorageException("Cannot find checkpoint " + checkpointId + " of job " + jobId
                + " pipeline " + pipelineId + ": no checkpoint file and no kept savepoint holds it");
    }

    /** Deletes the job's checkpoint directory; its kept savepoints stay. */
    @Override
    public void deleteCheckpoint(String jobId) {
        checkpoints.deleteCheckpoint(jobId);
        failedSavepoints.ended(jobId);
        LOG.info("Deleted the checkpoints of job {}; its savepoints stay under {}", jobId, savepoints.savepointRoot());
    }

    /**
     * Deletes one checkpoint file; a kept savepoint of the same id stays.
     *
     * @throws CheckpointStorageException when the file cannot be deleted
     */
    @Override
    public void deleteCheckpoint(String jobId, String pipelineId, String checkpointId) throws CheckpointStorageException {
        try {
            checkpoints.deleteCheckpoint(jobId, pipelineId, checkpointId);
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            throw new CheckpointStorageException("Cannot delete checkpoint " + checkpointId + " of job " + jobId
                    + " pipeline " + pipelineId + ": " + e.getMessage(), e);
        }
    }

    /**
     * Queues the rotation: deletes checkpoint files, then the pipeline's checkpoint files older than
     * every one the engine rotated away; kept savepoints stay. Returns once the ids are checked.
     *
     * <p>SeaTunnel's checkpoint coordinator calls this inside the completion of a checkpoint, before
     * it acknowledges it, so the deletes run on this storage's retention worker instead: one thread,
     * in the order the rotations came, off the checkpoint's critical path (on an object store a
     * rotation is a listing and a delete per file, each a round trip). Nothing waits for them: a
     * rotation that fails is logged as a warning, and what it left goes with the pipeline's next
     * rotation, which removes every checkpoint file older than the ones it names. The deletes
     * touch checkpoint files only, never a savepoint bundle, and never a checkpoint newer than the
     * ones named (checkpoint ids grow), so a rotation that runs late removes nothing stored since.
     *
     * <p>SeaTunnel's checkpoint coordinator keeps the ids it may rotate in memory only: one created
     * anew (a restore with {@code -r}, a master failover) starts from none, so the files of the
     * coordinator before it would stay for ever. Ids grow per pipeline across restores, a restore
     * takes the newest state, and the engine asks to delete its oldest ids first, so a file with a
     * lower id than all of them is one the engine's own rotation would already have removed had it
     * remembered it. Only such {@code .ser} files go; savepoint bundles, the checkpoints the engine
     * still retains and every newer file stay.
     *
     * @throws CheckpointStorageException when the pipeline id or a checkpoint id is not a number
     */
    @Override
    public void deleteCheckpoint(String jobId, String pipelineId, List<String> checkpointIdList)
            throws CheckpointStorageException {
        List<String> ids;
        try {
            Integer.parseInt(String.valueOf(pipelineId).trim());
            ids = new ArrayList<>(checkpointIdList);
            for (String id : ids) {
                Long.parseLong(String.valueOf(id).trim());
            }
        } catch (NumberFormatException | NullPointerException e) {
            throw new CheckpointStorageException("Cannot delete checkpoints " + checkpointIdList + " of job " + jobId
                    + " pipeline " + pipelineId + ": the pipeline id and checkpoint ids must be numbers ("
                    + e.getMessage() + ")", e);
        }
        retention.rotate(jobId, pipelineId, ids);
    }

    /**
     * Waits up to {@code timeout} for every rotation queued before this call to end; true when they
     * did. For tests that look at the files a rotation removes.
     */
    boolean awaitRetention(Duration timeout) throws InterruptedException {
        return retention.await(timeout);
    }

    private Optional<CompletedCheckpoint> savepointIn(io.keepsake.storage.PipelineState state) {
        CompletedCheckpoint checkpoint;
        try {
            checkpoint = LegacyCheckpointCodec.decodeCheckpoint(state.states(), "checkpoint " + state.checkpointId()
                    + " of job " + state.jobId() + " pipeline " + state.pipelineId());
        } catch (RuntimeException e) {
            LOG.warn("Cannot tell whether checkpoint {} of job {} pipeline {} is a savepoint: its state does not decode"
                    + " as SeaTunnel 2.3.x's; storing it as a checkpoint file only, which a restore skips as not"
                    + " reading back whole: {}", state.checkpointId(), state.jobId(),
                    state.pipelineId(), e.getMessage());
            return Optional.empty();
        }
        return checkpoint.checkpointType() == CheckpointType.SAVEPOINT_TYPE ? Optional.of(checkpoint) : Optional.empty();
    }

    private List<SavepointHandle> keptSavepoints(String jobId) throws CheckpointStorageException {
        List<SavepointHandle> handles = new ArrayList<>();
        try {
            for (SavepointEntry entry : savepoints.scanSavepoints(jobId)) {
                if (entry.handle().isPresent()) {
                    handles.add(entry.handle().get());
                } else if (!entry.incomplete()) {
                    throw new CheckpointStorageException("Cannot read savepoint " + entry.savepointId() + " of job "
                            + jobId + ": " + entry.problem().map(Throwable::getMessage).orElse("unreadable")
                            + "; check it with `keepsake verify " + jobId + " " + entry.savepointId()
                            + "`; a restore (`-r`) skips it and takes the newest state that reads back whole,"
                            + " and `keepsake delete` removes it (" + entry.location() + ")");
                }
            }
        } catch (KeepsakeException e) {
            throw new CheckpointStorageException("Cannot list savepoints of job " + jobId + ": " + e.getMessage(), e);
        }
        return handles;
    }

    private PipelineState fromSavepoint(String jobId, int pipelineId, SavepointHandle handle)
            throws CheckpointStorageException {
        CompletedCheckpoint checkpoint;
        try {
            checkpoint = readers.read(savepoints, handle).get(pipelineId);
        } catch (KeepsakeException e) {
            throw new CheckpointStorageException("Cannot read savepoint " + handle.savepointId() + " of job " + jobId
                    + " pipeline " + pipelineId + ": " + e.getMessage() + " (" + handle.location() + ")", e);
        }
        if (checkpoint == null) {
            throw new CheckpointStorageException("Cannot read savepoint " + handle.savepointId() + " of job " + jobId
                    + ": it holds no state of pipeline " + pipelineId + " (" + handle.location() + ")");
        }
        return PipelineState.builder().jobId(jobId).pipelineId(pipelineId).checkpointId(checkpoint.checkpointId())
                .states(LegacyCheckpointCodec.encodeCheckpoint(checkpoint)).build();
    }

    private List<PipelineState> merged(String jobId, Integer onlyPipeline, List<io.keepsake.storage.PipelineState> legacy)
            throws CheckpointStorageException {
        List<PipelineState> result = new ArrayList<>();
        Set<String> present = new HashSet<>();
        for (io.keepsake.storage.PipelineState s : legacy) {
            result.add(toSeaTunnel(s));
            present.add(s.pipelineId() + "/" + s.checkpointId());
        }
        for (SavepointHandle h : keptSavepoints(jobId)) {
            for (ManifestEntry e : h.meta().manifest()) {
                if ((onlyPipeline == null || onlyPipeline == e.pipelineId())
                        && present.add(e.pipelineId() + "/" + e.checkpointId())) {
                    result.add(fromSavepoint(jobId, e.pipelineId(), h));
                }
            }
        }
        result.sort(Comparator.comparingInt(PipelineState::getPipelineId)
                .thenComparingLong(PipelineState::getCheckpointId));
        return result;
    }

    private static int pipeline(String pipelineId) throws CheckpointStorageException {
        try {
            return Integer.parseInt(pipelineId.trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new CheckpointStorageException("Cannot read checkpoints: pipeline id is not a number (" + pipelineId + ")");
        }
    }

    private static io.keepsake.storage.PipelineState toKeepsake(PipelineState state) throws CheckpointStorageException {
        if (state == null || state.getJobId() == null || state.getStates() == null) {
            throw new CheckpointStorageException("Cannot store checkpoint: the pipeline state, its job id or its states"
                    + " is null (" + state + ")");
        }
        return new io.keepsake.storage.PipelineState(state.getJobId(), state.getPipelineId(), state.getCheckpointId(),
                state.getStates());
    }

    private static PipelineState toSeaTunnel(io.keepsake.storage.PipelineState state) {
        return PipelineState.builder().jobId(state.jobId()).pipelineId(state.pipelineId())
                .checkpointId(state.checkpointId()).states(state.states()).build();
    }

    private interface Read<T> {
        T get() throws io.keepsake.storage.CheckpointStorageException;
    }

    private static <T> T legacy(String jobId, Read<T> read) throws CheckpointStorageException {
        try {
            return read.get();
        } catch (io.keepsake.storage.CheckpointStorageException | RuntimeException e) {
            throw new CheckpointStorageException("Cannot read checkpoints of job " + jobId + ": " + e.getMessage(), e);
        }
    }
}
