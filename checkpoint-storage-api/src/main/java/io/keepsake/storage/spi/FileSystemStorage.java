package io.keepsake.storage.spi;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.PipelineStateCodec;
import io.keepsake.storage.SavepointContent;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.Versions;
import io.keepsake.storage.internal.LegacyCheckpointFiles;
import io.keepsake.storage.internal.MetadataCodec;
import io.keepsake.storage.internal.Names;
import io.keepsake.storage.internal.StagedSavepointWriter;
import io.keepsake.storage.internal.VerifyingInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Both storage SPIs, written once over a {@link StorageFileSystem}: the legacy checkpoint layout
 * (byte-compatible with SeaTunnel 2.3.x, but written to a temporary name, synced and renamed) and
 * the savepoint commit protocol (staged writes, {@code _metadata.ser} last, atomic publication,
 * verification of every byte read back). Backends supply the file system and extend this class
 * only to name themselves. Thread-safe.
 *
 * <p>Layout: checkpoints in {@code <namespace>/<jobId>/}, savepoints in
 * {@code <savepointRoot>/<jobId>/<savepointId>/}, staging in
 * {@code <savepointRoot>/<jobId>/.staging/<attemptId>/}. When the savepoint root lies inside the
 * namespace, its first path segment there is reserved and refused as a job id, so that
 * checkpoint cleanup can never reach a savepoint.
 */
public class FileSystemStorage implements CheckpointStorage, SavepointStorage {

    private static final Logger LOG = LoggerFactory.getLogger(FileSystemStorage.class);

    /** The folder under a job's savepoint folder where attempts are staged. */
    public static final String STAGING_DIR = ".staging";

    private final StorageFileSystem fs;
    private final String namespace;
    private final String savepointRoot;
    private final String reservedJobId;
    private final Set<String> openAttempts;
    private final ExecutorService asyncWriter;
    private final boolean ownsFileSystem;
    private final int periodicMaxRetained;

    /**
     * Creates a storage over {@code fs}.
     *
     * @param fs            the backend's primitives; closed with this storage
     * @param namespace     the checkpoint root
     * @param savepointRoot the savepoint root; null for {@code <namespace>/savepoint}
     * @throws InvalidStorageArgumentException when a root is not absolute or the roots overlap badly
     */
    public FileSystemStorage(StorageFileSystem fs, String namespace, String savepointRoot) {
        this(fs, namespace, savepointRoot, 0);
    }

    /**
     * Creates a storage over {@code fs} that keeps at most {@code periodicMaxRetained} periodic
     * savepoints per job (0 keeps all); the save session applies it after each periodic commit.
     */
    public FileSystemStorage(StorageFileSystem fs, String namespace, String savepointRoot, int periodicMaxRetained) {
        this(fs, fs.normalizeRoot(namespace),
                savepointRoot == null ? fs.child(fs.normalizeRoot(namespace), "savepoint") : fs.normalizeRoot(savepointRoot),
                ConcurrentHashMap.newKeySet(), newAsyncWriter(), true, periodicMaxRetained);
    }

    private FileSystemStorage(StorageFileSystem fs, String namespace, String savepointRoot, Set<String> openAttempts,
                              ExecutorService asyncWriter, boolean ownsFileSystem, int periodicMaxRetained) {
        if (periodicMaxRetained < 0) {
            throw new InvalidStorageArgumentException("Cannot configure storage: periodic retention must not be negative ("
                    + periodicMaxRetained + ")");
        }
        this.periodicMaxRetained = periodicMaxRetained;
        this.fs = fs;
        this.namespace = namespace;
        this.savepointRoot = savepointRoot;
        this.reservedJobId = reservedName(namespace, savepointRoot);
        this.openAttempts = openAttempts;
        this.asyncWriter = asyncWriter;
        this.ownsFileSystem = ownsFileSystem;
    }

