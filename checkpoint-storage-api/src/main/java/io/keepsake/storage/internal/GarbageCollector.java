package io.keepsake.storage.internal;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcCandidate.Kind;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.PendingUpload;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;

/**
 * Finds and removes what failed attempts left, and only that (I8, I9): staging attempts, expired
 * leases, outcome files and settled deletion records under {@code <job>/.staging/}, folders an
 * earlier collection set aside there (tombstones), savepoint folders without {@code _metadata.ser}
 * that hold nothing but files Keepsake writes, orphaned index and newest markers, and hidden legacy
 * checkpoint temporary files. Each is a candidate once last modified at or before the cutoff
 * {@code now - olderThan}; tombstones too wait only for that cutoff. Checkpoint and outcome
 * temporary files, orphaned markers and uploads under the namespace must in addition be older than
 * the lease timeout. An attempt whose lease another process renewed within the lease timeout, or
 * that is in flight in this process, is never a candidate, whatever the age asked for. Under a
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
        return planner.plan(olderThan, new ArrayList<>()).stream().map(Garbage::candidate).toList();
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
        List<Garbage> staging = new ArrayList<>();
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
        Set<String> jobs = new TreeSet<>();
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

    private OwnedRemoval.Result removeAll(List<Garbage> planned) {
        OwnedRemoval.Result all = OwnedRemoval.Result.empty();
        for (Garbage g : planned) {
            try {
                all.addAll(remove(g));
            } catch (IOException | RuntimeException e) {
                all.fail(g.candidate().path(), String.valueOf(e.getMessage()));
            }
        }
        return all;
    }

    /** Removes one planned entry the way its kind is removed, checking it again first. */
    private OwnedRemoval.Result remove(Garbage g) throws IOException {
        GcCandidate c = g.candidate();
        return switch (c.kind()) {
            case EXPIRED_LEASE -> removeExpiredLease(c);
            case CHECKPOINT_TEMP, ORPHANED_INDEX_MARKER, OUTCOME_TEMP, SETTLED_OUTCOME -> deleteFile(c);
            case ORPHANED_NEWEST_MARKER -> removeNewestMarker(c);
            case SETTLED_DELETION -> removeDeletionRecord(c);
            case COLLECTION_LEFTOVER -> removeTombstone(c);
            case STALE_UPLOAD -> abortUpload((Garbage.Upload) g);
            case STALE_ATTEMPT_FILES -> removeAttemptFiles((Garbage.AttemptFiles) g);
            case UNFINISHED_PUBLICATION -> settlePublication((Garbage.Publication) g);
            case EMPTY_SAVEPOINT -> removeEmptySavepointFolder(c);
            case STAGING_ATTEMPT, INCOMPLETE_SAVEPOINT -> removeDirectory(c);
        };
    }

    private OwnedRemoval.Result deleteFile(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        removal.deleteFile(c.path(), result);
        return result;
    }

    /** A lease goes only unchanged since it was planned; one renewed meanwhile is kept. */
    private OwnedRemoval.Result removeExpiredLease(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        Optional<FileStatus> now = fs.stat(c.path());
        if (now.isPresent() && now.get().modificationTime() == c.modificationTime()) {
            removal.deleteFile(c.path(), result);
        } else if (now.isPresent()) {
            result.keep(c.path(), "it was renewed meanwhile");
        }
        return result;
    }

    /** The marker may have kept an older one pruned: the sentinel goes with it. */
    private OwnedRemoval.Result removeNewestMarker(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        if (NewestMarkers.remove(fs, c.path())) {
            result.deleted().add(c.path());
        }
        return result;
    }

    private OwnedRemoval.Result removeDeletionRecord(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        if (SavepointDeletion.recordSettled(layout, c.jobId(), GcPlanner.name(c.path()))) {
            removal.deleteFile(c.path(), result);
        } else {
            result.keep(c.path(), SavepointDeletion.UNSETTLED_RECORD);
        }
        return result;
    }

    private OwnedRemoval.Result abortUpload(Garbage.Upload u) throws IOException {
        PendingUpload upload = u.upload();
        fs.abortUpload(upload);
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        result.deleted().add(u.candidate().path());
        return result;
    }

    /**
     * An attempt's files go after its "collected" decision, unless an attempt took it up meanwhile;
     * then its savepoint folder, if that left it empty, without metadata and without a lease.
     */
    private OwnedRemoval.Result removeAttemptFiles(Garbage.AttemptFiles a) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        String folder = a.folder();
        if (removal.attemptAlive(a.jobId(), a.attemptId(), System.currentTimeMillis())) {
            return result.keep(a.candidate().path(), "an attempt took it up meanwhile");
        }
        result.addAll(removal.collectAttempt(a.jobId(), folder, a.attemptId()));
        if (removal.attemptFiles(folder, a.attemptId()).isEmpty()
                && fs.stat(fs.child(folder, MetadataCodec.FILE_NAME)).isEmpty() && fs.list(folder).isEmpty()
                && !savepoints.isLeased(a.jobId(), GcPlanner.name(folder), System.currentTimeMillis())) {
            removal.removeFolderIfEmpty(folder, result);
        }
        return result;
    }

    /** A dead writer's decision to publish is settled, unless it was settled or its lease renewed meanwhile. */
    private OwnedRemoval.Result settlePublication(Garbage.Publication p) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        Optional<AttemptOutcome.Decision> d = AttemptOutcome.read(fs, p.path());
        if (d.isEmpty() || d.get().kind() != AttemptOutcome.Kind.PUBLISHING) {
            return result.keep(p.path(), "it was settled meanwhile");
        }
        if (removal.attemptAlive(p.jobId(), p.attemptId(), System.currentTimeMillis())) {
            return result.keep(p.path(), "its writer renewed its lease meanwhile");
        }
        return removal.settlePublication(p.jobId(), p.attemptId(), d.get().metadata());
    }

    private OwnedRemoval.Result removeEmptySavepointFolder(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        if (savepoints.isLeased(c.jobId(), GcPlanner.name(c.path()), System.currentTimeMillis())) {
            return result.keep(c.path(), "an attempt took it up meanwhile");
        }
        removal.removeFolderIfEmpty(c.path(), result);
        return result;
    }

    /**
     * A staging attempt is set aside first where directories rename atomically (the rename is the
     * decision against its writer's publication), then removed file by file. A savepoint folder
     * without metadata is never renamed (its name can be published again meanwhile): its own files
     * are removed one by one by name, which a later publication under the same id never shares.
     */
    private OwnedRemoval.Result removeDirectory(GcCandidate c) throws IOException {
        OwnedRemoval.Result result = OwnedRemoval.Result.empty();
        boolean savepointFolder = c.kind() == Kind.INCOMPLETE_SAVEPOINT;
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
        Matcher savepointFolder = GcPlanner.SAVEPOINT_TOMBSTONE_NAME.matcher(GcPlanner.name(c.path()));
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
        } catch (FileAlreadyExistsException taken) {
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
