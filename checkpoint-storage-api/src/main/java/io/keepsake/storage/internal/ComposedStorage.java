package io.keepsake.storage.internal;

import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.DeletionReport;
import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointContent;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointHint;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StagedCheckpoint;
import io.keepsake.storage.StorageListener;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@link KeepsakeStorage} as a composition: a {@link StorageLayout}, a {@link LegacyCheckpointStore},
 * a {@link SavepointStore} and a {@link GarbageCollector} over one {@link StorageFileSystem}, plus
 * the single thread behind {@link #asyncStoreCheckPoint}. Views made by {@link #withSavepointRoot}
 * share the file system, the thread and the registry of attempts in flight; only the storage that
 * opened the file system closes it. Thread-safe.
 */
public final class ComposedStorage implements KeepsakeStorage, NewestMarkers.Source {

    private static final Logger LOG = LoggerFactory.getLogger(ComposedStorage.class);

    private final StorageLayout layout;
    private final LegacyCheckpointStore checkpoints;
    private final SavepointStore savepoints;
    private final GarbageCollector collector;
    private final InFlightAttempts inFlight;
    private final ExecutorService asyncWriter;
    private final boolean ownsFileSystem;
    private final int periodicMaxRetained;
    private final Listeners listeners;
    private final FormatSettings format;

    private ComposedStorage(StorageLayout layout, InFlightAttempts inFlight, ExecutorService asyncWriter,
                            boolean ownsFileSystem, int periodicMaxRetained, Listeners listeners,
                            FormatSettings format) {
        this.layout = layout;
        this.listeners = listeners;
        this.inFlight = inFlight;
        this.format = format;
        this.checkpoints = new LegacyCheckpointStore(layout);
        this.savepoints = new SavepointStore(layout, inFlight, format);
        this.collector = new GarbageCollector(layout, savepoints, inFlight);
        this.asyncWriter = asyncWriter;
        this.ownsFileSystem = ownsFileSystem;
        this.periodicMaxRetained = periodicMaxRetained;
    }

    /** See {@link KeepsakeStorage#open(StorageFileSystem, StorageOptions)}. */
    public static ComposedStorage open(StorageFileSystem fs, StorageOptions options) {
        return open(fs, options, ChunkDigests.CHUNK_SIZE);
    }

    /**
     * Like {@link #open(StorageFileSystem, StorageOptions)}, writing format-version-2 payloads in
     * chunks of {@code chunkSize} bytes instead of {@link ChunkDigests#CHUNK_SIZE}: for tests that
     * need many chunks in few bytes, or that show a reader takes the size from the manifest.
     */
    public static ComposedStorage open(StorageFileSystem fs, StorageOptions options, int chunkSize) {
        return open(fs, options, chunkSize, null);
    }

    /**
     * Like {@link #open(StorageFileSystem, StorageOptions)}, running the deletes that follow each
     * publication on {@code tidying} instead of a thread of the storage's own: for a schedule
     * explorer that runs them as an actor of their own. The storage's close does not wait for it.
     */
    public static ComposedStorage open(StorageFileSystem fs, StorageOptions options, Executor tidying) {
        return open(fs, options, ChunkDigests.CHUNK_SIZE, tidying);
    }

    private static ComposedStorage open(StorageFileSystem fs, StorageOptions options, int chunkSize,
                                        Executor tidying) {
        if (fs == null) {
            throw new InvalidStorageArgumentException("Cannot open storage: the file system is null");
        }
        if (options == null) {
            throw new InvalidStorageArgumentException("Cannot open storage: the options are null");
        }
        if (options.periodicMaxRetained() < 0) {
            throw new InvalidStorageArgumentException("Cannot configure storage: periodic retention must not be negative ("
                    + options.periodicMaxRetained() + ")");
        }
        StorageLayout layout = StorageLayout.of(fs, options.namespace(), options.savepointPath());
        FormatSettings format = new FormatSettings(options.formatVersion(), chunkSize,
                new ChunkVerification(options.verifyThreads()));
        return new ComposedStorage(layout, new InFlightAttempts(fs, options.leaseTimeoutMillis(), tidying), newAsyncWriter(),
                true, options.periodicMaxRetained(), new Listeners(), format);
    }

    private static ExecutorService newAsyncWriter() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "keepsake-async-checkpoint-writer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Waits, up to 10 seconds, until the background work that this storage's commits so far left
     * behind ran: the deletes of each attempt's decision and lease (where publication is
     * create-if-absent), and the tidy of the jobs' newest markers. For tests that compare the files
     * under the roots right after a commit; a collection or delete in this storage waits so itself.
     */
    public void awaitTidying() {
        inFlight.awaitTidying();
    }

    /** The primitives underneath, for tests of this module and the backends' own tests. */
    public StorageFileSystem fileSystem() {
        return layout.fileSystem();
    }

    @Override
    public String namespace() {
        return layout.namespace();
    }

    @Override
    public String savepointRoot() {
        return layout.savepointRoot();
    }

    @Override
    public ComposedStorage withSavepointRoot(String root) {
        Arguments.requireNonNull("use savepoint root", "root", root);
        return new ComposedStorage(layout.withSavepointRoot(root), inFlight, asyncWriter, false, periodicMaxRetained,
                listeners, format);
    }

    @Override
    public void addListener(StorageListener listener) {
        Arguments.requireNonNull("add storage listener", "listener", listener);
        listeners.add(listener);
    }

    @Override
    public StorageListener listener() {
        return listeners;
    }

    @Override
    public int periodicMaxRetained() {
        return periodicMaxRetained;
    }

    // ------------------------------------------------------------------ legacy checkpoints

    @Override
    public String storeCheckPoint(PipelineState state) throws CheckpointStorageException {
        Arguments.requireNonNull("store checkpoint", "state", state);
        return checkpoints.store(state);
    }

    @Override
    public StagedCheckpoint stageCheckPoint(PipelineState state) throws CheckpointStorageException {
        Arguments.requireNonNull("stage checkpoint", "state", state);
        return checkpoints.stage(state);
    }

    @Override
    public void asyncStoreCheckPoint(PipelineState state) throws CheckpointStorageException {
        Arguments.requireNonNull("store checkpoint", "state", state);
        checkpoints.requireStorableJob(state.jobId());
        asyncWriter.execute(() -> {
            try {
                checkpoints.store(state);
            } catch (CheckpointStorageException | RuntimeException e) {
                LOG.error("Asynchronous store of checkpoint {} of job {} pipeline {} failed", state.checkpointId(),
                        state.jobId(), state.pipelineId(), e);
            }
        });
    }

    @Override
    public List<PipelineState> getAllCheckpoints(String jobId) throws CheckpointStorageException {
        return checkpoints.readAll(checkpoints.files(jobId));
    }

    /**
     * {@inheritDoc} A pipeline whose newest file does not decode falls back to its newest decodable
     * one, with a warning naming the skipped file, rather than dropping out of the result; a failure
     * to read (I/O, authentication) is thrown, never taken for "no checkpoint".
     */
    @Override
    public List<PipelineState> getLatestCheckpoint(String jobId) throws CheckpointStorageException {
        return checkpoints.latest(jobId);
    }

    @Override
    public PipelineState getLatestCheckpointByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException {
        int pid = LegacyCheckpointStore.parseInt("pipeline id", pipelineId);
        return checkpoints.newestReadable(checkpoints.files(jobId, pid));
    }

    @Override
    public List<PipelineState> getCheckpointsByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException {
        int pid = LegacyCheckpointStore.parseInt("pipeline id", pipelineId);
        return checkpoints.readAll(checkpoints.files(jobId, pid));
    }

    @Override
    public PipelineState getCheckpoint(String jobId, String pipelineId, String checkpointId)
            throws CheckpointStorageException {
        return checkpoints.get(jobId, LegacyCheckpointStore.parseInt("pipeline id", pipelineId),
                LegacyCheckpointStore.parseLong("checkpoint id", checkpointId));
    }

    @Override
    public void deleteCheckpoint(String jobId) {
        checkpoints.deleteJob(jobId);
    }

    @Override
    public void deleteCheckpoint(String jobId, String pipelineId, String checkpointId) throws CheckpointStorageException {
        deleteCheckpoint(jobId, pipelineId, Collections.singletonList(checkpointId));
    }

    @Override
    public void deleteCheckpoint(String jobId, String pipelineId, List<String> checkpointIdList)
            throws CheckpointStorageException {
        int pid = LegacyCheckpointStore.parseInt("pipeline id", pipelineId);
        Arguments.requireNonNull("delete checkpoints of job " + jobId, "checkpointIdList", checkpointIdList);
        List<Long> ids = new ArrayList<>();
        for (String c : checkpointIdList) {
            ids.add(LegacyCheckpointStore.parseLong("checkpoint id", c));
        }
        checkpoints.delete(jobId, pid, ids);
    }

    @Override
    public List<CheckpointFile> checkpointFiles(String jobId) throws CheckpointStorageException {
        return checkpoints.files(jobId);
    }

    @Override
    public List<String> checkpointJobs() throws CheckpointStorageException {
        List<String> jobs = new ArrayList<>();
        try {
            for (FileStatus s : layout.fileSystem().list(layout.namespace())) {
                if (s.directory() && Names.isSafeName(s.name()) && isCheckpointJob(s.name())) {
                    jobs.add(s.name());
                }
            }
        } catch (IOException e) {
            throw new CheckpointStorageException("Cannot list checkpoint jobs: " + e.getMessage() + " ("
                    + layout.namespace() + ")", e);
        }
        Collections.sort(jobs);
        return jobs;
    }

    private boolean isCheckpointJob(String name) {
        try {
            layout.checkpointJobDir(name);
            return true;
        } catch (InvalidStorageArgumentException reserved) {
            return false;
        }
    }

    // ------------------------------------------------------------------ savepoints

    @Override
    public SavepointWriter beginSavepoint(SavepointRequest request) {
        Arguments.requireNonNull("begin savepoint", "request", request);
        return savepoints.begin(request, listeners);
    }

    @Override
    public List<SavepointHandle> listSavepoints(String jobId) {
        return savepoints.list(jobId);
    }

    @Override
    public List<SavepointEntry> scanSavepoints(String jobId) {
        return savepoints.listed(jobId, true);
    }

    @Override
    public List<SavepointHint> hintSavepoints(String jobId) {
        return savepoints.hints(jobId);
    }

    @Override
    public Optional<NewestMarkers.Trusted> newestMarkers(String jobId) {
        return savepoints.newestMarkers(jobId);
    }

    @Override
    public List<String> listJobs() {
        return savepoints.jobs();
    }

    @Override
    public SavepointHandle readMetadata(String jobId, String savepointId) {
        return savepoints.readMetadata(jobId, savepointId);
    }

    @Override
    public InputStream openPayload(SavepointHandle handle, ManifestEntry entry) {
        Arguments.requireNonNull("open payload", "handle", handle);
        Arguments.requireNonNull("open payload of savepoint " + handle.savepointId() + " of job " + handle.jobId(),
                "entry", entry);
        return savepoints.openPayload(handle, entry);
    }

    @Override
    public SavepointContent readSavepoint(String jobId, String savepointId) {
        return savepoints.read(jobId, savepointId);
    }

    @Override
    public void deleteSavepoint(String jobId, String savepointId) {
        savepoints.delete(jobId, savepointId);
    }

    @Override
    public int deleteSavepoints(String jobId) {
        int deleted = savepoints.deleteAll(jobId);
        collector.clearJob(jobId);
        return deleted;
    }

    @Override
    public DeletionReport deleteSavepointReporting(String jobId, String savepointId) {
        OwnedRemoval.Result r = savepoints.delete(jobId, savepointId);
        return new DeletionReport(r.deleted(), r.kept(), r.failed());
    }

    @Override
    public DeletionReport deleteSavepointsReporting(String jobId) {
        OwnedRemoval.Result r = savepoints.deleteAllReporting(jobId);
        GcReport staging = collector.clearJob(jobId);
        r.deleted().addAll(staging.deleted());
        r.kept().addAll(staging.kept());
        r.failed().addAll(staging.failed());
        return new DeletionReport(r.deleted(), r.kept(), r.failed());
    }

    @Override
    public List<GcCandidate> planGarbage(Duration olderThan) {
        Arguments.requireNonNull("plan garbage collection", "olderThan", olderThan);
        return collector.plan(olderThan);
    }

    @Override
    public GcReport collectGarbage(Duration olderThan) {
        Arguments.requireNonNull("collect garbage", "olderThan", olderThan);
        long start = System.nanoTime();
        GcReport report = collector.collect(olderThan);
        listeners.onGc(report, Duration.ofNanos(System.nanoTime() - start));
        return report;
    }

    @Override
    public void close() {
        if (!ownsFileSystem) {
            // a view: the storage it shares goes on; the newest markers of its commits are tidied first
            NewestMarkerTidying.awaitTidied(layout.fileSystem(), InFlightAttempts.CLOSE_WAIT_MILLIS);
            return;
        }
        asyncWriter.shutdown();
        inFlight.close();
        format.verification().close();
        try {
            if (!asyncWriter.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("Asynchronous checkpoint writes still running at close under {}", layout.namespace());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            layout.fileSystem().close();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot close file system under " + layout.namespace(), e);
        }
    }
}