    private static ExecutorService newAsyncWriter() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "keepsake-async-checkpoint-writer");
            t.setDaemon(true);
            return t;
        });
    }

    private static String reservedName(String namespace, String savepointRoot) {
        String ns = stripSlash(namespace);
        String sp = stripSlash(savepointRoot);
        if (ns.equals(sp)) {
            throw new InvalidStorageArgumentException("Cannot configure storage: savepoint.path equals the namespace,"
                    + " so checkpoint cleanup would delete savepoints (" + savepointRoot + ")");
        }
        if (ns.startsWith(sp + "/")) {
            throw new InvalidStorageArgumentException("Cannot configure storage: the namespace lies inside savepoint.path ("
                    + namespace + " inside " + savepointRoot + ")");
        }
        if (sp.startsWith(ns + "/")) {
            String rest = sp.substring(ns.length() + 1);
            int slash = rest.indexOf('/');
            return slash < 0 ? rest : rest.substring(0, slash);
        }
        return null;
    }

    private static String stripSlash(String p) {
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /** The primitive file system underneath. */
    public StorageFileSystem fileSystem() {
        return fs;
    }

    /** The checkpoint root. */
    public String namespace() {
        return namespace;
    }

    @Override
    public String savepointRoot() {
        return savepointRoot;
    }

    @Override
    public FileSystemStorage withSavepointRoot(String root) {
        return new FileSystemStorage(fs, namespace, fs.normalizeRoot(root), openAttempts, asyncWriter, false,
                periodicMaxRetained);
    }

    @Override
    public int periodicMaxRetained() {
        return periodicMaxRetained;
    }

    // ------------------------------------------------------------------ legacy checkpoints

    private String checkpointJobDir(String jobId) {
        Names.requireSafeName("job id", jobId);
        if (jobId.equals(reservedJobId)) {
            throw new InvalidStorageArgumentException("Cannot use job id: it names the savepoint folder inside the namespace ("
                    + jobId + ")");
        }
        return fs.child(namespace, jobId);
    }

    @Override
    public String storeCheckPoint(PipelineState state) throws CheckpointStorageException {
        String jobDir = checkpointJobDir(state.jobId());
        String name = LegacyCheckpointFiles.newFileName(state.pipelineId(), state.checkpointId());
        String target = fs.child(jobDir, name);
        String temp = fs.child(jobDir, "." + name + ".tmp");
        byte[] bytes = PipelineStateCodec.encode(state);
        try {
            try (SyncableOutputStream out = fs.create(temp, true)) {
                out.write(bytes);
                out.sync();
            }
            fs.rename(temp, target);
            fs.syncDirectory(jobDir);
            return name;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temp);
            throw new CheckpointStorageException("Cannot store checkpoint " + state.checkpointId() + " of job "
                    + state.jobId() + " pipeline " + state.pipelineId() + ": " + e.getMessage() + " (" + target + ")", e);
        }
    }

    @Override
    public void asyncStoreCheckPoint(PipelineState state) throws CheckpointStorageException {
        checkpointJobDir(state.jobId());
        asyncWriter.execute(() -> {
            try {
                storeCheckPoint(state);
            } catch (CheckpointStorageException | RuntimeException e) {
                LOG.error("Asynchronous store of checkpoint {} of job {} pipeline {} failed", state.checkpointId(),
                        state.jobId(), state.pipelineId(), e);
            }
        });
    }

    private List<LegacyCheckpointFiles.Name> checkpointFiles(String jobId) throws CheckpointStorageException {
        String jobDir = checkpointJobDir(jobId);
        try {
            List<LegacyCheckpointFiles.Name> names = new ArrayList<>();
            for (FileStatus s : fs.list(jobDir)) {
                if (!s.directory()) {
                    LegacyCheckpointFiles.parse(s.name()).ifPresent(names::add);
                }
            }
            names.sort(Comparator.comparingInt(LegacyCheckpointFiles.Name::pipelineId)
                    .thenComparingLong(LegacyCheckpointFiles.Name::checkpointId)
                    .thenComparing(LegacyCheckpointFiles.Name::fileName));
            return names;
        } catch (IOException e) {
            throw new CheckpointStorageException("Cannot list checkpoints of job " + jobId + ": " + e.getMessage()
                    + " (" + jobDir + ")", e);
        }
    }

    private PipelineState readCheckpointFile(String jobId, String fileName) throws CheckpointStorageException {
        PipelineState state = readCheckpointFileIfReadable(jobId, fileName);
        if (state == null) {
            throw new CheckpointStorageException("Cannot read checkpoint of job " + jobId + ": the file is gone ("
                    + fs.child(checkpointJobDir(jobId), fileName) + ")");
        }
        return state;
    }

    /**
     * Reads one checkpoint file; null when it vanished since the listing (rotation).
     *
     * @throws CheckpointStorageException with a {@link SavepointCorruptedException} cause when the
     *                                    bytes do not decode, or with an I/O cause when reading failed
     */
    private PipelineState readCheckpointFileIfReadable(String jobId, String fileName) throws CheckpointStorageException {
        String path = fs.child(checkpointJobDir(jobId), fileName);
        try (InputStream in = fs.open(path)) {
            return PipelineStateCodec.decode(in.readAllBytes(), path);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | SavepointStorageException e) {
            throw new CheckpointStorageException("Cannot read checkpoint of job " + jobId + ": " + e.getMessage()
                    + " (" + path + ")", e);
        }
    }

    /**
     * Reads a checkpoint for a listing: a file whose bytes do not decode is skipped with a warning
     * (as SeaTunnel does), and so is one deleted since the listing; a failure to read (I/O,
     * authentication) is not a reason to pretend the checkpoint does not exist, so it is thrown.
     */
    private PipelineState readForListing(String jobId, LegacyCheckpointFiles.Name n) throws CheckpointStorageException {
        try {
            return readCheckpointFileIfReadable(jobId, n.fileName());
        } catch (CheckpointStorageException e) {
            if (e.getCause() instanceof SavepointCorruptedException) {
                LOG.warn("Skipping undecodable checkpoint {} of job {} pipeline {}: {}", n.checkpointId(), jobId,
                        n.pipelineId(), e.getMessage());
                return null;
            }
            throw e;
        }
    }

    private List<PipelineState> readAll(String jobId, List<LegacyCheckpointFiles.Name> names)
            throws CheckpointStorageException {
        List<PipelineState> states = new ArrayList<>();
        for (LegacyCheckpointFiles.Name n : names) {
            PipelineState state = readForListing(jobId, n);
            if (state != null) {
                states.add(state);
            }
        }
        return states;
    }

    @Override
    public List<PipelineState> getAllCheckpoints(String jobId) throws CheckpointStorageException {
        return readAll(jobId, checkpointFiles(jobId));
    }

    /**
     * {@inheritDoc} A pipeline whose newest file does not decode falls back to its newest decodable
     * one, with a warning naming the skipped file, rather than dropping out of the result; a failure
     * to read (I/O, authentication) is thrown, never taken for "no checkpoint".
     */
    @Override
    public List<PipelineState> getLatestCheckpoint(String jobId) throws CheckpointStorageException {
        Map<Integer, List<LegacyCheckpointFiles.Name>> byPipeline = new TreeMap<>();
        for (LegacyCheckpointFiles.Name n : checkpointFiles(jobId)) {
            byPipeline.computeIfAbsent(n.pipelineId(), k -> new ArrayList<>()).add(n);
        }
        List<PipelineState> latest = new ArrayList<>();
        for (List<LegacyCheckpointFiles.Name> names : byPipeline.values()) {
            PipelineState state = newestReadable(jobId, names);
            if (state != null) {
                latest.add(state);
            }
        }
        return latest;
    }

    private PipelineState newestReadable(String jobId, List<LegacyCheckpointFiles.Name> names)
            throws CheckpointStorageException {
        List<LegacyCheckpointFiles.Name> newestFirst = new ArrayList<>(names);
        newestFirst.sort(Comparator.comparingLong(LegacyCheckpointFiles.Name::checkpointId).reversed());
        for (LegacyCheckpointFiles.Name n : newestFirst) {
            PipelineState state = readForListing(jobId, n);
            if (state != null) {
                return state;
            }
        }
        return null;
    }

    @Override
    public PipelineState getLatestCheckpointByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException {
        int pid = parseInt("pipeline id", pipelineId);
        List<LegacyCheckpointFiles.Name> names = new ArrayList<>(checkpointFiles(jobId));
        names.removeIf(n -> n.pipelineId() != pid);
        return newestReadable(jobId, names);
    }

    @Override
    public List<PipelineState> getCheckpointsByJobIdAndPipelineId(String jobId, String pipelineId)
            throws CheckpointStorageException {
        int pid = parseInt("pipeline id", pipelineId);
        List<LegacyCheckpointFiles.Name> names = new ArrayList<>(checkpointFiles(jobId));
        names.removeIf(n -> n.pipelineId() != pid);
        return readAll(jobId, names);
    }

    @Override
    public PipelineState getCheckpoint(String jobId, String pipelineId, String checkpointId)
            throws CheckpointStorageException {
        int pid = parseInt("pipeline id", pipelineId);
        long cid = parseLong("checkpoint id", checkpointId);
        for (LegacyCheckpointFiles.Name n : checkpointFiles(jobId)) {
            if (n.pipelineId() == pid && n.checkpointId() == cid) {
                return readCheckpointFile(jobId, n.fileName());
            }
        }
        throw new CheckpointStorageException("Cannot find checkpoint " + checkpointId + " of job " + jobId
                + " pipeline " + pipelineId + " (" + fs.child(namespace, jobId) + ")");
    }

    @Override
    public void deleteCheckpoint(String jobId) {
        String jobDir = checkpointJobDir(jobId);
        try {
            fs.delete(jobDir, true);
        } catch (IOException e) {
            LOG.error("Cannot delete checkpoints of job {} ({})", jobId, jobDir, e);
        }
    }

    @Override
    public void deleteCheckpoint(String jobId, String pipelineId, String checkpointId) throws CheckpointStorageException {
        deleteCheckpoint(jobId, pipelineId, List.of(checkpointId));
    }

    @Override
    public void deleteCheckpoint(String jobId, String pipelineId, List<String> checkpointIdList)
            throws CheckpointStorageException {
        int pid = parseInt("pipeline id", pipelineId);
        List<Long> ids = new ArrayList<>();
        for (String c : checkpointIdList) {
            ids.add(parseLong("checkpoint id", c));
        }
        String jobDir = checkpointJobDir(jobId);
        for (LegacyCheckpointFiles.Name n : checkpointFiles(jobId)) {
            if (n.pipelineId() == pid && ids.contains(n.checkpointId())) {
                String path = fs.child(jobDir, n.fileName());
                try {
                    fs.delete(path, false);
                } catch (IOException e) {
                    throw new CheckpointStorageException("Cannot delete checkpoint " + n.checkpointId() + " of job "
                            + jobId + " pipeline " + pipelineId + ": " + e.getMessage() + " (" + path + ")", e);
                }
            }
        }
    }

    private static int parseInt(String what, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new InvalidStorageArgumentException("Cannot accept " + what + ": not an integer (" + value + ")");
        }
    }

    private static long parseLong(String what, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new InvalidStorageArgumentException("Cannot accept " + what + ": not an integer (" + value + ")");
        }
    }

    // ------------------------------------------------------------------ savepoints

    /** The folder of a job's savepoints. */
    public String savepointJobDir(String jobId) {
        return fs.child(savepointRoot, Names.requireSafeName("job id", jobId));
    }

    /** The folder of one savepoint. */
    public String savepointDir(String jobId, String savepointId) {
        return fs.child(savepointJobDir(jobId), Names.requireSafeName("savepoint id", savepointId));
    }

    @Override
    public SavepointWriter beginSavepoint(SavepointRequest request) {
        String target = savepointDir(request.jobId(), request.savepointId());
        try {
            if (fs.stat(fs.child(target, MetadataCodec.FILE_NAME)).isPresent()) {
                throw new io.keepsake.storage.SavepointAlreadyExistsException("Cannot begin savepoint "
                        + request.savepointId() + " of job " + request.jobId() + ": it is already committed (" + target + ")");
            }
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot begin savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": " + e.getMessage() + " (" + target + ")", e);
        }
        return StagedSavepointWriter.begin(fs, request, savepointJobDir(request.jobId()), target, openAttempts);
    }

    @Override
    public List<SavepointHandle> listSavepoints(String jobId) {
        List<SavepointHandle> handles = new ArrayList<>();
        for (SavepointEntry e : scanSavepoints(jobId)) {
            if (e.handle().isPresent()) {
                handles.add(e.handle().get());
            } else if (!e.incomplete()) {
                LOG.warn("Skipping savepoint {} of job {}: {}", e.savepointId(), jobId,
                        e.problem().map(Throwable::getMessage).orElse("unknown problem"));
            }
        }
        return handles;
    }

    @Override
    public List<SavepointEntry> scanSavepoints(String jobId) {
        String jobDir = savepointJobDir(jobId);
        List<SavepointEntry> entries = new ArrayList<>();
        for (FileStatus s : listOrFail(jobDir, "list savepoints of job " + jobId)) {
            if (!s.directory() || !Names.isSafeName(s.name())) {
                continue;
            }
            String location = fs.child(jobDir, s.name());
            try {
                entries.add(new SavepointEntry(s.name(), location, s.modificationTime(),
                        Optional.of(readMetadata(jobId, s.name())), Optional.empty()));
            } catch (SavepointStorageException e) {
                entries.add(new SavepointEntry(s.name(), location, s.modificationTime(), Optional.empty(), Optional.of(e)));
            }
        }
        entries.sort(Comparator.comparingLong(SavepointEntry::sortTime).thenComparing(SavepointEntry::savepointId)
                .reversed());
        return entries;
    }

    @Override
    public List<String> listJobs() {
        List<String> jobs = new ArrayList<>();
        for (FileStatus s : listOrFail(savepointRoot, "list savepoint jobs")) {
            if (s.directory() && Names.isSafeName(s.name())) {
                jobs.add(s.name());
            }
        }
        Collections.sort(jobs);
        return jobs;
    }

    private List<FileStatus> listOrFail(String dir, String what) {
        try {
            return fs.list(dir);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot " + what + ": " + e.getMessage() + " (" + dir + ")", e);
        }
    }

    @Override
    public SavepointHandle readMetadata(String jobId, String savepointId) {
        String dir = savepointDir(jobId, savepointId);
        String file = fs.child(dir, MetadataCodec.FILE_NAME);
        byte[] bytes;
        try {
            Optional<FileStatus> status = fs.stat(file);
            if (status.isEmpty()) {
                throw new SavepointNotFoundException("Cannot read savepoint " + savepointId + " of job " + jobId
                        + ": no " + MetadataCodec.FILE_NAME + ", so it is not a complete savepoint (" + dir + ")");
            }
            if (status.get().length() > MetadataCodec.MAX_LENGTH) {
                throw new SavepointCorruptedException(file, "Savepoint metadata is implausibly large",
                        "at most " + MetadataCodec.MAX_LENGTH + " bytes", status.get().length() + " bytes");
            }
            try (InputStream in = fs.open(file)) {
                bytes = in.readNBytes(MetadataCodec.MAX_LENGTH + 1);
            }
        } catch (NoSuchFileException e) {
            throw new SavepointNotFoundException("Cannot read savepoint " + savepointId + " of job " + jobId
                    + ": no " + MetadataCodec.FILE_NAME + " (" + dir + ")");
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot read savepoint " + savepointId + " of job " + jobId + ": "
                    + e.getMessage() + " (" + file + ")", e);
        }
        io.keepsake.storage.SavepointMeta meta = MetadataCodec.decode(bytes, file);
        if (!meta.jobId().equals(jobId) || !meta.savepointId().equals(savepointId)) {
            throw new SavepointCorruptedException(file, "Savepoint metadata names another savepoint than its directory",
                    jobId + "/" + savepointId, meta.jobId() + "/" + meta.savepointId());
        }
        return new SavepointHandle(dir, meta);
    }

    @Override
    public InputStream openPayload(SavepointHandle handle, ManifestEntry entry) {
        requireReadableFormat(handle);
        String path = fs.child(handle.location(), Names.requireSafeName("manifest file name", entry.file()));
        if (!handle.meta().manifest().contains(entry)) {
            throw new InvalidStorageArgumentException("Cannot open payload: it is not in the manifest of savepoint "
                    + handle.savepointId() + " of job " + handle.jobId() + " (" + entry.file() + ")");
        }
        try {
            return new VerifyingInputStream(fs.open(path), path, entry.length(), entry.sha256());
        } catch (NoSuchFileException e) {
            throw new SavepointCorruptedException(path, "Payload named in the manifest is missing", "a file", "nothing");
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot open payload of savepoint " + handle.savepointId() + " of job "
                    + handle.jobId() + ": " + e.getMessage() + " (" + path + ")", e);
        }
    }

    @Override
    public SavepointContent readSavepoint(String jobId, String savepointId) {
        SavepointHandle handle = readMetadata(jobId, savepointId);
        requireReadableFormat(handle);
        Map<String, byte[]> payloads = new LinkedHashMap<>();
        for (ManifestEntry entry : handle.meta().manifest()) {
            String path = fs.child(handle.location(), entry.file());
            if (entry.length() > Integer.MAX_VALUE - 16) {
                throw new SavepointCorruptedException(path, "Payload is too large to read into memory",
                        "at most " + (Integer.MAX_VALUE - 16) + " bytes", entry.length() + " bytes");
            }
            try {
                Optional<FileStatus> status = fs.stat(path);
                if (status.isPresent() && status.get().length() != entry.length()) {
                    throw new SavepointCorruptedException(path, "Payload length does not match the manifest",
                            entry.length() + " bytes", status.get().length() + " bytes");
                }
            } catch (IOException e) {
                throw new SavepointStorageException("Cannot read payload of savepoint " + savepointId + " of job "
                        + jobId + ": " + e.getMessage() + " (" + path + ")", e);
            }
            try (InputStream in = openPayload(handle, entry)) {
                byte[] bytes = in.readNBytes((int) entry.length());
                if (in.read() != -1) {
                    throw new SavepointCorruptedException(path, "Payload is longer than the manifest says",
                            entry.length() + " bytes", "more");
                }
                payloads.put(entry.file(), bytes);
            } catch (IOException e) {
                throw new SavepointStorageException("Cannot read payload of savepoint " + savepointId + " of job "
                        + jobId + ": " + e.getMessage() + " (" + path + ")", e);
            }
        }
        return new SavepointContent(handle, payloads);
    }

    private static void requireReadableFormat(SavepointHandle handle) {
        int version = handle.meta().formatVersion();
        if (version > Versions.CURRENT_FORMAT_VERSION) {
            throw new SavepointIncompatibleException("Cannot read savepoint " + handle.savepointId() + " of job "
                    + handle.jobId() + ": it was written in format version " + version + " by a newer Keepsake ("
                    + handle.meta().producerVersion() + "); this build reads versions 1 to "
                    + Versions.CURRENT_FORMAT_VERSION + "; read it with a build that supports version " + version
                    + " (" + handle.location() + ")", version, 1, Versions.CURRENT_FORMAT_VERSION);
        }
    }

    @Override
    public void deleteSavepoint(String jobId, String savepointId) {
        String dir = savepointDir(jobId, savepointId);
        try {
            if (fs.stat(dir).isEmpty()) {
                throw new SavepointNotFoundException("Cannot delete savepoint " + savepointId + " of job " + jobId
                        + ": it does not exist (" + dir + ")");
            }
            if (fs.delete(fs.child(dir, MetadataCodec.FILE_NAME), false)) {
                fs.syncDirectory(dir);
            }
            fs.delete(dir, true);
            LOG.info("Deleted savepoint {} of job {} ({})", savepointId, jobId, dir);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot delete savepoint " + savepointId + " of job " + jobId + ": "
                    + e.getMessage() + " (" + dir + ")", e);
        }
    }

    @Override
    public int deleteSavepoints(String jobId) {
        String jobDir = savepointJobDir(jobId);
        int deleted = 0;
        for (SavepointEntry e : scanSavepoints(jobId)) {
            deleteSavepoint(jobId, e.savepointId());
            if (e.handle().isPresent()) {
                deleted++;
            }
        }
        try {
            fs.delete(jobDir, true);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot delete savepoints of job " + jobId + ": " + e.getMessage()
                    + " (" + jobDir + ")", e);
        }
        return deleted;
    }

    @Override
    public GcReport collectGarbage(Duration olderThan) {
        long cutoff = System.currentTimeMillis() - olderThan.toMillis();
        List<String> deleted = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        for (String jobId : listJobs()) {
            String staging = fs.child(savepointJobDir(jobId), STAGING_DIR);
            for (FileStatus attempt : listOrFail(staging, "list staging of job " + jobId)) {
                String path = fs.child(staging, attempt.name());
                if (!openAttempts.contains(path) && attempt.modificationTime() <= cutoff) {
                    collect(path, deleted, kept);
                }
            }
            for (SavepointEntry e : scanSavepoints(jobId)) {
                if (e.incomplete() && e.modificationTime() <= cutoff && !openAttempts.contains(e.location())) {
                    collect(e.location(), deleted, kept);
                }
            }
        }
        if (!deleted.isEmpty()) {
            LOG.info("Garbage collection under {} removed {} stale staging or incomplete savepoint directories",
                    savepointRoot, deleted.size());
        }
        return new GcReport(deleted, kept);
    }

    private void collect(String path, List<String> deleted, List<String> kept) {
        try {
            fs.delete(path, true);
            deleted.add(path);
        } catch (IOException e) {
            kept.add(path + ": " + e.getMessage());
        }
    }

    private void deleteQuietly(String path) {
        try {
            fs.delete(path, false);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot delete {}", path, e);
        }
    }

    @Override
    public void close() {
        if (!ownsFileSystem) {
            return;
        }
        asyncWriter.shutdown();
        try {
            if (!asyncWriter.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("Asynchronous checkpoint writes still running at close under {}", namespace);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            fs.close();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot close file system under " + namespace, e);
        }
    }
}
