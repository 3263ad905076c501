package io.keepsake.storage.internal;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds and removes what failed attempts left, and only that (I8, I9): staging attempts and
 * expired leases under {@code <job>/.staging/}, savepoint folders without {@code _metadata.ser}
 * that hold nothing but files Keepsake writes, and hidden legacy checkpoint temporary files, last
 * modified at or before {@code now - olderThan}. An attempt whose lease another process renewed
 * within the lease timeout, or that is in flight in this process, is never a candidate, whatever
 * the age asked for; checkpoint temporary files younger than the lease timeout neither. Under a
 * savepoint root that has entries but no Keepsake marker nothing is removed. On a file system whose
 * files appear whole ({@link FsCapability#ATOMIC_FILE_CREATE}, object stores), uploads a dead
 * writer began and never finished are aborted under the same rules. A collection then
 * removes the staging and job folders it left empty.
 *
 * <p>Removal does not trust the plan: a directory is first renamed aside to a tombstone where the
 * file system renames atomically (so a writer publishing at that moment either wins, or finds its
 * staging gone and fails), a savepoint folder is checked for {@code _metadata.ser} and a lease just
 * before it is set aside and put back if its tombstone turns out to hold {@code _metadata.ser}
 * (tombstones are left alone by other collections for one lease timeout, so the put-back cannot
 * lose a race with them),
 * and a removal is reported only when the path is really gone. Thread-safe.
 */
public final class GarbageCollector {

    private static final Logger LOG = LoggerFactory.getLogger(GarbageCollector.class);

    static final String STAGING_ATTEMPT = "staging attempt";
    static final String EXPIRED_LEASE = "expired lease";
    static final String INCOMPLETE = "incomplete savepoint directory";
    static final String TOMBSTONE = "collection leftover";
    static final String CHECKPOINT_TEMP = "checkpoint temporary file";
    static final String ORPHAN_MARKER = "orphaned index marker";
    static final String STALE_UPLOAD = "stale multipart upload";

    private static final String UPLOAD_MARK = " (upload ";

    private static final String TOMBSTONE_MARK = ".gc-";
    private static final String SAVEPOINT_TOMBSTONE_MARK = ".gcsp-";
    private static final java.util.regex.Pattern SAVEPOINT_TOMBSTONE_NAME =
            java.util.regex.Pattern.compile("(.+)\\.gcsp-[0-9a-f]{16}");
    private static final java.util.regex.Pattern TOMBSTONE_NAME = java.util.regex.Pattern.compile(".+\\.gc-[0-9a-f]{16}");

    private final StorageLayout layout;
    private final StorageFileSystem fs;
    private final SavepointStore savepoints;
    private final InFlightAttempts inFlight;

    /** A collector over the roots of {@code layout}. */
    public GarbageCollector(StorageLayout layout, SavepointStore savepoints, InFlightAttempts inFlight) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.savepoints = savepoints;
        this.inFlight = inFlight;
    }

    /** What a collection with {@code olderThan} would remove now; removes nothing. */
    public List<GcCandidate> plan(Duration olderThan) {
        long now = System.currentTimeMillis();
        long cutoff = cutoff(olderThan, now);
        List<GcCandidate> candidates = new ArrayList<>();
        boolean marked = RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(),
                "collect garbage under the savepoint root");
        if (marked) {
            for (String jobId : savepoints.jobs()) {
                planStaging(jobId, now, cutoff, candidates);
                planIncomplete(jobId, now, cutoff, candidates);
                planOrphanMarkers(jobId, now, Math.min(cutoff, now - inFlight.timeoutMillis()), candidates);
            }
        }
        planCheckpointTemps(Math.min(cutoff, now - inFlight.timeoutMillis()), candidates);
        if (fs.capabilities().contains(FsCapability.ATOMIC_FILE_CREATE)) {
            planUploads(marked, now, cutoff, candidates);
        }
        return candidates;
    }

    /**
     * Uploads begun and never completed or aborted (a writer died mid-upload), begun at or before
     * the cutoff: under the savepoint root (when it is Keepsake's) those of a savepoint folder that
     * no attempt in flight here and no fresh lease protects; under the namespace those older than
     * the lease timeout too, as for checkpoint temporary files.
     */
    private void planUploads(boolean savepointRootMarked, long now, long cutoff, List<GcCandidate> out) {
        String spRoot = layout.savepointRoot() + "/";
        Map<String, io.keepsake.storage.spi.PendingUpload> uploads = new java.util.LinkedHashMap<>();
        try {
            for (String root : List.of(layout.namespace(), layout.savepointRoot())) {
                for (io.keepsake.storage.spi.PendingUpload u : fs.pendingUploads(root)) {
                    uploads.putIfAbsent(u.uploadId() + " " + u.path(), u);
                }
            }
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot collect garbage: listing pending uploads failed: "
                    + e.getMessage() + " (" + layout.namespace() + ", " + layout.savepointRoot() + ")", e);
        }
        for (io.keepsake.storage.spi.PendingUpload u : uploads.values()) {
            if (u.initiated() > cutoff) {
                continue;
            }
            String[] parts;
            String jobId;
            if (u.path().startsWith(spRoot)) {
                parts = u.path().substring(spRoot.length()).split("/");
                if (!savepointRootMarked || parts.length != 3) {
                    continue;
                }
                jobId = parts[0];
                String dir = fs.child(layout.savepointJobDir(jobId), parts[1]);
                if (inFlight.contains(dir) || savepoints.isLeased(jobId, parts[1], now)) {
                    continue;
                }
            } else {
                parts = u.path().substring(layout.namespace().length() + 1).split("/");
                if (u.initiated() > now - inFlight.timeoutMillis()) {
                    continue;
                }
                jobId = parts[0];
            }
            out.add(new GcCandidate(jobId, u.path() + UPLOAD_MARK + u.uploadId() + ")", STALE_UPLOAD, u.initiated()));
        }
    }

    private void planStaging(String jobId, long now, long cutoff, List<GcCandidate> out) {
        String staging = layout.stagingDir(jobId);
        List<FileStatus> entries = savepoints.listOrFail(staging, "list staging of job " + jobId);
        Map<String, FileStatus> leases = new HashMap<>();
        for (FileStatus s : entries) {
            if (s.regularFile() && s.name().endsWith(StorageLayout.LEASE_SUFFIX)) {
                leases.put(s.name().substring(0, s.name().length() - StorageLayout.LEASE_SUFFIX.length()), s);
            }
        }
        for (FileStatus s : entries) {
            String path = fs.child(staging, s.name());
            if (s.modificationTime() > cutoff) {
                continue;
            }
            if (s.directory() && (TOMBSTONE_NAME.matcher(s.name()).matches()
                    || SAVEPOINT_TOMBSTONE_NAME.matcher(s.name()).matches())) {
                out.add(new GcCandidate(jobId, path, TOMBSTONE, s.modificationTime()));
            } else if (s.directory() && StorageLayout.attemptSavepointId(s.name()).isPresent()) {
                FileStatus lease = leases.get(s.name());
                if (!inFlight.contains(path) && (lease == null || !inFlight.isFresh(lease, now))) {
                    out.add(new GcCandidate(jobId, path, STAGING_ATTEMPT, s.modificationTime()));
                }
            } else if (s.regularFile() && s.name().endsWith(StorageLayout.LEASE_SUFFIX) && !inFlight.isFresh(s, now)) {
                out.add(new GcCandidate(jobId, path, EXPIRED_LEASE, s.modificationTime()));
            }
        }
    }

    /**
     * Index markers whose savepoint folder does not exist and that no fresh lease names: what a
     * crash between writing a marker and publishing (or aborting) leaves.
     */
    private void planOrphanMarkers(String jobId, long now, long cutoff, List<GcCandidate> out) {
        String indexDir = layout.indexDir(jobId);
        List<FileStatus> markers = savepoints.listOrFail(indexDir, "list the savepoint index of job " + jobId);
        if (markers.isEmpty()) {
            return;
        }
        java.util.Set<String> folders = new java.util.HashSet<>();
        for (FileStatus s : savepoints.listOrFail(layout.savepointJobDir(jobId), "list savepoints of job " + jobId)) {
            folders.add(s.name());
        }
        for (FileStatus s : markers) {
            Optional<StorageLayout.Marker> marker = StorageLayout.parseMarker(s.name());
            if (s.regularFile() && marker.isPresent() && s.modificationTime() <= cutoff
                    && !folders.contains(marker.get().savepointId())
                    && !savepoints.isLeased(jobId, marker.get().savepointId(), now)) {
                out.add(new GcCandidate(jobId, fs.child(indexDir, s.name()), ORPHAN_MARKER, s.modificationTime()));
            }
        }
    }

    private void planIncomplete(String jobId, long now, long cutoff, List<GcCandidate> out) {
        for (SavepointEntry e : savepoints.scan(jobId)) {
            if (!e.incomplete() || e.modificationTime() > cutoff || inFlight.contains(e.location())
                    || savepoints.isLeased(jobId, e.savepointId(), now)) {
                continue;
            }
            Optional<String> foreign = foreignEntry(e.location());
            if (foreign.isPresent()) {
                LOG.info("Garbage collection leaves {} alone: it holds {}, which Keepsake does not write",
                        e.location(), foreign.get());
                continue;
            }
            out.add(new GcCandidate(jobId, e.location(), INCOMPLETE, e.modificationTime()));
        }
    }

    /** The first entry of a savepoint folder that a Keepsake attempt would not have written, if any. */
    private Optional<String> foreignEntry(String directory) {
        try {
            for (FileStatus s : fs.list(directory)) {
                if (!s.regularFile() || !StorageLayout.isKeepsakeFile(s.name())) {
                    return Optional.of(s.name());
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot collect garbage: listing failed: " + e.getMessage() + " ("
                    + directory + ")", e);
        }
    }

    private void planCheckpointTemps(long cutoff, List<GcCandidate> out) {
        List<FileStatus> jobs;
        try {
            jobs = fs.list(layout.namespace());
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot collect garbage: listing the namespace failed: " + e.getMessage()
                    + " (" + layout.namespace() + ")", e);
        }
        for (FileStatus job : jobs) {
            if (!job.directory() || !Names.isSafeName(job.name())) {
                continue;
            }
            String jobDir = fs.child(layout.namespace(), job.name());
            for (FileStatus f : savepoints.listOrFail(jobDir, "list checkpoints of job " + job.name())) {
                if (f.regularFile() && LegacyCheckpointFiles.isTempName(f.name()) && f.modificationTime() <= cutoff) {
                    out.add(new GcCandidate(job.name(), fs.child(jobDir, f.name()), CHECKPOINT_TEMP,
                            f.modificationTime()));
                }
            }
        }
    }

    /**
     * Removes what an explicit deletion of every savepoint of a job leaves in its staging folder
     * (stale attempts, expired leases, leftovers; never an attempt in flight), then the staging
     * and job folders when they are empty.
     */
    public void clearJob(String jobId) {
        if (!RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(), "delete savepoints of job " + jobId)) {
            return;
        }
        long now = System.currentTimeMillis();
        List<GcCandidate> staging = new ArrayList<>();
        planStaging(jobId, now, now, staging);
        planOrphanMarkers(jobId, now, now - inFlight.timeoutMillis(), staging);
        GcReport report = removeAll(staging);
        String stagingDir = layout.stagingDir(jobId);
        String indexDir = layout.indexDir(jobId);
        String jobDir = layout.savepointJobDir(jobId);
        try {
            if (fs.list(stagingDir).isEmpty()) {
                fs.delete(stagingDir, false);
            }
            if (fs.list(indexDir).isEmpty()) {
                fs.delete(indexDir, false);
            }
            if (fs.list(jobDir).isEmpty()) {
                fs.delete(jobDir, false);
            }
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot delete savepoints of job " + jobId + ": " + e.getMessage()
                    + " (" + jobDir + ")", e);
        }
        if (!report.kept().isEmpty()) {
            LOG.warn("Deleting savepoints of job {} left {}", jobId, report.kept());
        }
    }

    /**
     * Removes the staging and job folders that this collection left empty (never a folder it did
     * not remove something from); a folder that is not empty, or that a writer fills meanwhile, stays.
     */
    private void removeEmptiedFolders(GcReport report) {
        java.util.Set<String> jobs = new java.util.TreeSet<>();
        for (String path : report.deleted()) {
            for (String jobId : savepoints.jobs()) {
                if (path.startsWith(layout.savepointJobDir(jobId) + "/")) {
                    jobs.add(jobId);
                }
            }
        }
        for (String jobId : jobs) {
            if (removeIfEmpty(layout.stagingDir(jobId)) & removeIfEmpty(layout.indexDir(jobId))) {
                removeIfEmpty(layout.savepointJobDir(jobId));
            }
        }
    }

    private boolean removeIfEmpty(String dir) {
        try {
            if (fs.stat(dir).isEmpty()) {
                return true;
            }
            if (!fs.list(dir).isEmpty()) {
                return false;
            }
            fs.delete(dir, false);
            LOG.debug("Garbage collection removed the empty folder {}", dir);
            return true;
        } catch (IOException e) {
            LOG.debug("Garbage collection left the folder {}: {}", dir, e.getMessage());
            return false;
        }
    }

    /** Removes what {@link #plan} finds; a candidate whose removal fails, or that came back to life, is kept. */
    public GcReport collect(Duration olderThan) {
        long start = System.nanoTime();
        GcReport report = removeAll(plan(olderThan));
        removeEmptiedFolders(report);
        if (!report.deleted().isEmpty()) {
            LOG.info("Garbage collection under {} removed {} stale staging attempts, incomplete savepoint directories"
                    + " or temporary files in {} ms", layout.savepointRoot(), report.deleted().size(),
                    Duration.ofNanos(System.nanoTime() - start).toMillis());
        }
        return report;
    }

    private GcReport removeAll(List<GcCandidate> candidates) {
        List<String> deleted = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        for (GcCandidate c : candidates) {
            try {
                Optional<String> why = remove(c);
                if (why.isPresent()) {
                    kept.add(c.path() + ": " + why.get());
                } else if (c.what().equals(STALE_UPLOAD)) {
                    deleted.add(c.path());
                } else if (fs.stat(c.path()).isPresent()) {
                    kept.add(c.path() + ": it is still there after its removal");
                } else {
                    deleted.add(c.path());
                }
            } catch (IOException | RuntimeException e) {
                kept.add(c.path() + ": " + e.getMessage());
            }
        }
        return new GcReport(deleted, kept);
    }

    /** Removes one candidate; empty when done, else why it was left. */
    private Optional<String> remove(GcCandidate c) throws IOException {
        switch (c.what()) {
            case EXPIRED_LEASE, CHECKPOINT_TEMP, ORPHAN_MARKER -> {
                fs.delete(c.path(), false);
                return Optional.empty();
            }
            case TOMBSTONE -> {
                return removeTombstone(c);
            }
            case STALE_UPLOAD -> {
                int mark = c.path().lastIndexOf(UPLOAD_MARK);
                fs.abortUpload(new io.keepsake.storage.spi.PendingUpload(c.path().substring(0, mark),
                        c.path().substring(mark + UPLOAD_MARK.length(), c.path().length() - 1), c.modificationTime()));
                return Optional.empty();
            }
            default -> {
                return removeDirectory(c);
            }
        }
    }

    private Optional<String> removeDirectory(GcCandidate c) throws IOException {
        if (!fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME)) {
            return removeFileByFile(c);
        }
        boolean savepointFolder = c.what().equals(INCOMPLETE);
        if (savepointFolder) {
            if (fs.stat(fs.child(c.path(), MetadataCodec.FILE_NAME)).isPresent()) {
                return Optional.of("it became a complete savepoint meanwhile");
            }
            if (savepoints.isLeased(c.jobId(), name(c.path()), System.currentTimeMillis())) {
                return Optional.of("an attempt took it up meanwhile");
            }
        }
        String tombstone = fs.child(layout.stagingDir(c.jobId()), name(c.path())
                + (savepointFolder ? SAVEPOINT_TOMBSTONE_MARK : TOMBSTONE_MARK)
                + String.format("%016x", ThreadLocalRandom.current().nextLong()));
        fs.mkdirs(layout.stagingDir(c.jobId()));
        try {
            fs.rename(c.path(), tombstone);
        } catch (NoSuchFileException gone) {
            return Optional.of("it was published, aborted or removed meanwhile");
        }
        if (savepointFolder && fs.stat(fs.child(tombstone, MetadataCodec.FILE_NAME)).isPresent()) {
            return putBack(tombstone, c.path());
        }
        fs.delete(tombstone, true);
        return Optional.empty();
    }

    /**
     * A set-aside folder: an attempt's is deleted; a savepoint folder's is deleted only without
     * {@code _metadata.ser}, and put back when it holds one (a collection that set it aside crashed,
     * or lost a race with a writer publishing).
     */
    private Optional<String> removeTombstone(GcCandidate c) throws IOException {
        java.util.regex.Matcher savepointFolder = SAVEPOINT_TOMBSTONE_NAME.matcher(name(c.path()));
        if (savepointFolder.matches() && fs.stat(fs.child(c.path(), MetadataCodec.FILE_NAME)).isPresent()) {
            return putBack(c.path(), fs.child(layout.savepointJobDir(c.jobId()), savepointFolder.group(1)));
        }
        fs.delete(c.path(), true);
        return Optional.empty();
    }

    private Optional<String> putBack(String tombstone, String savepointDir) throws IOException {
        try {
            fs.rename(tombstone, savepointDir);
            LOG.warn("Garbage collection put back {}: it became a complete savepoint while being collected", savepointDir);
            return Optional.of("it became a complete savepoint meanwhile and was put back");
        } catch (NoSuchFileException another) {
            return Optional.of("another collection put it back");
        } catch (java.nio.file.FileAlreadyExistsException taken) {
            return Optional.of("it holds a complete savepoint but " + savepointDir + " is taken again; left at "
                    + tombstone);
        }
    }

    /**
     * Without atomic rename: Keepsake's own files one by one, never {@code _metadata.ser}, then the
     * empty folder. The whole listing is checked for {@code _metadata.ser} before anything is
     * removed, and the lease once more after that listing, so a savepoint published (and its lease
     * released) since the plan was made is left whole.
     */
    private Optional<String> removeFileByFile(GcCandidate c) throws IOException {
        String directory = c.path();
        List<FileStatus> entries = fs.list(directory);
        for (FileStatus s : entries) {
            if (s.name().equals(MetadataCodec.FILE_NAME)) {
                return Optional.of("it became a complete savepoint meanwhile");
            }
        }
        if (inFlight.contains(directory)
                || savepoints.isLeased(c.jobId(), name(directory), System.currentTimeMillis())) {
            return Optional.of("an attempt took it up meanwhile");
        }
        for (FileStatus s : entries) {
            if (s.regularFile() && StorageLayout.isKeepsakeFile(s.name())) {
                fs.delete(fs.child(directory, s.name()), false);
            }
        }
        if (!fs.list(directory).isEmpty()) {
            return Optional.of("it is no longer empty");
        }
        fs.delete(directory, false);
        return Optional.empty();
    }

    private static String name(String path) {
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return p.substring(p.lastIndexOf('/') + 1);
    }

    private static long cutoff(Duration olderThan, long now) {
        if (olderThan == null || olderThan.isNegative()) {
            throw new InvalidStorageArgumentException("Cannot collect garbage: the age must be zero or more ("
                    + olderThan + ")");
        }
        try {
            return Math.subtractExact(now, olderThan.toMillis());
        } catch (ArithmeticException e) {
            return Long.MIN_VALUE;
        }
    }
}
