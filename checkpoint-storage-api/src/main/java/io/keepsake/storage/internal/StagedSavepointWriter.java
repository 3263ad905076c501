package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointCommitFailedException;
import io.keepsake.storage.SavepointCommitStateUnknownException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.Versions;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The savepoint commit protocol, written once for every backend.
 *
 * <p>With {@link FsCapability#ATOMIC_DIRECTORY_RENAME}: payloads and {@code _metadata.ser} are
 * written, synced and closed in {@code <job>/.staging/<attempt>/}, the staging directory is
 * synced, then renamed onto {@code <job>/<savepointId>} in one step that fails when the target
 * exists, and the job directory is synced. Without it: payloads are written under
 * attempt-unique names straight into the savepoint directory, and {@code _metadata.ser} is
 * created last with create-if-absent, which is the publication step. Either way a crash before
 * publication leaves nothing visible, and a losing racer never touches the winner's files.
 * Methods are synchronized: the writer can be handed between threads.
 */
public final class StagedSavepointWriter implements SavepointWriter {

    private static final Logger LOG = LoggerFactory.getLogger(StagedSavepointWriter.class);

    private enum State { OPEN, COMMITTED, ABORTED }

    /** Payload writes are gathered into chunks of this size before they reach the file system. */
    private static final int BUFFER_BYTES = 64 * 1024;

    private final StorageFileSystem fs;
    private final SavepointRequest request;
    private final String jobDir;
    private final String target;
    private final String workDir;
    private final String attemptId;
    private final boolean renameMode;
    private final InFlightAttempts openAttempts;
    private final List<ManifestEntry> entries = new ArrayList<>();
    private final Set<Integer> pipelines = new HashSet<>();
    private final List<String> writtenFiles = new ArrayList<>();
    private int openStreams;
    private State state = State.OPEN;

    private StagedSavepointWriter(StorageLayout layout, SavepointRequest request, String attemptId,
                                  InFlightAttempts openAttempts) {
        this.fs = layout.fileSystem();
        this.request = request;
        this.jobDir = layout.savepointJobDir(request.jobId());
        this.target = layout.savepointDir(request.jobId(), request.savepointId());
        this.attemptId = attemptId;
        this.renameMode = fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME);
        this.openAttempts = openAttempts;
        this.workDir = renameMode ? fs.child(layout.stagingDir(request.jobId()), attemptId) : target;
    }

    /**
     * Creates the staging area and returns a writer into it.
     *
     * @throws SavepointStorageException when the staging area cannot be created
     */
    public static StagedSavepointWriter begin(StorageLayout layout, SavepointRequest request,
                                              InFlightAttempts openAttempts) {
        String attemptId = request.savepointId() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong());
        StagedSavepointWriter w = new StagedSavepointWriter(layout, request, attemptId, openAttempts);
        openAttempts.add(w.workDir);
        try {
            w.fs.mkdirs(w.workDir);
        } catch (IOException | RuntimeException e) {
            openAttempts.remove(w.workDir);
            w.state = State.ABORTED;
            w.cleanUp();
            throw new SavepointStorageException("Cannot begin savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": " + e.getMessage() + " (" + w.workDir + ")", e);
        }
        LOG.debug("Began savepoint {} of job {} in {}", request.savepointId(), request.jobId(), w.workDir);
        return w;
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
        String file = renameMode ? "pipeline-" + pipelineId + ".wire" : "pipeline-" + pipelineId + "." + attemptId + ".wire";
        String path = fs.child(workDir, file);
        SyncableOutputStream raw;
        try {
            raw = fs.create(path, true);
        } catch (IOException e) {
            pipelines.remove(pipelineId);
            throw new SavepointStorageException("Cannot open payload of savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": " + e.getMessage() + " (" + path + ")", e);
        }
        writtenFiles.add(file);
        openStreams++;
        return new PayloadStream(raw, pipelineId, checkpointId, file, path);
    }

    private synchronized void payloadClosed(ManifestEntry entry) {
        openStreams--;
        if (entry != null) {
            entries.add(entry);
        }
    }

    @Override
    public synchronized SavepointHandle commit(long completedTimestamp) {
        requireOpen("commit");
        if (openStreams > 0) {
            throw new IllegalStateException("Cannot commit savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": " + openStreams + " payload stream(s) still open (" + workDir + ")");
        }
        if (entries.size() != pipelines.size()) {
            abortQuietly();
            throw new SavepointCommitFailedException("Cannot commit savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": a payload failed to write; staging was cleaned (" + workDir + ")", null);
        }
        List<ManifestEntry> manifest = new ArrayList<>(entries);
        manifest.sort(Comparator.comparingInt(ManifestEntry::pipelineId));
        SavepointMeta meta = new SavepointMeta(Versions.CURRENT_FORMAT_VERSION, request.savepointId(), request.jobId(),
                request.kind(), request.producerVersion(), request.triggerTimestamp(), completedTimestamp,
                request.payloadFormat(), manifest, request.properties());
        byte[] metaBytes = MetadataCodec.encode(meta);
        if (renameMode) {
            publishByRename(metaBytes);
        } else {
            publishByCreate(metaBytes);
        }
        state = State.COMMITTED;
        openAttempts.remove(workDir);
        try {
            fs.syncDirectory(renameMode ? jobDir : target);
        } catch (IOException | RuntimeException e) {
            throw unknown("the savepoint is visible but could not be made durable", e);
        }
        LOG.info("Committed savepoint {} of job {} with {} payload(s) ({})", request.savepointId(), request.jobId(),
                manifest.size(), target);
        return new SavepointHandle(target, meta);
    }

    /** Writes the metadata into staging, then renames staging onto the target in one step. */
    private void publishByRename(byte[] metaBytes) {
        try {
            writeSynced(fs.child(workDir, MetadataCodec.FILE_NAME), metaBytes);
            fs.syncDirectory(workDir);
        } catch (IOException | RuntimeException e) {
            abortQuietly();
            throw failed("writing metadata failed", e);
        }
        try {
            fs.rename(workDir, target);
        } catch (FileAlreadyExistsException e) {
            abortQuietly();
            throw alreadyExists(e);
        } catch (IOException | RuntimeException e) {
            resolveAmbiguousPublication(metaBytes, hasMetadata(workDir, metaBytes), e);
        }
    }

    /** Syncs the payloads in place, then creates the metadata with create-if-absent. */
    private void publishByCreate(byte[] metaBytes) {
        try {
            fs.syncDirectory(target);
        } catch (IOException | RuntimeException e) {
            abortQuietly();
            throw failed("syncing payloads failed", e);
        }
        try {
            writeSynced(fs.child(target, MetadataCodec.FILE_NAME), metaBytes);
        } catch (FileAlreadyExistsException e) {
            abortQuietly();
            throw alreadyExists(e);
        } catch (IOException | RuntimeException e) {
            resolveAmbiguousPublication(metaBytes, false, e);
        }
    }

    /**
     * The publishing step reported an error: it took effect when the target holds our metadata;
     * it certainly did not when staging is still whole; otherwise nobody can tell.
     */
    private void resolveAmbiguousPublication(byte[] metaBytes, boolean stagingIntact, Exception e) {
        if (hasMetadata(target, metaBytes)) {
            LOG.warn("Publishing savepoint {} of job {} reported an error but took effect ({})", request.savepointId(),
                    request.jobId(), target, e);
            return;
        }
        if (stagingIntact) {
            abortQuietly();
            throw failed("publishing failed", e);
        }
        state = State.ABORTED;
        openAttempts.remove(workDir);
        throw unknown("publishing failed and its outcome cannot be read back", e);
    }

    private SavepointAlreadyExistsException alreadyExists(Exception cause) {
        return new SavepointAlreadyExistsException("Cannot commit savepoint " + request.savepointId() + " of job "
                + request.jobId() + ": another savepoint with this id was published first (" + target + ")", cause);
    }

    private void writeSynced(String path, byte[] bytes) throws IOException {
        try (SyncableOutputStream out = fs.create(path, true)) {
            out.write(bytes);
            out.sync();
        }
    }

    private boolean hasMetadata(String dir, byte[] expected) {
        try (InputStream in = fs.open(fs.child(dir, MetadataCodec.FILE_NAME))) {
            return Arrays.equals(in.readNBytes(expected.length + 1), expected);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private SavepointCommitFailedException failed(String why, Throwable cause) {
        return new SavepointCommitFailedException("Cannot commit savepoint " + request.savepointId() + " of job "
                + request.jobId() + ": " + why + "; nothing was published and staging was cleaned (" + workDir + ")", cause);
    }

    private SavepointCommitStateUnknownException unknown(String why, Throwable cause) {
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
        cleanUp();
        openAttempts.remove(workDir);
        LOG.info("Aborted savepoint {} of job {} ({})", request.savepointId(), request.jobId(), workDir);
    }

    private void abortQuietly() {
        try {
            abort();
        } catch (RuntimeException e) {
            LOG.warn("Cleaning staging of savepoint {} of job {} failed ({})", request.savepointId(), request.jobId(),
                    workDir, e);
        }
    }

    private void cleanUp() {
        try {
            if (renameMode) {
                fs.delete(workDir, true);
            } else {
                for (String file : writtenFiles) {
                    fs.delete(fs.child(workDir, file), false);
                }
                if (fs.list(workDir).isEmpty()) {
                    fs.delete(workDir, false);
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot remove staging of savepoint {} of job {}; garbage collection will ({})",
                    request.savepointId(), request.jobId(), workDir, e);
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

    /** Hashes a payload on its way out; on close syncs it and records its manifest entry. */
    private final class PayloadStream extends FilterOutputStream {
        private final SyncableOutputStream raw;
        private final HashingOutputStream hashing;
        private final int pipelineId;
        private final long checkpointId;
        private final String file;
        private final String path;
        private boolean closed;
        private boolean failed;

        PayloadStream(SyncableOutputStream raw, int pipelineId, long checkpointId, String file, String path) {
            super(new HashingOutputStream(new BufferedOutputStream(raw, BUFFER_BYTES)));
            this.raw = raw;
            this.hashing = (HashingOutputStream) out;
            this.pipelineId = pipelineId;
            this.checkpointId = checkpointId;
            this.file = file;
            this.path = path;
        }

        @Override
        public void write(int b) throws IOException {
            requireNotClosed();
            try {
                hashing.write(b);
            } catch (IOException | RuntimeException e) {
                failed = true;
                throw e;
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            requireNotClosed();
            try {
                hashing.write(b, off, len);
            } catch (IOException | RuntimeException e) {
                failed = true;
                throw e;
            }
        }

        @Override
        public void flush() throws IOException {
            requireNotClosed();
            try {
                hashing.flush();
            } catch (IOException | RuntimeException e) {
                failed = true;
                throw e;
            }
        }

        private void requireNotClosed() throws IOException {
            if (closed) {
                throw new IOException("Payload stream is closed (" + path + ")");
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            ManifestEntry entry = null;
            try {
                if (!failed) {
                    hashing.flush();
                    raw.sync();
                }
                raw.close();
                if (!failed) {
                    entry = new ManifestEntry(pipelineId, checkpointId, file, hashing.length(), hashing.sha256Hex());
                }
            } catch (IOException | RuntimeException e) {
                try {
                    raw.close();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                payloadClosed(entry);
            }
        }
    }
}
