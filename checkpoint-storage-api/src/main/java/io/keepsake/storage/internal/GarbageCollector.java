package io.keepsake.storage.internal;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcReport;
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
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

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
 * <p>Removal does not trust the plan: a staging attempt is first renamed aside to a tombstone where
 * the file system renames directories atomically (so a writer publishing at that moment either
 * wins, or finds its staging gone and fails); a savepoint folder without metadata is never renamed
 * (its name can be published again meanwhile): its listing is checked for {@code _metadata.ser},
 * for entries Keepsake did not write and for a lease, and then only files named by an attempt at
 * that savepoint are removed, by name; an attempt's files where publication is create-if-absent go
 * only after its "collected" decision ({@link OwnedRemoval});
 * and a removal is reported only when the path is really gone. What is a candidate, and what is
 * left because Keepsake did not write it, is decided by {@link GcPlanner}; this class removes.
 * Thread-safe.
 */
public final class GarbageCollector {

    private static final Logger LOG = LoggerFactory.getLogger(GarbageCollector.class);

    private final StorageLayout layout;
    private final StorageFileSystem fs;
    private final SavepointStore savepoints;
    private final InFlightAttempts inFlight;
    private final OwnedRemoval removal;
    private final GcPlanner planner;
    private final boolean renameMode;

