package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointCommitFailedException;
import io.keepsake.storage.SavepointCommitStateUnknownException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageListener;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The savepoint commit protocol, written once for every backend.
 *
 * <p>An attempt first marks the savepoint root as Keepsake's and takes a lease
 * ({@link InFlightAttempts}) that every process's garbage collection respects. Where payloads go,
 * the step that decides the attempt against every collection and how it is published belong to the
 * backend's class, a {@link Publication}: {@link DirectoryRenamePublication} (the staging directory
 * renamed onto the savepoint's name) or {@link CreateIfAbsentPublication} (the attempt's decision,
 * then {@code _metadata.ser}, each created whole and only if absent). Payload names carry the
 * attempt id. Either way a crash before publication leaves nothing visible, and a losing racer
 * never touches the winner's files.
 *
 * <p>Durability before publication (I3) without syncing one file after another: a payload's
 * {@code close()} records its length and hash and hands "sync, then close" of its file to
 * {@link PayloadSyncs}, so the payloads are synced in parallel while the writer's thread goes on
 * (to the next payload, then to the index marker and, with atomic rename, to writing and syncing
 * {@code _metadata.ser} in staging, which needs only the hashes). {@link #commit} then waits for
 * every payload sync; one that failed aborts the attempt and fails the commit naming the file.
 * Only after that are the files checked, the work directory synced and the bundle published, so
 * the order stays: data durable, directory synced, rename (or metadata create), job directory
 * synced. {@link #abort} closes queued payload files unsynced and waits for those being synced
 * before it removes the work directory.
 *
 * <p>Against other actors (I8): a payload is never created in a staging directory that vanished
 * (the writer does not recreate a staging area it lost); just before publication every manifest
 * file must be present with its length and the lease must be safely held; where publication is
 * create-if-absent the files are checked once more after the attempt's decision, after which no
 * other actor removes them. Methods are synchronized: the writer can be handed between threads;
 * each payload stream is written by one thread.
 */
public final class StagedSavepointWriter implements SavepointWriter {

    private static final Logger LOG = LoggerFactory.getLogger(StagedSavepointWriter.class);

    private enum State { OPEN, COMMITTED, ABORTED }

    private final StorageLayout layout;
    private final StorageFileSystem fs;
    private final SavepointRequest request;
    private final String jobDir;
    private final String target;
    private final String workDir;
    private final AttemptId attempt;
    private final Publication publication;
    private final InFlightAttempts inFlight;
    private final StorageListener listener;
    private final long startNanos = System.nanoTime();
    private final List<ManifestEntry> entries = new ArrayList<>();
    private final Set<Integer> pipelines = new HashSet<>();
    private final List<String> writtenFiles = new ArrayList<>();
    private InFlightAttempts.Lease lease;
    private String indexMarker;
    /** This attempt's newest marker, once written (removed on abort). */
    private String newestMarker;
    /** The marker path when another attempt at this id with the same marker name wrote it first (it is not ours). */
    private String sharedIndexMarker;
    private final Set<PayloadOutputStream> openStreams = new HashSet<>();
    private final PayloadSyncs syncs;
    private final FormatSettings format;
    private State state = State.OPEN;

    private StagedSavepointWriter(StorageLayout layout, SavepointRequest request, AttemptId attempt,
                                  InFlightAttempts inFlight, StorageListener listener, FormatSettings format) {
        this.listener = listener;
        this.format = format;
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.request = request;
        this.jobDir = layout.savepointJobDir(request.jobId());
        this.target = layout.savepointDir(request.jobId(), request.savepointId());
        this.attempt = attempt;
        this.inFlight = inFlight;
        this.publication = fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME)
                ? new DirectoryRenamePublication(this, fs, request, layout.workDir(request.jobId(), attempt),
                        target, jobDir)
                : new CreateIfAbsentPublication(this, layout, request, attempt, target);
        this.workDir = publication.workDir();
        this.syncs = new PayloadSyncs(fs);
    }

    /**
     * Marks the root, takes the lease, creates the work directory and returns a writer into it.
     *
     * @throws SavepointStorageException when any of these cannot be written
     */
    public static StagedSavepointWriter begin(StorageLayout layout, SavepointRequest request,
                                              InFlightAttempts inFlight) {
        return begin(layout, request, inFlight, StorageListener.NONE, FormatSettings.standard());
    }

    /**
     * Like {@link #begin(StorageLayout, SavepointRequest, InFlightAttempts)}, telling {@code listener}
     * of the commit or abort and writing in the format {@code format} says.
     *
     * @throws SavepointStorageException when the root, lease or work directory cannot be written
     */
    public static StagedSavepointWriter begin(StorageLayout layout, SavepointRequest request,
                                              InFlightAttempts inFlight, StorageListener listener,
                                              FormatSettings format) {
        StagedSavepointWriter w = new StagedSavepointWriter(layout, request, AttemptId.next(request.savepointId()),
                inFlight, listener, format);
        // Where publication is create-if-absent, the check that the id is not published yet is one
        // listing of the savepoint folder, overlapping the lease's write: the two are independent
        // (the check only reads, and its answer is acted on after both ended), so on an object
        // store they cost one round trip. It stays a courtesy that fails early: the conditional
        // create of _metadata.ser at commit is what decides between attempts at one id. A listing
        // rather than a stat: on an object store a stat of a missing key is a HEAD and then a
        // listing (to tell a folder), two round trips where one is enough.
        Overlapped<Boolean> published = w.publication instanceof CreateIfAbsentPublication
                ? Overlapped.start(w::listsMetadata) : null;
        try {
            if (published == null && w.fs.stat(w.fs.child(w.target, MetadataCodec.FILE_NAME)).isPresent()) {
                w.state = State.ABORTED;
                throw w.committedAlready();
            }
            RootMarker.ensure(w.fs, layout.savepointRoot(), inFlight);
            w.lease = inFlight.acquire(w.workDir, layout.leasePath(request.jobId(), w.attempt));
            w.publication.beginWork();
            if (published != null && published.join()) {
                w.state = State.ABORTED;
                w.cleanUp();
                throw w.committedAlready();
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof SavepointAlreadyExistsException exists) {
                throw exists;
            }
            w.state = State.ABORTED;
            w.cleanUp();
            throw new SavepointStorageException("Cannot begin savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": " + e.getMessage() + " (" + w.workDir + ")", e);
        }
        LOG.debug("Began savepoint {} of job {} in {}", request.savepointId(), request.jobId(), w.workDir);
        return w;
    }

    /** True when the savepoint folder lists a {@code _metadata.ser}. */
    private boolean listsMetadata() throws IOException {
        for (FileStatus s : fs.list(target)) {
            if (s.name().equals(MetadataCodec.FILE_NAME)) {
                return true;
            }
        }
        return false;
    }

    private SavepointAlreadyExistsException committedAlready() {
        return new SavepointAlreadyExistsException("Cannot begin savepoint " + request.savepointId() + " of job "
                + request.jobId() + ": it is already committed (" + target + ")");
    }

    @Override
    public SavepointRequest request() {
        return request;
    }

    @Override
    public synchronized OutputStream openPayload(int pipelineId, long checkpointId) {
        requireOpen("open a payload");
        if (!pipelines.add(pipelineId)) {
            throw new InvalidStorageArgumentException("Cannot open payload of savepoint " + request.savepointId()
                    + " of job " + request.jobId() + ": pipeline already has one (" + pipelineId + ")");
        }
        String file = attempt.payloadName(pipelineId);
        String path = fs.child(workDir, file);
        SyncableOutputStream raw;
        try {
            raw = createPayload(path);
        } catch (NoSuchFileException e) {
            pipelines.remove(pipelineId);
            throw new SavepointStorageException("Cannot open payload of savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": the attempt's work directory vanished (another process may have collected"
                    + " it) and is not recreated (" + workDir + ")", e);
        } catch (IOException e) {
            pipelines.remove(pipelineId);
            throw new SavepointStorageException("Cannot open payload of savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": " + e.getMessage() + " (" + path + ")", e);
        }
        writtenFiles.add(file);
        PayloadOutputStream stream = new PayloadOutputStream(raw, format.writer().newPayloadDigest(), pipelineId,
                checkpointId, file, path, syncs, this::payloadClosed);
        openStreams.add(stream);
        return stream;
    }

    /** Creates a payload file in the work directory, as the backend's publication allows. */
    private SyncableOutputStream createPayload(String path) throws IOException {
        return publication.createPayload(path);
    }

    private synchronized void payloadClosed(PayloadOutputStream stream, ManifestEntry entry) {
        openStreams.remove(stream);
        if (entry != null && state == State.OPEN) {
            entries.add(entry);
        }
    }

    @Override
    public synchronized SavepointHandle commit(long completedTimestamp) {
        requireOpen("commit");
        if (!openStreams.isEmpty()) {
            throw new IllegalStateException("Cannot commit savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": " + openStreams.size() + " payload stream(s) still open (" + workDir + ")");
        }
        if (entries.size() != pipelines.size()) {
            abortQuietly();
            throw failed("a payload failed to write", null);
        }
        List<ManifestEntry> manifest = new ArrayList<>(entries);
        manifest.sort(Comparator.comparingInt(ManifestEntry::pipelineId));
        SavepointMeta meta = format.writer().metadata(request, completedTimestamp, manifest);
        byte[] metaBytes = format.writer().encodeMetadata(meta);
        publication.publish(meta, metaBytes, manifest);
        if (sharedIndexMarker != null) {
            // the attempt that wrote it may have aborted and removed it meanwhile
            putMarkerBack(sharedIndexMarker);
        }
        state = State.COMMITTED;
        Runnable tidying = publication.tidyingAfterCommit();
        if (tidying == null) {
            inFlight.release(lease);
        } else {
            inFlight.endAfterCommit(lease, tidying);
        }
        try {
            fs.syncDirectory(publication.publishedParent());
        } catch (IOException | RuntimeException e) {
            throw unknown("the savepoint is visible but could not be made durable", e);
        }
        long bytes = manifest.stream().mapToLong(ManifestEntry::length).sum();
        Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
        LOG.info("Committed savepoint {} of job {} with {} payload(s), {} bytes in {} ms ({})", request.savepointId(),
                request.jobId(), manifest.size(), bytes, took.toMillis(), target);
        listener.onCommit(request.jobId(), request.savepointId(), bytes, took);
        NewestMarkerTidying.tidyLater(layout, inFlight, request.jobId());
        return new SavepointHandle(target, meta);
    }

    /**
     * Waits for the sync and close of every payload; when one failed (or the wait was interrupted)
     * the attempt is aborted and the commit fails naming the file.
     */
    void requirePayloadsDurable() {
        Optional<PayloadSyncs.Failure> failure;
        try {
            failure = syncs.awaitAll();
        } catch (InterruptedIOException e) {
            abortQuietly();
            throw failed("interrupted while its payloads were being synced", e);
        }
        if (failure.isPresent()) {
            abortQuietly();
            throw failed("syncing payload " + failure.get().path() + " failed: " + failure.get().cause().getMessage(),
                    failure.get().cause());
        }
    }

    /**
     * The last check before publication: the lease is safely held and every manifest file is in
     * the work directory with its length; otherwise the attempt is aborted and the commit fails.
     */
    void requireIntact(List<ManifestEntry> manifest) {
        requireLease();
        Optional<String> missing;
        try {
            missing = StagedFiles.missingOrChanged(fs, workDir, manifest);
        } catch (IOException | RuntimeException e) {
            abortQuietly();
            throw failed("listing the staged payloads failed", e);
        }
        if (missing.isPresent()) {
            abortQuietly();
            throw failed("a staged payload " + missing.get() + "; another process may have collected the attempt", null);
        }
    }

    /**
     * Fails the commit early when the lease was lost or not renewed for half a timeout. Without
     * atomic rename this is a courtesy, not what keeps the commit safe: the decision and the check
     * of the files after it are.
     */
    void requireLease() {
        Optional<String> leaseProblem = inFlight.problem(lease);
        if (leaseProblem.isPresent()) {
            abortQuietly();
            throw failed(leaseProblem.get(), null);
        }
    }

    /**
     * Before publication, the savepoint's index marker: an empty file in the job's index folder
     * whose name says which checkpoint each pipeline holds and when the savepoint completed, so a
     * reader finds the newest state without reading every metadata file. Written before publication, so a published savepoint
     * never lacks it (it may lack one only when its name would be too long); removed on abort.
     */
    void writeIndexMarker(SavepointMeta meta) {
        requireMarkerWritten("index", awaitIndexMarker(startIndexMarker(meta, false)));
    }

    /** A marker being written: its path (null when the savepoint has none) and the write. */
    record MarkerWrite<T>(String path, Overlapped<T> write) {

        /** No marker: the savepoint has none of this kind. */
        static <T> MarkerWrite<T> none() {
            return new MarkerWrite<>(null, null);
        }

        /** Writes the marker at {@code path}, on a shared pool when {@code overlapped}, else now on this thread. */
        static <T> MarkerWrite<T> start(String path, Overlapped.Call<T> write, boolean overlapped) {
            return new MarkerWrite<>(path, overlapped ? Overlapped.start(write) : Overlapped.now(write));
        }

        /** Waits for the write and hands its answer to {@code written}; returns why it failed, or null. */
        Exception join(Consumer<T> written) {
            if (path == null) {
                return null;
            }
            try {
                written.accept(write.join());
                return null;
            } catch (IOException | RuntimeException e) {
                return e;
            }
        }
    }

    /** Aborts the attempt and throws when writing its {@code which} marker failed. */
    private void requireMarkerWritten(String which, Exception failure) {
        if (failure != null) {
            abortQuietly();
            throw failed("writing its " + which + " marker failed", failure);
        }
    }

    /**
     * Starts writing the index marker ({@link #writeIndexMarker}), on a shared pool when
     * {@code overlapped} so that the caller's next call overlaps it; {@link #awaitIndexMarker}
     * joins it. The write touches no state of the attempt: only the join records what it did.
     */
    MarkerWrite<Boolean> startIndexMarker(SavepointMeta meta, boolean overlapped) {
        Optional<String> name = StorageLayout.indexMarker(meta);
        if (name.isEmpty()) {
            return MarkerWrite.none();
        }
        String path = fs.child(fs.child(jobDir, StorageLayout.INDEX_DIR), name.get());
        return MarkerWrite.start(path, () -> {
            try {
                createMarker(path);
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            }
        }, overlapped);
    }

    /**
     * Waits for the index marker's write and records it; returns why it failed, or null. A marker
     * that was there already (the same claims and completion time under the same id: a racing
     * attempt's marker, or one an abort left) says what this savepoint holds, and this attempt
     * does not own it: its abort leaves it, and the owner's abort may remove it, so a commit that
     * publishes puts it back if it is gone.
     */
    Exception awaitIndexMarker(MarkerWrite<Boolean> marker) {
        return marker.join(created -> {
            if (created) {
                indexMarker = marker.path();
            } else {
                sharedIndexMarker = marker.path();
                LOG.debug("Index marker of savepoint {} of job {} is already there ({})", request.savepointId(),
                        request.jobId(), marker.path());
            }
        });
    }

    /**
     * Before publication, next to the index marker: the savepoint's newest marker
     * ({@link NewestMarkers}), so a lookup finds it from the job's small newest folder. Written
     * before publication, so a published savepoint never lacks it; removed on abort. Pruning and
     * establishing the folder run after the commit, off its critical path.
     */
    void writeNewestMarker(SavepointMeta meta) {
        requireMarkerWritten("newest", awaitNewestMarker(startNewestMarker(meta, false)));
    }

    /**
     * Starts writing the newest marker ({@link #writeNewestMarker}), on a shared pool when
     * {@code overlapped} so that the caller's next call overlaps it; {@link #awaitNewestMarker}
     * joins it. The write touches no state of the attempt: only the join records what it did.
     */
    MarkerWrite<String> startNewestMarker(SavepointMeta meta, boolean overlapped) {
        if (meta.manifest().isEmpty()) {
            return MarkerWrite.none(); // it holds no pipeline's state, so it is never a newest one
        }
        String path = fs.child(NewestMarkers.dir(layout, meta.jobId()), NewestMarkers.name(meta, attempt));
        return MarkerWrite.start(path, () -> NewestMarkers.write(layout, meta, attempt), overlapped);
    }

    /**
     * Waits for the newest marker's write and records it, so that an abort removes it; returns why
     * it failed, or null. A failed write that took effect leaves a marker of an unpublished
     * savepoint, which lookups skip and garbage collection removes as orphaned.
     */
    Exception awaitNewestMarker(MarkerWrite<String> marker) {
        return marker.join(written -> newestMarker = written);
    }

    /**
     * Ends the attempt without cleaning anything, when whether it published cannot be told: its
     * files stay for a reader to find or for garbage collection, its lease is released.
     */
    void letGo() {
        state = State.ABORTED;
        inFlight.release(lease);
    }

    SavepointAlreadyExistsException alreadyExists(Exception cause) {
        boolean published;
        try {
            published = fs.stat(fs.child(target, MetadataCodec.FILE_NAME)).isPresent();
        } catch (IOException | RuntimeException e) {
            published = true;
        }
        if (!published) {
            return new SavepointAlreadyExistsException("Cannot commit savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": its folder is there without a complete savepoint (a delete of this id may"
                    + " still be running, or a failed attempt left it for garbage collection); nothing was published,"
                    + " retry once the folder is gone (" + target + ")", cause);
        }
        return new SavepointAlreadyExistsException("Cannot commit savepoint " + request.savepointId() + " of job "
                + request.jobId() + ": another savepoint with this id was published first (" + target + ")", cause);
    }

    SavepointCommitFailedException failed(String why, Throwable cause) {
        return new SavepointCommitFailedException("Cannot commit savepoint " + request.savepointId() + " of job "
                + request.jobId() + ": " + why + "; nothing was published and staging was cleaned (" + workDir + ")", cause);
    }

    SavepointCommitStateUnknownException unknown(String why, Throwable cause) {
        return new SavepointCommitStateUnknownException("Cannot tell whether savepoint " + request.savepointId()
                + " of job " + request.jobId() + " was committed: " + why + "; list the job's savepoints before"
                + " cleaning anything (" + target + ")", cause);
    }

    @Override
    public synchronized void abort() {
        if (state != State.OPEN) {
            return;
        }
        state = State.ABORTED;
        for (PayloadOutputStream stream : List.copyOf(openStreams)) {
            stream.abandon();
        }
        syncs.abandon();
        cleanUp();
        Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
        LOG.info("Aborted savepoint {} of job {} after {} ms ({})", request.savepointId(), request.jobId(),
                took.toMillis(), workDir);
        listener.onAbort(request.jobId(), request.savepointId(), took);
    }

    void abortQuietly() {
        try {
            abort();
        } catch (RuntimeException e) {
            LOG.warn("Cleaning staging of savepoint {} of job {} failed ({})", request.savepointId(), request.jobId(),
                    workDir, e);
        }
    }

    private void cleanUp() {
        try {
            if (indexMarker != null) {
                fs.delete(indexMarker, false);
            }
            if (newestMarker != null) {
                NewestMarkers.remove(fs, newestMarker);
            }
            publication.removeWork(writtenFiles);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot remove staging of savepoint {} of job {}; garbage collection will ({})",
                    request.savepointId(), request.jobId(), workDir, e);
        } finally {
            inFlight.release(lease);
        }
        if (indexMarker != null) {
            keepMarkerOfAPublishedTwin(indexMarker);
        }
    }

    /**
     * After this attempt removed its marker: when another attempt at this id with the same claims
     * and completion time published meanwhile (it found this marker there and did not write its own), the marker names
     * that savepoint too, so it is put back. Checked after the removal, so that either this check
     * sees the other's publication or the other's commit, which checks after publishing, sees the
     * marker gone.
     */
    private void keepMarkerOfAPublishedTwin(String marker) {
        try {
            SavepointMeta published = new SavepointStore(layout, inFlight)
                    .readMetadata(request.jobId(), request.savepointId()).meta();
            String name = marker.substring(marker.lastIndexOf('/') + 1);
            if (StorageLayout.indexMarker(published).filter(name::equals).isPresent()) {
                putMarkerBack(marker);
            }
        } catch (SavepointNotFoundException notPublished) {
            // nobody published this id: the marker stays removed
        } catch (RuntimeException e) {
            LOG.warn("Cannot tell whether savepoint {} of job {} was published by another attempt, whose index marker"
                    + " this abort removed; lookups read its metadata instead ({})", request.savepointId(),
                    request.jobId(), marker, e);
        }
    }

    /** Creates an (empty) index marker, failing when it exists; synced only where sync publishes. */
    private void createMarker(String path) throws IOException {
        try (SyncableOutputStream out = fs.create(path, true)) {
            StagedFiles.endVolatileFile(fs, out);
        }
    }

    /** Writes an index marker unless it is there; a failure only costs lookups a metadata read. */
    private void putMarkerBack(String marker) {
        try {
            createMarker(marker);
        } catch (FileAlreadyExistsException e) {
            // still there, or put back by the other attempt
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot put back the index marker of savepoint {} of job {}; lookups read its metadata instead"
                    + " ({})", request.savepointId(), request.jobId(), marker, e);
        }
    }

    @Override
    public void close() {
        abort();
    }

    private void requireOpen(String what) {
        if (state != State.OPEN) {
            throw new IllegalStateException("Cannot " + what + " of savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": the writer is " + state.name().toLowerCase() + " (" + workDir + ")");
        }
    }
}
