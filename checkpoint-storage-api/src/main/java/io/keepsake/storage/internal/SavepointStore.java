package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointContent;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointHint;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.StorageListener;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.Versions;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The savepoint side of a storage: begins staged writers, lists and scans a job's savepoint
 * folders, reads and verifies metadata and payloads, and deletes ({@code _metadata.ser} first).
 * Every byte read back is checked (I6); nothing outside the layout's roots is named (I7).
 * Thread-safe (stateless over the file system and the shared registry of attempts in flight).
 */
public final class SavepointStore {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointStore.class);

    private final StorageLayout layout;
    private final StorageFileSystem fs;
    private final InFlightAttempts inFlight;

    /** A store over the savepoint root of {@code layout}. */
    public SavepointStore(StorageLayout layout, InFlightAttempts inFlight) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.inFlight = inFlight;
    }

    /** Starts a staged savepoint. */
    public SavepointWriter begin(SavepointRequest request) {
        return begin(request, StorageListener.NONE);
    }

    /** Starts a staged savepoint whose commit or abort is reported to {@code listener}. */
    public SavepointWriter begin(SavepointRequest request, StorageListener listener) {
        String target = layout.savepointDir(request.jobId(), request.savepointId());
        try {
            if (fs.stat(fs.child(target, MetadataCodec.FILE_NAME)).isPresent()) {
                throw new SavepointAlreadyExistsException("Cannot begin savepoint " + request.savepointId() + " of job "
                        + request.jobId() + ": it is already committed (" + target + ")");
            }
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot begin savepoint " + request.savepointId() + " of job "
                    + request.jobId() + ": " + e.getMessage() + " (" + target + ")", e);
        }
        return StagedSavepointWriter.begin(layout, request, inFlight, listener);
    }

    /** The complete savepoints of a job, newest first. */
    public List<SavepointHandle> list(String jobId) {
        List<SavepointHandle> handles = new ArrayList<>();
        for (SavepointEntry e : scan(jobId)) {
            if (e.handle().isPresent()) {
                handles.add(e.handle().get());
            } else if (!e.incomplete()) {
                LOG.warn("Skipping savepoint {} of job {}: {}", e.savepointId(), jobId,
                        e.problem().map(Throwable::getMessage).orElse("unknown problem"));
            }
        }
        return handles;
    }

    /** Every savepoint folder of a job, newest first, with what is wrong with each; ownership is not looked at. */
    public List<SavepointEntry> scan(String jobId) {
        return scan(jobId, false);
    }

    /**
     * Every savepoint folder of a job, newest first, with what is wrong with each; with
     * {@code ownership}, each folder without {@code _metadata.ser} is listed once more to tell
     * whether it holds an entry Keepsake does not write ({@link SavepointEntry#foreignEntry}).
     */
    public List<SavepointEntry> scan(String jobId, boolean ownership) {
        String jobDir = layout.savepointJobDir(jobId);
        List<SavepointEntry> entries = new ArrayList<>();
        for (FileStatus s : listOrFail(jobDir, "list savepoints of job " + jobId)) {
            if (!s.directory() || !Names.isSafeName(s.name())) {
                continue;
            }
            String location = fs.child(jobDir, s.name());
            try {
                entries.add(new SavepointEntry(s.name(), location, s.modificationTime(),
                        Optional.of(readMetadata(jobId, s.name())), Optional.empty()));
            } catch (SavepointNotFoundException e) {
                entries.add(new SavepointEntry(s.name(), location, s.modificationTime(), Optional.empty(), Optional.of(e),
                        ownership ? foreignEntry(location) : Optional.empty()));
            } catch (SavepointStorageException e) {
                entries.add(new SavepointEntry(s.name(), location, s.modificationTime(), Optional.empty(), Optional.of(e)));
            }
        }
        entries.sort(Comparator.comparingLong(SavepointEntry::sortTime).thenComparing(SavepointEntry::savepointId)
                .reversed());
        return entries;
    }

    /** The folder's first entry no Keepsake attempt writes, as garbage collection decides it; empty when unknown. */
    private Optional<String> foreignEntry(String folder) {
        try {
            return new OwnedRemoval(layout, inFlight).foreignEntry(folder);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot list {} to tell whether Keepsake wrote everything in it", folder, e);
            return Optional.empty();
        }
    }

    /**
     * The savepoint folders of a job with what their index markers claim, from one names-only
     * listing of the job folder and one of its index; no metadata is read, and no entry is looked
     * at one by one except those without a marker (to tell a folder from anything else, and to
     * give its time). A folder with no marker, or with more than one (a marker left by an aborted
     * attempt at the same id), claims nothing. A claimed name is not checked to be a folder here:
     * reading its metadata, which a claim always leads to before it is trusted, tells.
     */
    public List<SavepointHint> hints(String jobId) {
        String jobDir = layout.savepointJobDir(jobId);
        Map<String, List<Map<Integer, Long>>> markers = new java.util.HashMap<>();
        for (String name : listNamesOrFail(layout.indexDir(jobId), "list the savepoint index of job " + jobId)) {
            StorageLayout.parseMarker(name).ifPresent(m ->
                    markers.computeIfAbsent(m.savepointId(), k -> new ArrayList<>()).add(m.claims()));
        }
        List<SavepointHint> hints = new ArrayList<>();
        for (String name : listNamesOrFail(jobDir, "list savepoints of job " + jobId)) {
            if (!Names.isSafeName(name)) {
                continue;
            }
            List<Map<Integer, Long>> claims = markers.getOrDefault(name, List.of());
            if (claims.size() == 1) {
                hints.add(new SavepointHint(name, SavepointHint.TIME_NOT_READ, claims.get(0)));
                continue;
            }
            Optional<FileStatus> status = statOrFail(fs.child(jobDir, name), "look at savepoint folder " + name
                    + " of job " + jobId);
            if (status.isPresent() && status.get().directory()) {
                hints.add(new SavepointHint(name, status.get().modificationTime(), Map.of()));
            }
        }
        return hints;
    }

    /**
     * Removes the index markers of one savepoint (before its metadata, so a crash leaves the
     * savepoint without a marker, which readers handle by reading its metadata).
     */
    void deleteIndexMarkers(String jobId, String savepointId) throws IOException {
        String indexDir = layout.indexDir(jobId);
        try {
            Optional<String> name = StorageLayout.indexMarker(savepointId, readMetadata(jobId, savepointId).meta().manifest());
            if (name.isPresent()) {
                fs.delete(fs.child(indexDir, name.get()), false);
                return;
            }
        } catch (SavepointStorageException unreadable) {
            // no verified metadata to name the marker by: look for any marker of this id
        }
        for (FileStatus s : fs.list(indexDir)) {
            if (StorageLayout.parseMarker(s.name()).filter(m -> m.savepointId().equals(savepointId)).isPresent()) {
                fs.delete(fs.child(indexDir, s.name()), false);
            }
        }
    }

    /** The job ids with a folder under the savepoint root, sorted. */
    public List<String> jobs() {
        List<String> jobs = new ArrayList<>();
        for (FileStatus s : listOrFail(layout.savepointRoot(), "list savepoint jobs")) {
            if (s.directory() && Names.isSafeName(s.name())) {
                jobs.add(s.name());
            }
        }
        Collections.sort(jobs);
        return jobs;
    }

    private List<String> listNamesOrFail(String dir, String what) {
        try {
            return fs.listNames(dir);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot " + what + ": " + e.getMessage() + " (" + dir + ")", e);
        }
    }

    private Optional<FileStatus> statOrFail(String path, String what) {
        try {
            return fs.stat(path);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot " + what + ": " + e.getMessage() + " (" + path + ")", e);
        }
    }

    List<FileStatus> listOrFail(String dir, String what) {
        try {
            return fs.list(dir);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot " + what + ": " + e.getMessage() + " (" + dir + ")", e);
        }
    }

    /** Reads and verifies one savepoint's metadata. */
    public SavepointHandle readMetadata(String jobId, String savepointId) {
        String dir = layout.savepointDir(jobId, savepointId);
        String file = fs.child(dir, MetadataCodec.FILE_NAME);
        byte[] bytes;
        try {
            Optional<FileStatus> status = fs.stat(file);
            if (status.isEmpty()) {
                throw new SavepointNotFoundException("Cannot read savepoint " + savepointId + " of job " + jobId
                        + ": no " + MetadataCodec.FILE_NAME + ", so it is not a complete savepoint (" + dir + ")");
            }
            if (!status.get().regularFile()) {
                throw new SavepointCorruptedException(file, "Savepoint metadata is not a regular file", "a regular file",
                        status.get().type().name().toLowerCase(java.util.Locale.ROOT));
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
        SavepointMeta meta = MetadataCodec.decode(bytes, file);
        if (!meta.jobId().equals(jobId) || !meta.savepointId().equals(savepointId)) {
            throw new SavepointCorruptedException(file, "Savepoint metadata names another savepoint than its directory",
                    jobId + "/" + savepointId, meta.jobId() + "/" + meta.savepointId());
        }
        return new SavepointHandle(dir, meta);
    }

    /** Opens one payload as a stream verified against the manifest. */
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
            requireRegularPayload(path, e);
            requireStillPublished(handle, e);
            throw new SavepointCorruptedException(path, "Payload named in the manifest is missing", "a file", "nothing");
        } catch (IOException e) {
            requireRegularPayload(path, e);
            throw new SavepointStorageException("Cannot open payload of savepoint " + handle.savepointId() + " of job "
                    + handle.jobId() + ": " + e.getMessage() + " (" + path + ")", e);
        }
    }

    /**
     * The file system refused to open a payload: when something other than a regular file (a
     * directory, a link, a FIFO, a device) stands in its place, that is corruption, which recovery
     * may fall back past, not a failure to read. Looked at only after a refused open, so a good
     * read costs no extra call; file systems never open such an entry, so nothing blocks.
     */
    private void requireRegularPayload(String path, IOException refused) {
        Optional<FileStatus> status;
        try {
            status = fs.stat(path);
        } catch (IOException e) {
            refused.addSuppressed(e);
            return;
        }
        if (status.isPresent() && !status.get().regularFile()) {
            throw new SavepointCorruptedException(path, "Payload is not a regular file", "a regular file",
                    status.get().type().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '), refused);
        }
    }

    /**
     * A payload vanished: when the metadata is gone too, the savepoint was deleted while it was
     * being read, which is "not found", not "corrupted".
     */
    private void requireStillPublished(SavepointHandle handle, Exception cause) {
        String metadata = fs.child(handle.location(), MetadataCodec.FILE_NAME);
        try {
            if (fs.stat(metadata).isEmpty()) {
                throw new SavepointNotFoundException("Cannot read savepoint " + handle.savepointId() + " of job "
                        + handle.jobId() + ": it was deleted while being read (" + handle.location() + ")");
            }
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    /** Reads a whole savepoint, every payload verified. */
    public SavepointContent read(String jobId, String savepointId) {
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
                if (status.isEmpty()) {
                    requireStillPublished(handle, new NoSuchFileException(path));
                }
                if (status.isPresent() && !status.get().regularFile()) {
                    throw new SavepointCorruptedException(path, "Payload is not a regular file", "a regular file",
                            status.get().type().name().toLowerCase(java.util.Locale.ROOT));
                }
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

    /**
     * Deletes one savepoint, {@code _metadata.ser} first, then exactly the files its manifest names,
     * by name, then the folder if that left it empty; never a folder recursively, so a new attempt
     * at the same id writing into the folder meanwhile (its files carry its attempt id) keeps its
     * files, and entries Keepsake did not write stay (logged). A folder without metadata loses only
     * the files of attempts that are not in flight, each after its outcome says "collected"
     * (create-if-absent publication), or Keepsake's own files when no attempt is writing it (atomic
     * rename). Nothing is removed under a root Keepsake has not marked as its own.
     *
     * @return what was removed and what was left, with the reason
     * @throws SavepointNotFoundException when there is no such folder, or it holds nothing Keepsake wrote
     */
    public OwnedRemoval.Result delete(String jobId, String savepointId) {
        String dir = layout.savepointDir(jobId, savepointId);
        String what = "delete savepoint " + savepointId + " of job " + jobId;
        if (!RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(), what)) {
            throw new SavepointNotFoundException("Cannot " + what + ": it does not exist (" + dir + ")");
        }
        OwnedRemoval removal = new OwnedRemoval(layout, inFlight);
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        boolean unpublished = false;
        try {
            Optional<FileStatus> status = fs.stat(dir);
            if (status.isEmpty() || !status.get().directory()) {
                throw new SavepointNotFoundException("Cannot " + what + ": it does not exist (" + dir + ")");
            }
            Optional<SavepointHandle> handle = Optional.empty();
            boolean hasMetadata = true;
            try {
                handle = Optional.of(readMetadata(jobId, savepointId));
            } catch (SavepointNotFoundException none) {
                hasMetadata = false;
            } catch (SavepointStorageException unreadable) {
                LOG.warn("Deleting savepoint {} of job {} whose metadata does not verify: {}", savepointId, jobId,
                        unreadable.getMessage());
            }
            if (hasMetadata) {
                handle.ifPresent(h -> dropDecisionOf(h, jobId, savepointId));
                deleteIndexMarkers(jobId, savepointId);
                String metadata = fs.child(dir, MetadataCodec.FILE_NAME);
                if (!fs.delete(metadata, false)) {
                    throw new SavepointNotFoundException("Cannot " + what + ": another process deleted it meanwhile ("
                            + dir + ")");
                }
                result.deleted().add(metadata);
                unpublished = true;
                fs.syncDirectory(dir);
                for (String file : handle.map(h -> OwnedRemoval.files(h.meta())).orElse(List.of())) {
                    removal.deleteFile(fs.child(dir, Names.requireSafeName("manifest file name", file)), result);
                }
            }
            result.addAll(deleteAttempts(dir, jobId, savepointId, what, hasMetadata, removal));
            if (fs.stat(dir).isPresent()) {
                removal.removeFolderIfEmpty(dir, result);
            }
        } catch (NoSuchFileException e) {
            if (unpublished) {
                // this delete removed the metadata; a collection in another process took the rest
                LOG.debug("Deleting savepoint {} of job {}: {} was collected meanwhile", savepointId, jobId, e.getFile());
                return result;
            }
            throw new SavepointNotFoundException("Cannot " + what + ": " + e.getFile() + " vanished while it was being"
                    + " deleted (another process deleted it meanwhile) (" + dir + ")");
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            throw new SavepointStorageException("Cannot " + what + ": the folder was filled again while it was being"
                    + " deleted (an attempt at this id began meanwhile) (" + dir + ")", e);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot " + what + ": " + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + " (" + dir + ")", e);
        }
        if (!result.kept().isEmpty() || !result.failed().isEmpty()) {
            LOG.warn("Deleting savepoint {} of job {} left {} {}", savepointId, jobId, result.kept(), result.failed());
        }
        LOG.info("Deleted savepoint {} of job {} ({})", savepointId, jobId, dir);
        return result;
    }

    /**
     * Before a published savepoint goes: the decision of the attempt that published it, when it is
     * still there (a writer on an object store between its publication and tidying up, or one that
     * died there; a crash between the two halves of a local rename), is removed first, so that no
     * collection can take it for a gone writer's unfinished publication and publish it again.
     */
    private void dropDecisionOf(SavepointHandle handle, String jobId, String savepointId) {
        for (ManifestEntry e : handle.meta().manifest()) {
            Optional<String> attempt = StorageLayout.payloadAttempt(savepointId, e.file());
            if (attempt.isPresent()) {
                String outcome = AttemptOutcome.path(fs, layout.stagingDir(jobId), attempt.get());
                if (AttemptOutcome.readQuietly(fs, outcome).filter(d -> d.kind() == AttemptOutcome.Kind.PUBLISHING)
                        .isPresent()) {
                    try {
                        fs.delete(outcome, false);
                    } catch (IOException ex) {
                        throw new SavepointStorageException("Cannot delete savepoint " + savepointId + " of job " + jobId
                                + ": removing the decision that published it failed: " + ex.getMessage() + " ("
                                + outcome + ")", ex);
                    }
                }
                return;
            }
        }
    }

    /**
     * What is left in a savepoint folder after its published files went (or in one that never had
     * metadata): files of attempts that are not in flight. Without metadata, a folder holding only
     * entries Keepsake did not write is "not found", and one an attempt is writing fails.
     */
    private OwnedRemoval.Result deleteAttempts(String dir, String jobId, String savepointId, String what,
                                               boolean hadMetadata, OwnedRemoval removal) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        boolean renameMode = fs.capabilities().contains(io.keepsake.storage.spi.FsCapability.ATOMIC_DIRECTORY_RENAME);
        List<FileStatus> entries = fs.list(dir);
        if (!hadMetadata) {
            requireCollectable(dir, savepointId, what, entries, renameMode);
        }
        java.util.Set<String> attempts = new java.util.TreeSet<>();
        for (FileStatus s : entries) {
            Optional<String> attempt = s.regularFile() ? StorageLayout.payloadAttempt(savepointId, s.name())
                    : Optional.empty();
            if (attempt.isPresent()) {
                attempts.add(attempt.get());
            } else if (renameMode && !hadMetadata && s.regularFile() && StorageLayout.isStagedFile(s.name())) {
                removal.deleteFile(fs.child(dir, s.name()), result);
            } else {
                result.keep(fs.child(dir, s.name()), "Keepsake did not write it");
            }
        }
        long now = System.currentTimeMillis();
        for (String attempt : attempts) {
            if (removal.attemptAlive(jobId, attempt, now)) {
                result.keep(OwnedRemoval.attemptFilesPath(dir, attempt), "attempt " + attempt + " is writing it");
            } else {
                result.addAll(removal.collectAttempt(jobId, dir, attempt));
            }
        }
        return result;
    }

    /** True when an attempt at {@code savepointId} holds a fresh lease, in this process or another. */
    boolean isLeased(String jobId, String savepointId, long nowMillis) {
        for (FileStatus s : listOrFail(layout.stagingDir(jobId), "list staging of job " + jobId)) {
            if (!s.directory() && s.name().endsWith(StorageLayout.LEASE_SUFFIX) && inFlight.isFresh(s, nowMillis)) {
                String attempt = s.name().substring(0, s.name().length() - StorageLayout.LEASE_SUFFIX.length());
                if (StorageLayout.attemptSavepointId(attempt).filter(savepointId::equals).isPresent()) {
                    return true;
                }
            }
        }
        return false;
    }

    private void requireCollectable(String dir, String savepointId, String what, List<FileStatus> entries,
                                    boolean renameMode) throws IOException {
        String jobId = layout.jobIdOf(dir);
        boolean keepsakeEntry = false;
        for (FileStatus s : entries) {
            if (s.name().equals(MetadataCodec.FILE_NAME)) {
                throw new SavepointStorageException("Cannot " + what + ": it was published while being deleted;"
                        + " nothing was deleted, delete it again (" + dir + ")");
            }
            keepsakeEntry |= s.regularFile() && StorageLayout.isKeepsakeFile(savepointId, s.name());
        }
        if (!keepsakeEntry && !entries.isEmpty()) {
            throw new SavepointNotFoundException("Cannot " + what + ": the folder has no " + MetadataCodec.FILE_NAME
                    + " and holds only entries Keepsake does not write (" + entries.get(0).name() + "); nothing was"
                    + " deleted (" + dir + ")");
        }
        if (renameMode && (inFlight.contains(dir) || isLeased(jobId, savepointId, System.currentTimeMillis()))) {
            throw new SavepointStorageException("Cannot " + what + ": a savepoint with this id is being written (" + dir
                    + ")");
        }
    }

    /**
     * Deletes every savepoint of a job; folders Keepsake did not write, and attempts in flight,
     * stay. Returns how many complete savepoints went.
     */
    public int deleteAll(String jobId) {
        if (!RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(), "delete savepoints of job " + jobId)) {
            return 0;
        }
        int deleted = 0;
        for (SavepointEntry e : scan(jobId)) {
            try {
                delete(jobId, e.savepointId());
                if (e.handle().isPresent()) {
                    deleted++;
                }
            } catch (SavepointNotFoundException notOurs) {
                LOG.warn("Keeping {}: {}", e.location(), notOurs.getMessage());
            }
        }
        return deleted;
    }
}
