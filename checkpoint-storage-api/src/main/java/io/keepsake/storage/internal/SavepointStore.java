package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
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
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageListener;
import io.keepsake.storage.Versions;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
    private final FormatSettings format;

    /** A store over the savepoint root of {@code layout} with the default format settings. */
    public SavepointStore(StorageLayout layout, InFlightAttempts inFlight) {
        this(layout, inFlight, FormatSettings.standard());
    }

    /** A store over the savepoint root of {@code layout} that writes and verifies as {@code format} says. */
    public SavepointStore(StorageLayout layout, InFlightAttempts inFlight, FormatSettings format) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.inFlight = inFlight;
        this.format = format;
    }

    /** Starts a staged savepoint. */
    public SavepointWriter begin(SavepointRequest request) {
        return begin(request, StorageListener.NONE);
    }

    /** Starts a staged savepoint whose commit or abort is reported to {@code listener}. */
    public SavepointWriter begin(SavepointRequest request, StorageListener listener) {
        // the writer checks that the id is not committed yet (SavepointAlreadyExistsException)
        return StagedSavepointWriter.begin(layout, request, inFlight, listener, format);
    }

    /** The complete savepoints of a job, newest first, as a user lists them ({@link #listed}). */
    public List<SavepointHandle> list(String jobId) {
        List<SavepointHandle> handles = new ArrayList<>();
        for (SavepointEntry e : listed(jobId, false)) {
            if (e.handle().isPresent()) {
                handles.add(e.handle().get());
            } else if (!e.incomplete()) {
                LOG.warn("Skipping savepoint {} of job {}: {}", e.savepointId(), jobId,
                        e.problem().map(Throwable::getMessage).orElse("unknown problem"));
            }
        }
        return handles;
    }

    /**
     * {@link #scan(String, boolean)} for a user's listing, held against the job's newest markers
     * too: a folder added without a commit (a copy) has none, and the listing removes the sentinel
     * the marker lookup would otherwise trust ({@link NewestMarkers#requireCovered}). Collections
     * and deletes scan without it.
     */
    public List<SavepointEntry> listed(String jobId, boolean ownership) {
        List<SavepointEntry> entries = scan(jobId, ownership);
        NewestMarkers.requireCovered(layout, inFlight, jobId, entries);
        return entries;
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
     * The savepoint folders of a job with what their index markers claim (checkpoint ids and, for
     * markers that carry it, the completion time), from one names-only listing of the job folder
     * and one of its index; no metadata is read, and no entry is looked at one by one except those
     * without a marker (to tell a folder from anything else, and to
     * give its time). A folder with no marker, or with more than one (a marker left by an aborted
     * attempt at the same id), claims nothing. A claimed name is not checked to be a folder here:
     * reading its metadata, which a claim always leads to before it is trusted, tells.
     */
    public List<SavepointHint> hints(String jobId) {
        String jobDir = layout.savepointJobDir(jobId);
        Map<String, List<StorageLayout.Marker>> markers = new HashMap<>();
        for (String name : listNamesOrFail(layout.indexDir(jobId), "list the savepoint index of job " + jobId)) {
            StorageLayout.parseMarker(name).ifPresent(m ->
                    markers.computeIfAbsent(m.savepointId(), k -> new ArrayList<>(1)).add(m));
        }
        List<SavepointHint> hints = new ArrayList<>();
        for (String name : listNamesOrFail(jobDir, "list savepoints of job " + jobId)) {
            if (!Names.isSafeName(name)) {
                continue;
            }
            List<StorageLayout.Marker> marked = markers.getOrDefault(name, List.of());
            if (marked.size() == 1) {
                hints.add(new SavepointHint(name, SavepointHint.TIME_NOT_READ, marked.get(0).claims(),
                        marked.get(0).completed()));
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

    /** The job's newest markers when its newest folder can be trusted ({@link NewestMarkers}); empty otherwise. */
    public Optional<NewestMarkers.Trusted> newestMarkers(String jobId) {
        String dir = NewestMarkers.dir(layout, jobId);
        try {
            return NewestMarkers.trusted(fs, dir);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot list the newest markers of job " + jobId + ": " + e.getMessage()
                    + " (" + dir + ")", e);
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
        return readVerifiedMetadata(jobId, savepointId).handle();
    }

    /** A savepoint's verified metadata and the exact bytes it was read from. */
    record MetadataRead(SavepointHandle handle, byte[] bytes) {
    }

    /** Reads and verifies one savepoint's metadata, keeping the bytes it read. */
    MetadataRead readVerifiedMetadata(String jobId, String savepointId) {
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
                        status.get().type().name().toLowerCase(Locale.ROOT));
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
        return new MetadataRead(new SavepointHandle(dir, meta), bytes);
    }

    /** Opens one payload as a stream verified against the manifest. */
    public InputStream openPayload(SavepointHandle handle, ManifestEntry entry) {
        requireReadableFormat(handle);
        String path = fs.child(handle.location(), Names.requireSafeName("manifest file name", entry.file()));
        if (!handle.meta().manifest().contains(entry)) {
            throw new InvalidStorageArgumentException("Cannot open payload: it is not in the manifest of savepoint "
                    + handle.savepointId() + " of job " + handle.jobId() + " (" + entry.file() + ")");
        }
        int version = handle.meta().formatVersion();
        if (version >= MetadataCodec.FIRST_CHUNKED_VERSION && entry.chunks() == null) {
            throw new SavepointCorruptedException(fs.child(handle.location(), MetadataCodec.FILE_NAME), "The manifest"
                    + " of savepoint " + handle.savepointId() + " of job " + handle.jobId() + " is in format version "
                    + version + " but has no chunk digests for " + entry.file(), "chunk digests", "none");
        }
        try {
            if (version >= MetadataCodec.FIRST_CHUNKED_VERSION) {
                String what = entry.file() + " of savepoint " + handle.savepointId() + " of job " + handle.jobId();
                ReadableByteChannel channel = fs.openChannel(path);
                return channel != null ? format.verification().open(channel, path, what, entry)
                        : format.verification().open(fs.openWhole(path, entry.length(), entry.chunks().chunkSize()), path,
                                what, entry);
            }
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
                    status.get().type().name().toLowerCase(Locale.ROOT).replace('_', ' '), refused);
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
                            status.get().type().name().toLowerCase(Locale.ROOT));
                }
                if (status.isPresent() && status.get().length() != entry.length()) {
                    long offset = mismatchOffset(entry, status.get().length());
                    throw new SavepointCorruptedException(path, offset, "Payload length does not match the manifest"
                            + " of savepoint " + savepointId + " of job " + jobId + "; it stops matching at byte offset "
                            + offset, entry.length() + " bytes", status.get().length() + " bytes", null);
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

    /**
     * Where a payload of {@code actual} bytes stops matching its entry: the manifest's length when
     * the file is longer; when it is shorter, where it ends, or with chunk digests the start of the
     * chunk it ends in (as the chunked stream reports it).
     */
    private static long mismatchOffset(ManifestEntry entry, long actual) {
        if (actual >= entry.length()) {
            return entry.length();
        }
        return entry.chunks() == null ? actual : entry.chunks().offset((int) (actual / entry.chunks().chunkSize()));
    }

    private static void requireReadableFormat(SavepointHandle handle) {
        int version = handle.meta().formatVersion();
        if (version > Versions.CURRENT_FORMAT_VERSION) {
            throw new SavepointIncompatibleException("Cannot read savepoint " + handle.savepointId() + " of job "
                    + handle.jobId() + ": it was written in format version " + version + " by a newer Keepsake ("
                    + handle.meta().producerVersion() + "); this build reads versions " + Versions.OLDEST_FORMAT_VERSION
                    + " to " + Versions.CURRENT_FORMAT_VERSION + "; read it with a build that supports version "
                    + version + " (" + handle.location() + ")", version, Versions.OLDEST_FORMAT_VERSION,
                    Versions.CURRENT_FORMAT_VERSION);
        }
    }

    /**
     * Deletes one savepoint, {@code _metadata.ser} first, then the files its manifest names; see
     * {@link SavepointDeletion#delete}.
     *
     * @return what was removed and what was left, with the reason
     * @throws SavepointNotFoundException when there is no such folder, or it holds nothing Keepsake wrote
     */
    public OwnedRemoval.Result delete(String jobId, String savepointId) {
        return new SavepointDeletion(layout, inFlight, this).delete(jobId, savepointId);
    }

    /**
     * Deletes every savepoint of a job; folders Keepsake did not write, and attempts in flight,
     * stay. Returns how many complete savepoints went.
     */
    public int deleteAll(String jobId) {
        return new SavepointDeletion(layout, inFlight, this).deleteAll(jobId);
    }

    /**
     * Deletes every savepoint of a job as {@link #deleteAll} does; returns what was removed and
     * what was left, with the reason (a folder that is not Keepsake's included).
     */
    public OwnedRemoval.Result deleteAllReporting(String jobId) {
        return new SavepointDeletion(layout, inFlight, this).deleteAllReporting(jobId);
    }

    /** True when an attempt at {@code savepointId} holds a fresh lease, in this process or another. */
    boolean isLeased(String jobId, String savepointId, long nowMillis) {
        for (FileStatus s : listOrFail(layout.stagingDir(jobId), "list staging of job " + jobId)) {
            if (!s.directory() && AttemptId.ofLeaseName(s.name()).filter(a -> a.savepointId().equals(savepointId))
                    .isPresent() && inFlight.isFresh(s, nowMillis)) {
                return true;
            }
        }
        return false;
    }

}