    /** A collector over the roots of {@code layout}. */
    public GarbageCollector(StorageLayout layout, SavepointStore savepoints, InFlightAttempts inFlight) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.savepoints = savepoints;
        this.inFlight = inFlight;
        this.removal = new OwnedRemoval(layout, inFlight);
        this.planner = new GcPlanner(layout, savepoints, inFlight, removal);
        this.renameMode = fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME);
    }

    /** What a collection with {@code olderThan} would remove now; removes nothing. */
    public List<GcCandidate> plan(Duration olderThan) {
        inFlight.awaitTidying();
        return planner.plan(olderThan, new ArrayList<>());
    }

    /**
     * Removes what an explicit deletion of every savepoint of a job leaves in its staging folder
     * (stale attempts, expired leases, leftovers; never an attempt in flight), then the staging
     * and job folders when they are empty.
     *
     * @return what was removed and what was left
     */
    public GcReport clearJob(String jobId) {
        inFlight.awaitTidying();
        if (!RootMarker.requireMarkedOrEmpty(fs, layout.savepointRoot(), "delete savepoints of job " + jobId)) {
            return new GcReport(List.of(), List.of(), List.of());
        }
        long now = System.currentTimeMillis();
        List<GcCandidate> staging = new ArrayList<>();
        List<String> foreign = new ArrayList<>();
        planner.planStaging(jobId, now, now, staging, foreign);
        if (!renameMode) {
            planner.planAttemptFiles(jobId, now, now, staging, foreign);
        }
        planner.planOrphanMarkers(jobId, now, now - inFlight.timeoutMillis(), staging);
        OwnedRemoval.Result result = removeAll(staging);
        result.kept().addAll(foreign);
        String jobDir = layout.savepointJobDir(jobId);
        try {
            if (removeIfEmpty(layout.stagingDir(jobId), result) & removeIfEmpty(layout.indexDir(jobId), result)
                    & removeNewestIfBare(jobId, result)) {
                removeIfEmpty(jobDir, result);
            } else {
                result.keep(jobDir, "it still holds the entries kept in it");
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
            if (removeIfEmpty(layout.stagingDir(jobId)) & removeIfEmpty(layout.indexDir(jobId))
                    & removeNewestIfBare(jobId, OwnedRemoval.Result.empty())) {
                removeIfEmpty(layout.savepointJobDir(jobId));
            }
        }
    }

    /**
     * The job's newest folder when it holds no marker: its sentinel (which only says the markers
     * are complete) is dropped and the folder removed if that left it empty; true when it is gone.
     */
    private boolean removeNewestIfBare(String jobId, OwnedRemoval.Result result) {
        String dir = NewestMarkers.dir(layout, jobId);
        try {
            List<String> names = fs.listNames(dir);
            if (names.stream().anyMatch(n -> !n.startsWith(NewestMarkers.SENTINEL_PREFIX))) {
                return false;
            }
            NewestMarkers.dropSentinel(fs, dir);
        } catch (IOException e) {
            return false;
        }
        return removeIfEmpty(dir, result);
    }

    /** As {@link #removeIfEmpty(String)}, recording a folder it removed as deleted and one it left as kept. */
    private boolean removeIfEmpty(String dir, OwnedRemoval.Result result) {
        boolean existed;
        try {
            existed = fs.stat(dir).isPresent();
        } catch (IOException e) {
            existed = false; // not known: neither reported as removed nor as kept
        }
        boolean gone = removeIfEmpty(dir);
        if (existed && gone) {
            result.deleted().add(dir);
        } else if (existed) {
            result.keep(dir, "it still holds the entries kept in it");
        }
        return gone;
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
        inFlight.awaitTidying();
        List<String> foreign = new ArrayList<>();
        OwnedRemoval.Result result = removeAll(planner.plan(olderThan, foreign));
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
            case GcPlanner.EXPIRED_LEASE -> {
                Optional<FileStatus> now = fs.stat(c.path());
                if (now.isPresent() && now.get().modificationTime() == c.modificationTime()) {
                    removal.deleteFile(c.path(), result);
                } else if (now.isPresent()) {
                    result.keep(c.path(), "it was renewed meanwhile");
                }
                return result;
            }
            case GcPlanner.CHECKPOINT_TEMP, GcPlanner.ORPHAN_MARKER, GcPlanner.OUTCOME_TEMP, GcPlanner.SETTLED_OUTCOME -> {
                removal.deleteFile(c.path(), result);
                return result;
            }
            case GcPlanner.ORPHAN_NEWEST_MARKER -> {
                // the marker may have kept an older one pruned: the sentinel goes with it
                if (NewestMarkers.remove(fs, c.path())) {
                    result.deleted().add(c.path());
                }
                return result;
            }
            case GcPlanner.SETTLED_DELETION -> {
                if (SavepointDeletion.recordSettled(layout, c.jobId(), GcPlanner.name(c.path()))) {
                    removal.deleteFile(c.path(), result);
                } else {
                    result.keep(c.path(), SavepointDeletion.UNSETTLED_RECORD);
                }
                return result;
            }
            case GcPlanner.TOMBSTONE -> {
                return removeTombstone(c);
            }
            case GcPlanner.STALE_UPLOAD -> {
                int mark = c.path().lastIndexOf(GcPlanner.UPLOAD_MARK);
                fs.abortUpload(new io.keepsake.storage.spi.PendingUpload(c.path().substring(0, mark),
                        c.path().substring(mark + GcPlanner.UPLOAD_MARK.length(), c.path().length() - 1), c.modificationTime()));
                result.deleted().add(c.path());
                return result;
            }
            case GcPlanner.ATTEMPT_FILES -> {
                int mark = c.path().lastIndexOf(OwnedRemoval.ATTEMPT_FILES_MARK);
                String attempt = c.path().substring(mark + OwnedRemoval.ATTEMPT_FILES_MARK.length(), c.path().length() - ".wire".length());
                String folder = c.path().substring(0, mark);
                if (removal.attemptAlive(c.jobId(), attempt, System.currentTimeMillis())) {
                    return result.keep(c.path(), "an attempt took it up meanwhile");
                }
                result.addAll(removal.collectAttempt(c.jobId(), folder, attempt));
                if (removal.attemptFiles(folder, attempt).isEmpty() && fs.stat(fs.child(folder, MetadataCodec.FILE_NAME))
                        .isEmpty() && fs.list(folder).isEmpty()
                        && !savepoints.isLeased(c.jobId(), GcPlanner.name(folder), System.currentTimeMillis())) {
                    removal.removeFolderIfEmpty(folder, result);
                }
                return result;
            }
            case GcPlanner.UNFINISHED_PUBLICATION -> {
                String attempt = AttemptOutcome.attemptOf(GcPlanner.name(c.path())).orElseThrow();
                Optional<AttemptOutcome.Decision> d = AttemptOutcome.read(fs, c.path());
                if (d.isEmpty() || d.get().kind() != AttemptOutcome.Kind.PUBLISHING) {
                    return result.keep(c.path(), "it was settled meanwhile");
                }
                if (removal.attemptAlive(c.jobId(), attempt, System.currentTimeMillis())) {
                    return result.keep(c.path(), "its writer renewed its lease meanwhile");
                }
                return removal.settlePublication(c.jobId(), attempt, d.get().metadata());
            }
            case GcPlanner.EMPTY_FOLDER -> {
                if (savepoints.isLeased(c.jobId(), GcPlanner.name(c.path()), System.currentTimeMillis())) {
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

    /**
     * A staging attempt is set aside first where directories rename atomically (the rename is the
     * decision against its writer's publication), then removed file by file. A savepoint folder
     * without metadata is never renamed (its name can be published again meanwhile): its own files
     * are removed one by one by name, which a later publication under the same id never shares.
     */
    private OwnedRemoval.Result removeDirectory(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        boolean savepointFolder = c.what().equals(GcPlanner.INCOMPLETE);
        Predicate<String> own = savepointFolder
                ? n -> StorageLayout.isKeepsakeFile(GcPlanner.name(c.path()), n) : StorageLayout::isStagedFile;
        if (savepointFolder || !fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME)) {
            return removeFileByFile(c, own);
        }
        Optional<String> foreign = planner.foreignEntry(c.path(), own);
        if (foreign.isPresent()) {
            return result.keep(c.path(), "it holds " + foreign.get() + ", which Keepsake does not write");
        }
        String tombstone = fs.child(layout.stagingDir(c.jobId()), GcPlanner.name(c.path()) + GcPlanner.TOMBSTONE_MARK
                + RandomNames.hex());
        try {
            fs.rename(c.path(), tombstone);
        } catch (NoSuchFileException gone) {
            return result.keep(c.path(), "it was published, aborted or removed meanwhile");
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
        java.util.regex.Matcher savepointFolder = GcPlanner.SAVEPOINT_TOMBSTONE_NAME.matcher(GcPlanner.name(c.path()));
        if (savepointFolder.matches() && fs.stat(fs.child(c.path(), MetadataCodec.FILE_NAME)).isPresent()) {
            return putBack(c.path(), fs.child(layout.savepointJobDir(c.jobId()), savepointFolder.group(1)));
        }
        Predicate<String> own = savepointFolder.matches()
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
    private OwnedRemoval.Result removeFileByFile(GcCandidate c, Predicate<String> own)
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
                || savepoints.isLeased(c.jobId(), GcPlanner.name(directory), System.currentTimeMillis())) {
            return result.keep(directory, "an attempt took it up meanwhile");
        }
        for (FileStatus s : entries) {
            removal.deleteFile(fs.child(directory, s.name()), result);
        }
        removal.removeFolderIfEmpty(directory, result);
        return result;
    }

}
