package io.keepsake.storage.internal;

import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.PipelineStateCodec;
import io.keepsake.storage.StagedCheckpoint;
import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.KeepsakeException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The legacy checkpoint layout, byte-compatible with SeaTunnel 2.3.x: one file per pipeline per
 * checkpoint in {@code <namespace>/<jobId>/}, written to a hidden temporary name, synced, renamed
 * and its directory synced, so a reader never sees a torn file (on a file system with
 * {@link FsCapability#ATOMIC_FILE_CREATE}, created whole under its final name instead). "Latest" is the highest
 * checkpoint id; a file whose bytes do not decode is skipped with a warning, a failure to read
 * is thrown. Never touches the savepoint root. Thread-safe (stateless over the file system).
 */
public final class LegacyCheckpointStore {

    private static final Logger LOG = LoggerFactory.getLogger(LegacyCheckpointStore.class);

    /** How many times in all a checkpoint file removed under its writer is written. */
    private static final int WRITES = 3;

    private final StorageLayout layout;
    private final StorageFileSystem fs;

    /** A store over the checkpoint root of {@code layout}. */
    public LegacyCheckpointStore(StorageLayout layout) {
        this.layout = layout;
        this.fs = layout.fileSystem();
    }

    /** Stores one checkpoint durably and returns its file name. */
    public String store(PipelineState state) throws CheckpointStorageException {
        try (StagedCheckpoint staged = stage(state)) {
            return staged.publish();
        }
    }

    // About 57 lines: the two staged forms (created whole at publish; temporary file renamed) share its locals.
    /**
     * Writes and syncs one checkpoint under its hidden temporary name; the returned handle renames it
     * into place and syncs the directory. Where a created file appears whole, nothing is written
     * until the publish, which creates the file under its final name.
     */
    public StagedCheckpoint stage(PipelineState state) throws CheckpointStorageException {
        String jobDir = layout.checkpointJobDir(state.jobId());
        String name = LegacyCheckpointFiles.newFileName(state.pipelineId(), state.checkpointId());
        String target = fs.child(jobDir, name);
        byte[] bytes = PipelineStateCodec.encode(state);
        if (fs.capabilities().contains(FsCapability.ATOMIC_FILE_CREATE)) {
            return new StagedCheckpoint() {
                @Override
                public String publish() throws CheckpointStorageException {
                    return storeWhole(state, jobDir, name, target, bytes);
                }

                @Override
                public void close() {
                }
            };
        }
        String temp = fs.child(jobDir, LegacyCheckpointFiles.tempName(name));
        try {
            writeTemp(temp, bytes);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temp);
            throw failure(state, target, e);
        }
        return new StagedCheckpoint() {
            private boolean published;

            @Override
            public String publish() throws CheckpointStorageException {
                if (published) {
                    throw new IllegalStateException("Cannot publish checkpoint " + state.checkpointId() + " of job "
                            + state.jobId() + " pipeline " + state.pipelineId() + ": it was published already ("
                            + target + ")");
                }
                try {
                    renameIntoPlace(state, temp, target, bytes);
                    published = true;
                    fs.syncDirectory(jobDir);
                    return name;
                } catch (IOException | RuntimeException e) {
                    if (!published) {
                        deleteQuietly(temp);
                    }
                    published = true; // either renamed (and only its directory sync failed) or removed above
                    throw failure(state, target, e);
                }
            }

            @Override
            public void close() {
                if (!published) {
                    published = true;
                    deleteQuietly(temp);
                }
            }
        };
    }

    /**
     * Creates a temporary file in the job's folder, which after the job's first checkpoint exists:
     * without walking and creating the folders above it each time, unless it is missing.
     */
    private SyncableOutputStream createTemp(String temp) throws IOException {
        try {
            return fs.createInExistingDirectory(temp, true);
        } catch (NoSuchFileException e) {
            return fs.create(temp, true);
        }
    }

    private void writeTemp(String temp, byte[] bytes) throws IOException {
        writeSynced(temp, bytes, this::createTemp);
    }

    /** Opens a new file for writing. */
    @FunctionalInterface
    private interface Creator {
        SyncableOutputStream create(String path) throws IOException;
    }

    /**
     * Writes and syncs a new file. A write slower than the lease timeout can find what it wrote
     * removed under it by a collection in another process, which takes it for a dead writer's
     * leftover (a temporary file; on an object store, an upload begun that long ago): a checkpoint's
     * file has no lease to renew. When the write fails and nothing is at {@code path}, it is written
     * again, up to {@value #WRITES} times in all, and only into its directory if that is still
     * there: a job's checkpoints deleted meanwhile stay deleted. A failure while the file is there
     * (a full disk, an I/O error, a response lost after the object was created), a failed create,
     * or a failed look is the store's failure.
     */
    private void writeSynced(String path, byte[] bytes, Creator first) throws IOException {
        IOException removed = null;
        for (int attempt = 1; ; attempt++) {
            SyncableOutputStream out;
            try {
                out = removed == null ? first.create(path) : fs.createInExistingDirectory(path, true);
            } catch (IOException e) {
                if (removed != null) {
                    e.addSuppressed(removed);
                }
                throw e;
            }
            try (out) {
                out.write(bytes);
                out.sync();
                return;
            } catch (IOException e) {
                if (attempt >= WRITES || !removedUnder(path, e)) {
                    throw e;
                }
                LOG.warn("Checkpoint file {} was removed while it was written (a gc after the lease timeout?);"
                        + " writing it again: {}", path, e.getMessage());
                removed = e;
            }
        }
    }

    /** True when {@code path} is gone after {@code failure}; a failed look is added to the failure and answers false. */
    private boolean removedUnder(String path, IOException failure) {
        try {
            return fs.stat(path).isEmpty();
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
            return false;
        }
    }

    /**
     * Renames a staged file into place. A caller may hold it staged longer than the lease timeout
     * (a savepoint's bundle commit), after which a gc in another process takes it as a dead
     * writer's leftover: when it is gone and nothing is at the target, it is written again first.
     */
    private void renameIntoPlace(PipelineState state, String temp, String target, byte[] bytes) throws IOException {
        try {
            rename(temp, target, bytes);
        } catch (IOException e) {
            if (fs.stat(temp).isPresent() || fs.stat(target).isPresent()) {
                throw e;
            }
            LOG.warn("Checkpoint {} of job {} pipeline {}: its staged file was removed before it was published (a gc"
                    + " after the lease timeout?); writing it again ({})", state.checkpointId(), state.jobId(),
                    state.pipelineId(), temp);
            writeSynced(temp, bytes, path -> fs.createInExistingDirectory(path, true));
            rename(temp, target, bytes);
        }
    }

    /**
     * Renames a staged file onto its target. A rename that is a link then an unlink (a local disk)
     * fails when a gc removed the staged file between the two; the target then holds the
     * checkpoint, and that counts as renamed.
     */
    private void rename(String temp, String target, byte[] bytes) throws IOException {
        try {
            fs.rename(temp, target);
        } catch (IOException e) {
            if (fs.stat(temp).isPresent() || !holds(target, bytes, e)) {
                throw e;
            }
        }
    }

    /**
     * Whether {@code target} holds {@code bytes}: the name is this store's own (its time and random
     * part), so those bytes there are its checkpoint, renamed into place. A failed read is added to
     * {@code failure} and answers false.
     */
    private boolean holds(String target, byte[] bytes, IOException failure) {
        try (InputStream in = fs.open(target)) {
            return Arrays.equals(in.readNBytes(bytes.length + 1), bytes);
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
            return false;
        }
    }

    private static CheckpointStorageException failure(PipelineState state, String target, Exception e) {
        return new CheckpointStorageException("Cannot store checkpoint " + state.checkpointId() + " of job "
                + state.jobId() + " pipeline " + state.pipelineId() + ": " + e.getMessage() + " (" + target + ")", e);
    }

    /**
     * Stores a checkpoint where a created file appears whole or not at all: one create-if-absent
     * under its final name; a failed write leaves nothing, so there is no temporary file to remove.
     */
    private String storeWhole(PipelineState state, String jobDir, String name, String target, byte[] bytes)
            throws CheckpointStorageException {
        try {
            writeSynced(target, bytes, path -> fs.create(path, true));
            fs.syncDirectory(jobDir);
            return name;
        } catch (IOException | RuntimeException e) {
            throw new CheckpointStorageException("Cannot store checkpoint " + state.checkpointId() + " of job "
                    + state.jobId() + " pipeline " + state.pipelineId() + ": " + e.getMessage() + " (" + target + ")", e);
        }
    }

    /** Checks the job id as {@link #store} would, without writing anything. */
    public void requireStorableJob(String jobId) {
        layout.checkpointJobDir(jobId);
    }

    /** The checkpoint files of a job, by pipeline then checkpoint id; empty when there are none. */
    public List<CheckpointFile> files(String jobId) throws CheckpointStorageException {
        String jobDir = layout.checkpointJobDir(jobId);
        try {
            List<CheckpointFile> files = new ArrayList<>();
            for (FileStatus s : fs.list(jobDir)) {
                if (s.regularFile()) {
                    LegacyCheckpointFiles.parse(s.name()).ifPresent(n -> files.add(new CheckpointFile(jobId,
                            n.pipelineId(), n.checkpointId(), n.fileName(), fs.child(jobDir, n.fileName()), s.length())));
                }
            }
            files.sort(Comparator.comparingInt(CheckpointFile::pipelineId)
                    .thenComparingLong(CheckpointFile::checkpointId)
                    .thenComparing(CheckpointFile::fileName));
            return files;
        } catch (IOException e) {
            throw new CheckpointStorageException("Cannot list checkpoints of job " + jobId + ": " + e.getMessage()
                    + " (" + jobDir + ")", e);
        }
    }

    /** The files of one pipeline, oldest first. */
    public List<CheckpointFile> files(String jobId, int pipelineId) throws CheckpointStorageException {
        List<CheckpointFile> files = new ArrayList<>(files(jobId));
        files.removeIf(f -> f.pipelineId() != pipelineId);
        return files;
    }

    /**
     * Reads one checkpoint file.
     *
     * @throws CheckpointStorageException when it is gone, does not decode (with a
     *                                    {@link CheckpointCorruptedException} cause) or cannot be read
     */
    public PipelineState read(CheckpointFile file) throws CheckpointStorageException {
        PipelineState state = readIfPresent(file);
        if (state == null) {
            throw new CheckpointStorageException("Cannot read checkpoint of job " + file.jobId() + ": the file is gone ("
                    + file.path() + ")");
        }
        return state;
    }

    private PipelineState readIfPresent(CheckpointFile file) throws CheckpointStorageException {
        try (InputStream in = fs.open(file.path())) {
            return PipelineStateCodec.decode(in.readAllBytes(), file.path());
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | KeepsakeException e) {
            throw new CheckpointStorageException("Cannot read checkpoint of job " + file.jobId() + ": " + e.getMessage()
                    + " (" + file.path() + ")", e);
        }
    }

    /**
     * Reads a checkpoint for a listing: a file whose bytes do not decode is skipped with a warning
     * (as SeaTunnel does), and so is one deleted since the listing; a failure to read (I/O,
     * authentication) is not a reason to pretend the checkpoint does not exist, so it is thrown.
     */
    private PipelineState readForListing(CheckpointFile file) throws CheckpointStorageException {
        try {
            return readIfPresent(file);
        } catch (CheckpointStorageException e) {
            if (e.getCause() instanceof CheckpointCorruptedException) {
                LOG.warn("Skipping undecodable checkpoint {} of job {} pipeline {}: {}", file.checkpointId(),
                        file.jobId(), file.pipelineId(), e.getMessage());
                return null;
            }
            throw e;
        }
    }

    /** Every readable checkpoint among {@code files}, in their order. */
    public List<PipelineState> readAll(List<CheckpointFile> files) throws CheckpointStorageException {
        List<PipelineState> states = new ArrayList<>();
        for (CheckpointFile f : files) {
            PipelineState state = readForListing(f);
            if (state != null) {
                states.add(state);
            }
        }
        return states;
    }

    /** The newest readable checkpoint of each pipeline of a job, in pipeline order. */
    public List<PipelineState> latest(String jobId) throws CheckpointStorageException {
        Map<Integer, List<CheckpointFile>> byPipeline = new TreeMap<>();
        for (CheckpointFile f : files(jobId)) {
            byPipeline.computeIfAbsent(f.pipelineId(), k -> new ArrayList<>()).add(f);
        }
        List<PipelineState> latest = new ArrayList<>();
        for (List<CheckpointFile> files : byPipeline.values()) {
            PipelineState state = newestReadable(files);
            if (state != null) {
                latest.add(state);
            }
        }
        return latest;
    }

    /** The newest readable checkpoint among {@code files}, or null. */
    public PipelineState newestReadable(List<CheckpointFile> files) throws CheckpointStorageException {
        List<CheckpointFile> newestFirst = new ArrayList<>(files);
        newestFirst.sort(Comparator.comparingLong(CheckpointFile::checkpointId).reversed());
        for (CheckpointFile f : newestFirst) {
            PipelineState state = readForListing(f);
            if (state != null) {
                return state;
            }
        }
        return null;
    }

    /** One checkpoint by ids. */
    public PipelineState get(String jobId, int pipelineId, long checkpointId) throws CheckpointStorageException {
        for (CheckpointFile f : files(jobId, pipelineId)) {
            if (f.checkpointId() == checkpointId) {
                return read(f);
            }
        }
        throw new CheckpointStorageException("Cannot find checkpoint " + checkpointId + " of job " + jobId
                + " pipeline " + pipelineId + " (" + layout.checkpointJobDir(jobId) + ")");
    }

    /**
     * Deletes a job's whole checkpoint folder.
     *
     * @throws KeepsakeException when it cannot be deleted (the legacy SPI declares no checked error here)
     */
    public void deleteJob(String jobId) {
        String jobDir = layout.checkpointJobDir(jobId);
        try {
            fs.delete(jobDir, true);
        } catch (IOException e) {
            throw new KeepsakeException("Cannot delete checkpoints of job " + jobId + ": " + e.getMessage() + " ("
                    + jobDir + ")", e);
        }
    }

    /** Deletes the listed checkpoints of one pipeline. */
    public void delete(String jobId, int pipelineId, List<Long> checkpointIds) throws CheckpointStorageException {
        for (CheckpointFile f : files(jobId, pipelineId)) {
            if (checkpointIds.contains(f.checkpointId())) {
                try {
                    fs.delete(f.path(), false);
                } catch (IOException e) {
                    throw new CheckpointStorageException("Cannot delete checkpoint " + f.checkpointId() + " of job "
                            + jobId + " pipeline " + pipelineId + ": " + e.getMessage() + " (" + f.path() + ")", e);
                }
            }
        }
    }

    /** Parses an id the legacy SPI passes as a string. */
    public static int parseInt(String what, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new InvalidStorageArgumentException("Cannot accept " + what + ": not an integer (" + value + ")");
        }
    }

    /** Parses an id the legacy SPI passes as a string. */
    public static long parseLong(String what, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new InvalidStorageArgumentException("Cannot accept " + what + ": not an integer (" + value + ")");
        }
    }

    private void deleteQuietly(String path) {
        try {
            fs.delete(path, false);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot delete {}", path, e);
        }
    }
}
