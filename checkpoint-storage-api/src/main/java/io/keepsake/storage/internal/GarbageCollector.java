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
    static final String ATTEMPT_FILES = "stale attempt files";
    static final String UNFINISHED_PUBLICATION = "unfinished publication";
    static final String SETTLED_OUTCOME = "settled attempt outcome";
    static final String OUTCOME_TEMP = "outcome temporary file";
    static final String EMPTY_FOLDER = "empty savepoint directory";

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
    private final OwnedRemoval removal;
    private final boolean renameMode;

    /** A collector over the roots of {@code layout}. */
    public GarbageCollector(StorageLayout layout, SavepointStore savepoints, InFlightAttempts inFlight) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.savepoints = savepoints;
        this.inFlight = inFlight;
        this.removal = new OwnedRemoval(layout, inFlight);
        this.renameMode = fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME);
    }

    /** What a collection with {@code olderThan} would remove now; removes nothing. */
    public List<GcCandidate> plan(Duration olderThan) {
        return plan(olderThan, new ArrayList<>());
    }

    /** Plans, adding what is left alone because Keepsake did not write it to {@code foreign}. */
    private List<GcCandidate> plan(Duration olderThan, List<String> foreign) {
        long now = System.currentTimeMillis();
        long cutoff = cutoff(olderThan, now);
        List<GcCandidate> candidates = new ArrayList<>();
        boolean marked = RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(),
                "collect garbage under the savepoint root");
        if (marked) {
            for (String jobId : savepoints.jobs()) {
                planStaging(jobId, now, cutoff, candidates, foreign);
                if (renameMode) {
                    planIncomplete(jobId, now, cutoff, candidates, foreign);
                } else {
                    planAttemptFiles(jobId, now, cutoff, candidates, foreign);
                }
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

    private void planStaging(String jobId, long now, long cutoff, List<GcCandidate> out, List<String> foreign) {
        String staging = layout.stagingDir(jobId);
        List<FileStatus> entries = savepoints.listOrFail(staging, "list staging of job " + jobId);
        Map<String, FileStatus> leases = new HashMap<>();
        for (FileStatus s : entries) {
            if (s.regularFile() && leaseAttempt(s.name()).isPresent()) {
                leases.put(leaseAttempt(s.name()).get(), s);
            }
        }
        long settled = Math.min(cutoff, now - inFlight.timeoutMillis());
        for (FileStatus s : entries) {
            String path = fs.child(staging, s.name());
            Optional<String> outcomeAttempt = s.regularFile() ? AttemptOutcome.attemptOf(s.name()) : Optional.empty();
            if (s.directory() && (TOMBSTONE_NAME.matcher(s.name()).matches()
                    || SAVEPOINT_TOMBSTONE_NAME.matcher(s.name()).matches())) {
                if (s.modificationTime() <= cutoff) {
                    out.add(new GcCandidate(jobId, path, TOMBSTONE, s.modificationTime()));
                }
            } else if (s.directory() && StorageLayout.attemptSavepointId(s.name()).isPresent()) {
                FileStatus lease = leases.get(s.name());
                if (s.modificationTime() <= cutoff && !inFlight.contains(path)
                        && (lease == null || !inFlight.isFresh(lease, now))) {
                    out.add(new GcCandidate(jobId, path, STAGING_ATTEMPT, s.modificationTime()));
                }
            } else if (s.regularFile() && leaseAttempt(s.name()).isPresent()) {
                if (s.modificationTime() <= cutoff && !inFlight.isFresh(s, now)
                        && !inFlight.containsLease(path) && isLeaseContent(path)) {
                    out.add(new GcCandidate(jobId, path, EXPIRED_LEASE, s.modificationTime()));
                } else if (!isLeaseContent(path)) {
                    foreign.add(path + ": Keepsake did not write it");
                }
            } else if (outcomeAttempt.isPresent() && AttemptOutcome.isTemporary(s.name())) {
                if (s.modificationTime() <= settled) {
                    out.add(new GcCandidate(jobId, path, OUTCOME_TEMP, s.modificationTime()));
                }
            } else if (outcomeAttempt.isPresent()) {
                planOutcome(jobId, path, s, outcomeAttempt.get(), leases.get(outcomeAttempt.get()), now, cutoff, out,
                        foreign);
            } else {
                foreign.add(path + ": Keepsake did not write it");
            }
        }
    }

    /** The attempt a lease file is for ({@code <savepointId>.<16 hex>.lease}), or empty. */
    private static Optional<String> leaseAttempt(String name) {
        if (!name.endsWith(StorageLayout.LEASE_SUFFIX)) {
            return Optional.empty();
        }
        String attempt = name.substring(0, name.length() - StorageLayout.LEASE_SUFFIX.length());
        return StorageLayout.attemptSavepointId(attempt).map(id -> attempt);
    }

    /**
     * True when the file reads as a lease Keepsake writes: it begins as every lease does, or holds
     * only the start of that (a writer killed while writing its lease leaves it empty or cut).
     */
    private boolean isLeaseContent(String path) {
        try (java.io.InputStream in = fs.open(path)) {
            byte[] head = in.readNBytes(InFlightAttempts.LEASE_PREFIX.length);
            return java.util.Arrays.equals(head, 0, head.length, InFlightAttempts.LEASE_PREFIX, 0, head.length);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * An attempt's outcome: a writer's decision to publish whose writer is gone is finished on its
     * behalf; a "collected" one goes once none of the attempt's files is left.
     */
    private void planOutcome(String jobId, String path, FileStatus s, String attemptId, FileStatus lease, long now,
                             long cutoff, List<GcCandidate> out, List<String> foreign) {
        Optional<AttemptOutcome.Decision> d = AttemptOutcome.readQuietly(fs, path);
        if (d.isEmpty()) {
            return;
        }
        boolean alive = inFlight.containsLease(layout.leasePath(jobId, attemptId))
                || (lease != null && inFlight.isFresh(lease, now));
        switch (d.get().kind()) {
            case PUBLISHING -> {
                if (!alive && s.modificationTime() <= cutoff) {
                    out.add(new GcCandidate(jobId, path, UNFINISHED_PUBLICATION, s.modificationTime()));
                }
            }
            case COLLECTED, WITHDRAWN -> {
                String folder = layout.savepointDir(jobId, StorageLayout.attemptSavepointId(attemptId).orElseThrow());
                try {
                    if (removal.attemptFiles(folder, attemptId).isEmpty()) {
                        out.add(new GcCandidate(jobId, path, SETTLED_OUTCOME, s.modificationTime()));
                    } else if (!alive) {
                        out.add(new GcCandidate(jobId, OwnedRemoval.attemptFilesPath(folder, attemptId), ATTEMPT_FILES,
                                s.modificationTime()));
                    }
                } catch (IOException e) {
                    throw new SavepointStorageException("Cannot collect garbage: listing failed: " + e.getMessage()
                            + " (" + folder + ")", e);
                }
            }
            default -> foreign.add(path + ": Keepsake did not write it");
        }
    }

    /**
     * Without atomic directory rename: in each savepoint folder, the payload files of attempts that
     * are not in flight, hold no fresh lease, were not published there and are older than the age,
     * grouped by attempt; and folders left empty. Entries Keepsake does not write are reported.
     */
    private void planAttemptFiles(String jobId, long now, long cutoff, List<GcCandidate> out, List<String> foreign) {
        for (SavepointEntry e : savepoints.scan(jobId)) {
            if (e.handle().isEmpty() && !e.incomplete()) {
                continue;
            }
            java.util.Set<String> published = new java.util.HashSet<>(e.handle()
                    .map(h -> OwnedRemoval.files(h.meta())).orElse(List.of()));
            Map<String, Long> newestByAttempt = new java.util.TreeMap<>();
            List<FileStatus> entries = savepoints.listOrFail(e.location(), "list savepoint folder " + e.location());
            for (FileStatus f : entries) {
                Optional<String> attempt = f.regularFile()
                        ? StorageLayout.payloadAttempt(e.savepointId(), f.name()) : Optional.empty();
                if (published.contains(f.name()) || (f.regularFile() && f.name().equals(MetadataCodec.FILE_NAME))) {
                    continue;
                }
                if (attempt.isPresent()) {
                    newestByAttempt.merge(attempt.get(), f.modificationTime(), Math::max);
                } else {
                    foreign.add(fs.child(e.location(), f.name()) + ": Keepsake did not write it");
                }
            }
            for (Map.Entry<String, Long> a : newestByAttempt.entrySet()) {
                try {
                    if (a.getValue() <= cutoff && !removal.attemptAlive(jobId, a.getKey(), now)
                            && !isPublishing(jobId, a.getKey())) {
                        out.add(new GcCandidate(jobId, OwnedRemoval.attemptFilesPath(e.location(), a.getKey()),
                                ATTEMPT_FILES, a.getValue()));
                    }
                } catch (IOException ex) {
                    throw new SavepointStorageException("Cannot collect garbage: " + ex.getMessage() + " ("
                            + e.location() + ")", ex);
                }
            }
            if (entries.isEmpty() && e.incomplete() && e.modificationTime() <= cutoff && !inFlight.contains(e.location())
                    && !savepoints.isLeased(jobId, e.savepointId(), now)) {
                out.add(new GcCandidate(jobId, e.location(), EMPTY_FOLDER, e.modificationTime()));
            }
        }
    }

    private boolean isPublishing(String jobId, String attemptId) {
        return AttemptOutcome.readQuietly(fs, AttemptOutcome.path(fs, layout.stagingDir(jobId), attemptId))
                .filter(d -> d.kind() == AttemptOutcome.Kind.PUBLISHING).isPresent();
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

    private void planIncomplete(String jobId, long now, long cutoff, List<GcCandidate> out, List<String> foreignOut) {
        for (SavepointEntry e : savepoints.scan(jobId)) {
            if (!e.incomplete() || e.modificationTime() > cutoff || inFlight.contains(e.location())
                    || savepoints.isLeased(jobId, e.savepointId(), now)) {
                continue;
            }
            Optional<String> foreign = foreignEntry(e.location());
            if (foreign.isPresent()) {
                LOG.info("Garbage collection leaves {} alone: it holds {}, which Keepsake does not write",
                        e.location(), foreign.get());
                foreignOut.add(e.location() + ": it holds " + foreign.get() + ", which Keepsake does not write");
                continue;
            }
            out.add(new GcCandidate(jobId, e.location(), INCOMPLETE, e.modificationTime()));
        }
    }

    /** The first entry of a savepoint folder that a Keepsake attempt would not have written, if any. */
    private Optional<String> foreignEntry(String directory) {
        return foreignEntry(directory, null);
    }

    /** The first entry of a folder that is not a regular file with a name {@code own} accepts (null: a savepoint folder's). */
    private Optional<String> foreignEntry(String directory, java.util.function.Predicate<String> own) {
        try {
            return own == null ? removal.foreignEntry(directory) : removal.foreignEntry(directory, own);
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
     *
     * @return what was removed and what was left
     */
    public GcReport clearJob(String jobId) {
        if (!RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(), "delete savepoints of job " + jobId)) {
            return new GcReport(List.of(), List.of(), List.of());
        }
        long now = System.currentTimeMillis();
        List<GcCandidate> staging = new ArrayList<>();
        List<String> foreign = new ArrayList<>();
        planStaging(jobId, now, now, staging, foreign);
        if (!renameMode) {
            planAttemptFiles(jobId, now, now, staging, foreign);
        }
        planOrphanMarkers(jobId, now, now - inFlight.timeoutMillis(), staging);
        OwnedRemoval.Result result = removeAll(staging);
        result.kept().addAll(foreign);
        String jobDir = layout.savepointJobDir(jobId);
        try {
            if (removeIfEmpty(layout.stagingDir(jobId)) & removeIfEmpty(layout.indexDir(jobId))) {
                removeIfEmpty(jobDir);
            }
        } catch (RuntimeException e) {
            throw new SavepointStorageException("Cannot delete savepoints of job " + jobId + ": " + e.getMessage()
                    + " (" + jobDir + ")", e);
        }
        if (!result.kept().isEmpty() || !result.failed().isEmpty()) {
            LOG.warn("Deleting savepoints of job {} left {} {}", jobId, result.kept(), result.failed());
        }
        return new GcReport(result.deleted(), result.kept(), result.failed());
    }

    /**
     * Removes the staging and job folders that this collection left empty (never a folder it did
     * not remove something from); a folder that is not empty, or that a writer fills meanwhile, stays.
     */
    private void removeEmptiedFolders(List<String> deleted) {
        java.util.Set<String> jobs = new java.util.TreeSet<>();
        for (String path : deleted) {
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

    /**
     * Removes what {@link #plan} finds; a candidate whose removal fails is reported as failed, one
     * left on purpose (it came back to life, another process settled it, or it holds entries
     * Keepsake did not write) as kept, with the reason.
     */
    public GcReport collect(Duration olderThan) {
        long start = System.nanoTime();
        List<String> foreign = new ArrayList<>();
        OwnedRemoval.Result result = removeAll(plan(olderThan, foreign));
        result.kept().addAll(foreign);
        removeEmptiedFolders(result.deleted());
        if (!result.deleted().isEmpty()) {
            LOG.info("Garbage collection under {} removed {} stale staging entries, incomplete savepoint files or"
                    + " temporary files in {} ms", layout.savepointRoot(), result.deleted().size(),
                    Duration.ofNanos(System.nanoTime() - start).toMillis());
        }
        return new GcReport(result.deleted(), result.kept(), result.failed());
    }

    private OwnedRemoval.Result removeAll(List<GcCandidate> candidates) {
        OwnedRemoval.Result all = OwnedRemoval.Result.empty();
        for (GcCandidate c : candidates) {
            try {
                all.addAll(remove(c));
            } catch (IOException | RuntimeException e) {
                all.fail(c.path(), String.valueOf(e.getMessage()));
            }
        }
        return all;
    }

    /** Removes one candidate. */
    private OwnedRemoval.Result remove(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        switch (c.what()) {
            case EXPIRED_LEASE -> {
                Optional<FileStatus> now = fs.stat(c.path());
                if (now.isPresent() && now.get().modificationTime() == c.modificationTime()) {
                    removal.deleteFile(c.path(), result);
                } else if (now.isPresent()) {
                    result.keep(c.path(), "it was renewed meanwhile");
                }
                return result;
            }
            case CHECKPOINT_TEMP, ORPHAN_MARKER, OUTCOME_TEMP, SETTLED_OUTCOME -> {
                removal.deleteFile(c.path(), result);
                return result;
            }
            case TOMBSTONE -> {
                return removeTombstone(c);
            }
            case STALE_UPLOAD -> {
                int mark = c.path().lastIndexOf(UPLOAD_MARK);
                fs.abortUpload(new io.keepsake.storage.spi.PendingUpload(c.path().substring(0, mark),
                        c.path().substring(mark + UPLOAD_MARK.length(), c.path().length() - 1), c.modificationTime()));
                result.deleted().add(c.path());
                return result;
            }
            case ATTEMPT_FILES -> {
                int mark = c.path().lastIndexOf(OwnedRemoval.ATTEMPT_FILES_MARK);
                String attempt = c.path().substring(mark + OwnedRemoval.ATTEMPT_FILES_MARK.length(), c.path().length() - ".wire".length());
                String folder = c.path().substring(0, mark);
                if (removal.attemptAlive(c.jobId(), attempt, System.currentTimeMillis())) {
                    return result.keep(c.path(), "an attempt took it up meanwhile");
                }
                result.addAll(removal.collectAttempt(c.jobId(), folder, attempt));
                if (removal.attemptFiles(folder, attempt).isEmpty() && fs.stat(fs.child(folder, MetadataCodec.FILE_NAME))
                        .isEmpty() && fs.list(folder).isEmpty()
                        && !savepoints.isLeased(c.jobId(), name(folder), System.currentTimeMillis())) {
                    removal.removeFolderIfEmpty(folder, result);
                }
                return result;
            }
            case UNFINISHED_PUBLICATION -> {
                String attempt = AttemptOutcome.attemptOf(name(c.path())).orElseThrow();
                Optional<AttemptOutcome.Decision> d = AttemptOutcome.read(fs, c.path());
                if (d.isEmpty() || d.get().kind() != AttemptOutcome.Kind.PUBLISHING) {
                    return result.keep(c.path(), "it was settled meanwhile");
                }
                if (removal.attemptAlive(c.jobId(), attempt, System.currentTimeMillis())) {
                    return result.keep(c.path(), "its writer renewed its lease meanwhile");
                }
                return removal.settlePublication(c.jobId(), attempt, d.get().metadata());
            }
            case EMPTY_FOLDER -> {
                if (savepoints.isLeased(c.jobId(), name(c.path()), System.currentTimeMillis())) {
                    return result.keep(c.path(), "an attempt took it up meanwhile");
                }
                removal.removeFolderIfEmpty(c.path(), result);
                return result;
            }
            default -> {
                return removeDirectory(c);
            }
        }
    }

    private OwnedRemoval.Result removeDirectory(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        boolean savepointFolder = c.what().equals(INCOMPLETE);
        java.util.function.Predicate<String> own = savepointFolder
                ? n -> StorageLayout.isKeepsakeFile(name(c.path()), n) : StorageLayout::isStagedFile;
        if (!fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME)) {
            return removeFileByFile(c, own);
        }
        Optional<String> foreign = foreignEntry(c.path(), own);
        if (foreign.isPresent()) {
            return result.keep(c.path(), "it holds " + foreign.get() + ", which Keepsake does not write");
        }
        if (savepointFolder) {
            if (fs.stat(fs.child(c.path(), MetadataCodec.FILE_NAME)).isPresent()) {
                return result.keep(c.path(), "it became a complete savepoint meanwhile");
            }
            if (savepoints.isLeased(c.jobId(), name(c.path()), System.currentTimeMillis())) {
                return result.keep(c.path(), "an attempt took it up meanwhile");
            }
        }
        String tombstone = fs.child(layout.stagingDir(c.jobId()), name(c.path())
                + (savepointFolder ? SAVEPOINT_TOMBSTONE_MARK : TOMBSTONE_MARK)
                + String.format("%016x", ThreadLocalRandom.current().nextLong()));
        fs.mkdirs(layout.stagingDir(c.jobId()));
        try {
            fs.rename(c.path(), tombstone);
        } catch (NoSuchFileException gone) {
            return result.keep(c.path(), "it was published, aborted or removed meanwhile");
        }
        if (savepointFolder && fs.stat(fs.child(tombstone, MetadataCodec.FILE_NAME)).isPresent()) {
            return putBack(tombstone, c.path());
        }
        OwnedRemoval.Result removed = removal.removeOwnedFolder(tombstone, own);
        if (removed.failed().isEmpty() && removed.kept().isEmpty()) {
            result.deleted().add(c.path());
        } else {
            result.addAll(removed);
        }
        return result;
    }

    /**
     * A set-aside folder: an attempt's is removed file by file; a savepoint folder's only without
     * {@code _metadata.ser}, and put back when it holds one (a collection that set it aside crashed,
     * or lost a race with a writer publishing). Entries Keepsake does not write stay, reported.
     */
    private OwnedRemoval.Result removeTombstone(GcCandidate c) throws IOException {
        java.util.regex.Matcher savepointFolder = SAVEPOINT_TOMBSTONE_NAME.matcher(name(c.path()));
        if (savepointFolder.matches() && fs.stat(fs.child(c.path(), MetadataCodec.FILE_NAME)).isPresent()) {
            return putBack(c.path(), fs.child(layout.savepointJobDir(c.jobId()), savepointFolder.group(1)));
        }
        java.util.function.Predicate<String> own = savepointFolder.matches()
                ? n -> StorageLayout.isKeepsakeFile(savepointFolder.group(1), n) : StorageLayout::isStagedFile;
        return removal.removeOwnedFolder(c.path(), own);
    }

    private OwnedRemoval.Result putBack(String tombstone, String savepointDir) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        try {
            fs.rename(tombstone, savepointDir);
            LOG.warn("Garbage collection put back {}: it became a complete savepoint while being collected", savepointDir);
            return result.keep(savepointDir, "it became a complete savepoint meanwhile and was put back");
        } catch (NoSuchFileException another) {
            return result.keep(savepointDir, "another collection put it back");
        } catch (java.nio.file.FileAlreadyExistsException taken) {
            return result.keep(tombstone, "it holds a complete savepoint but " + savepointDir + " is taken again");
        }
    }

    /**
     * Without atomic rename (a staging attempt or an incomplete folder a rename-mode storage left):
     * Keepsake's own files one by one, never {@code _metadata.ser}, then the empty folder. The
     * whole listing is checked for {@code _metadata.ser} and foreign entries before anything is
     * removed, and the lease once more after that listing.
     */
    private OwnedRemoval.Result removeFileByFile(GcCandidate c, java.util.function.Predicate<String> own)
            throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        String directory = c.path();
        List<FileStatus> entries = fs.list(directory);
        for (FileStatus s : entries) {
            if (s.name().equals(MetadataCodec.FILE_NAME)) {
                return result.keep(directory, "it became a complete savepoint meanwhile");
            }
            if (!s.regularFile() || !own.test(s.name())) {
                return result.keep(directory, "it holds " + s.name() + ", which Keepsake does not write");
            }
        }
        if (inFlight.contains(directory)
                || savepoints.isLeased(c.jobId(), name(directory), System.currentTimeMillis())) {
            return result.keep(directory, "an attempt took it up meanwhile");
        }
        for (FileStatus s : entries) {
            removal.deleteFile(fs.child(directory, s.name()), result);
        }
        removal.removeFolderIfEmpty(directory, result);
        return result;
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
