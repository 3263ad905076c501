package io.keepsake.storage.internal;

import io.keepsake.storage.GcCandidate.Kind;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.PendingUpload;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The planning half of garbage collection: which entries under the roots are the leftovers of
 * failed attempts, classified by what they are (the candidate kinds below), and which Keepsake did
 * not write and so leaves alone. Ownership is decided from the name, the file type, and where it
 * says something, the content (a lease file must read as one, an outcome file must parse), never
 * from a name pattern alone; an attempt in flight here, or whose lease another process renewed
 * within the timeout, is never a candidate. Reads only; {@link GarbageCollector} removes what is
 * planned, checking each candidate again. Thread-safe.
 */
final class GcPlanner {

    /** Logged under the collector's name: planning is one half of a collection. */
    private static final Logger LOG = LoggerFactory.getLogger(GarbageCollector.class);

    /** Why gc reports an attempt's lease as kept. */
    static final String LEASE_FRESH = "the lease of a savepoint attempt is fresh";
    /** Why gc reports an attempt's files as kept where create-if-absent is not exclusive. */
    static final String UNDECIDABLE = "the store's create-if-absent is not exclusive (s3.conditional-writes=unsupported"
            + " or hdfs.allow-non-atomic-scheme=true), so no outcome file can decide between the attempt's writer and a"
            + " collection, and removing its files could tear a savepoint whose commit returned; gc leaves them:"
            + " delete the savepoint explicitly once no writer of it runs";

    // The names of folders a collection set aside in staging before removing them (tombstones).
    static final String TOMBSTONE_MARK = ".gc-";
    static final String SAVEPOINT_TOMBSTONE_MARK = ".gcsp-";
    static final Pattern SAVEPOINT_TOMBSTONE_NAME = Pattern.compile("(.+)\\.gcsp-[0-9a-f]{16}");
    static final Pattern TOMBSTONE_NAME = Pattern.compile(".+\\.gc-[0-9a-f]{16}");

    private final StorageLayout layout;
    private final StorageFileSystem fs;
    private final SavepointStore savepoints;
    private final InFlightAttempts inFlight;
    private final OwnedRemoval removal;
    private final boolean renameMode;
    /** False where create-if-absent is check-then-act: then no attempt's files are planned for removal. */
    private final boolean outcomesDecide;

    GcPlanner(StorageLayout layout, SavepointStore savepoints, InFlightAttempts inFlight, OwnedRemoval removal) {
        this.layout = layout;
        this.fs = layout.fileSystem();
        this.savepoints = savepoints;
        this.inFlight = inFlight;
        this.removal = removal;
        this.renameMode = fs.capabilities().contains(FsCapability.ATOMIC_DIRECTORY_RENAME);
        this.outcomesDecide = !fs.capabilities().contains(FsCapability.NON_EXCLUSIVE_CREATE);
    }

    /**
     * Plans the removal of an attempt's files ({@link Garbage.Publication} or {@link Garbage.AttemptFiles}),
     * or, where create-if-absent is not exclusive, reports them as kept instead.
     */
    private void planAttempt(Garbage garbage, List<Garbage> out, List<String> foreign) {
        if (outcomesDecide) {
            out.add(garbage);
            return;
        }
        String kept = garbage.candidate().path() + ": " + UNDECIDABLE;
        if (!foreign.contains(kept)) {
            foreign.add(kept);
        }
    }

    /**
     * What a collection with {@code olderThan} would remove now, adding what is left alone on
     * purpose to {@code foreign}: entries Keepsake did not write, and the leases of attempts that
     * are still fresh (one line per attempt, whatever the age asked for).
     */
    List<Garbage> plan(Duration olderThan, List<String> foreign) {
        long now = System.currentTimeMillis();
        long cutoff = cutoff(olderThan, now);
        List<Garbage> candidates = new ArrayList<>();
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
    private void planUploads(boolean savepointRootMarked, long now, long cutoff, List<Garbage> out) {
        String spRoot = layout.savepointRoot() + "/";
        Map<String, PendingUpload> uploads = new LinkedHashMap<>();
        try {
            for (String root : List.of(layout.namespace(), layout.savepointRoot())) {
                for (PendingUpload u : fs.pendingUploads(root)) {
                    uploads.putIfAbsent(u.uploadId() + " " + u.path(), u);
                }
            }
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot collect garbage: listing pending uploads failed: "
                    + e.getMessage() + " (" + layout.namespace() + ", " + layout.savepointRoot() + ")", e);
        }
        for (PendingUpload u : uploads.values()) {
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
            out.add(new Garbage.Upload(jobId, u));
        }
    }

    /**
     * The staging folder of a job: folders set aside by a collection, attempts that neither
     * published nor aborted, expired leases, outcome files and deletion records; everything else
     * there is reported as not Keepsake's.
     */
    void planStaging(String jobId, long now, long cutoff, List<Garbage> out, List<String> foreign) {
        String staging = layout.stagingDir(jobId);
        List<FileStatus> entries = savepoints.listOrFail(staging, "list staging of job " + jobId);
        Map<AttemptId, FileStatus> leases = new HashMap<>();
        for (FileStatus s : entries) {
            if (s.regularFile()) {
                AttemptId.ofLeaseName(s.name()).ifPresent(a -> leases.put(a, s));
            }
        }
        for (FileStatus s : entries) {
            String path = fs.child(staging, s.name());
            if (s.directory()) {
                planStagingFolder(jobId, path, s, AttemptId.parse(s.name()).map(leases::get).orElse(null), now, cutoff, out,
                        foreign);
            } else if (s.regularFile()) {
                planStagingFile(jobId, path, s, leases, now, cutoff, out, foreign);
            } else {
                foreign.add(path + ": Keepsake did not write it");
            }
        }
    }

    /** A folder in staging: a collection's tombstone, or an attempt that no fresh lease and no writer here holds. */
    private void planStagingFolder(String jobId, String path, FileStatus s, FileStatus lease, long now, long cutoff,
                                   List<Garbage> out, List<String> foreign) {
        if (TOMBSTONE_NAME.matcher(s.name()).matches() || SAVEPOINT_TOMBSTONE_NAME.matcher(s.name()).matches()) {
            if (s.modificationTime() <= cutoff) {
                out.add(new Garbage.Entry(jobId, path, Kind.COLLECTION_LEFTOVER, s.modificationTime()));
            }
        } else if (AttemptId.parse(s.name()).isPresent()) {
            if (s.modificationTime() <= cutoff && !inFlight.contains(path)
                    && (lease == null || !inFlight.isFresh(lease, now))) {
                out.add(new Garbage.Entry(jobId, path, Kind.STAGING_ATTEMPT, s.modificationTime()));
            }
        } else {
            foreign.add(path + ": Keepsake did not write it");
        }
    }

    /** A regular file in staging: a lease, an outcome or its temporary file, or a deletion record. */
    private void planStagingFile(String jobId, String path, FileStatus s, Map<AttemptId, FileStatus> leases, long now,
                                 long cutoff, List<Garbage> out, List<String> foreign) {
        Optional<AttemptId> outcomeAttempt = AttemptId.ofOutcomeName(s.name());
        if (AttemptId.ofLeaseName(s.name()).isPresent()) {
            planLease(jobId, path, s, now, cutoff, out, foreign);
        } else if (outcomeAttempt.isPresent() && AttemptId.isTemporaryOutcomeName(s.name())) {
            if (s.modificationTime() <= Math.min(cutoff, now - inFlight.timeoutMillis())) {
                out.add(new Garbage.Entry(jobId, path, Kind.OUTCOME_TEMP, s.modificationTime()));
            }
        } else if (outcomeAttempt.isPresent()) {
            planOutcome(jobId, path, s, outcomeAttempt.get(), leases.get(outcomeAttempt.get()), now, cutoff, out,
                    foreign);
        } else if (SavepointDeletion.recordSavepointId(s.name()).isPresent()) {
            if (!SavepointDeletion.recordSettled(layout, jobId, s.name())) {
                foreign.add(path + ": " + SavepointDeletion.UNSETTLED_RECORD);
            } else if (s.modificationTime() <= cutoff) {
                out.add(new Garbage.Entry(jobId, path, Kind.SETTLED_DELETION, s.modificationTime()));
            }
        } else {
            foreign.add(path + ": Keepsake did not write it");
        }
    }

    /** A lease file: removed once expired and older than the age; reported while fresh or when not a lease. */
    private void planLease(String jobId, String path, FileStatus s, long now, long cutoff, List<Garbage> out,
                           List<String> foreign) {
        if (!isLeaseContent(path)) {
            foreign.add(path + ": Keepsake did not write it");
        } else if (inFlight.containsLease(path) || inFlight.isFresh(s, now)) {
            foreign.add(path + ": " + LEASE_FRESH + " (renewed within the last " + inFlight.timeoutMillis()
                    + " ms, savepoint.lease-timeout-ms): its attempt is being written, or its writer died"
                    + " less than that ago; gc removes the attempt once the lease expires");
        } else if (s.modificationTime() <= cutoff) {
            out.add(new Garbage.Entry(jobId, path, Kind.EXPIRED_LEASE, s.modificationTime()));
        }
    }


    /**
     * True when the file reads as a lease Keepsake writes: it begins as every lease does, or holds
     * only the start of that (a writer killed while writing its lease leaves it empty or cut).
     */
    private boolean isLeaseContent(String path) {
        try (InputStream in = fs.open(path)) {
            byte[] head = in.readNBytes(InFlightAttempts.LEASE_PREFIX.length);
            return Arrays.equals(head, 0, head.length, InFlightAttempts.LEASE_PREFIX, 0, head.length);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * An attempt's outcome: a writer's decision to publish whose writer is gone is looked at (and
     * tidied once its metadata is in place); a "collected" one goes once none of the attempt's files
     * is left.
     */
    private void planOutcome(String jobId, String path, FileStatus s, AttemptId attemptId, FileStatus lease, long now,
                             long cutoff, List<Garbage> out, List<String> foreign) {
        Optional<AttemptOutcome.Decision> d = AttemptOutcome.readQuietly(fs, path);
        if (d.isEmpty()) {
            return;
        }
        boolean alive = inFlight.containsLease(layout.leasePath(jobId, attemptId))
                || (lease != null && inFlight.isFresh(lease, now));
        switch (d.get().kind()) {
            case PUBLISHING -> {
                if (!alive && s.modificationTime() <= cutoff) {
                    planAttempt(new Garbage.Publication(jobId, path, attemptId, s.modificationTime()), out, foreign);
                }
            }
            case COLLECTED -> {
                String folder = layout.savepointDir(jobId, attemptId.savepointId());
                try {
                    if (removal.attemptFiles(folder, attemptId).isEmpty()) {
                        out.add(new Garbage.Entry(jobId, path, Kind.SETTLED_OUTCOME, s.modificationTime()));
                    } else if (!alive) {
                        planAttempt(new Garbage.AttemptFiles(jobId, folder, attemptId, s.modificationTime()), out,
                                foreign);
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
    void planAttemptFiles(String jobId, long now, long cutoff, List<Garbage> out, List<String> foreign) {
        for (SavepointEntry e : savepoints.scan(jobId)) {
            if (e.handle().isEmpty() && !e.incomplete()) {
                continue;
            }
            Set<String> published = new HashSet<>(e.handle()
                    .map(h -> OwnedRemoval.files(h.meta())).orElse(List.of()));
            Map<AttemptId, Long> newestByAttempt = new TreeMap<>();
            List<FileStatus> entries = savepoints.listOrFail(e.location(), "list savepoint folder " + e.location());
            for (FileStatus f : entries) {
                Optional<AttemptId> attempt = f.regularFile()
                        ? AttemptId.ofPayloadName(e.savepointId(), f.name()) : Optional.empty();
                if (published.contains(f.name()) || (f.regularFile() && f.name().equals(MetadataCodec.FILE_NAME))) {
                    continue;
                }
                if (attempt.isPresent()) {
                    newestByAttempt.merge(attempt.get(), f.modificationTime(), Math::max);
                } else {
                    foreign.add(fs.child(e.location(), f.name()) + ": Keepsake did not write it");
                }
            }
            for (Map.Entry<AttemptId, Long> a : newestByAttempt.entrySet()) {
                try {
                    if (a.getValue() <= cutoff && !removal.attemptAlive(jobId, a.getKey(), now)
                            && !isPublishing(jobId, a.getKey())) {
                        planAttempt(new Garbage.AttemptFiles(jobId, e.location(), a.getKey(), a.getValue()), out,
                                foreign);
                    }
                } catch (IOException ex) {
                    throw new SavepointStorageException("Cannot collect garbage: " + ex.getMessage() + " ("
                            + e.location() + ")", ex);
                }
            }
            if (entries.isEmpty() && e.incomplete() && e.modificationTime() <= cutoff && !inFlight.contains(e.location())
                    && !savepoints.isLeased(jobId, e.savepointId(), now)) {
                out.add(new Garbage.Entry(jobId, e.location(), Kind.EMPTY_SAVEPOINT, e.modificationTime()));
            }
        }
    }

    /** True unless the attempt has no outcome or a "collected" one: a decision to publish, or an outcome that cannot be read, keeps it. */
    private boolean isPublishing(String jobId, AttemptId attemptId) {
        return AttemptOutcome.readQuietly(fs, AttemptOutcome.path(fs, layout.stagingDir(jobId), attemptId))
                .filter(d -> d.kind() != AttemptOutcome.Kind.COLLECTED).isPresent();
    }

    /**
     * Index markers whose savepoint folder does not exist and that no fresh lease names: what a
     * crash between writing a marker and publishing (or aborting) leaves.
     */
    void planOrphanMarkers(String jobId, long now, long cutoff, List<Garbage> out) {
        try {
            for (FileStatus s : NewestMarkers.orphans(layout, savepoints, jobId, now, cutoff)) {
                out.add(new Garbage.Entry(jobId, fs.child(NewestMarkers.dir(layout, jobId), s.name()),
                        Kind.ORPHANED_NEWEST_MARKER, s.modificationTime()));
            }
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot list the newest markers of job " + jobId
                    + ": " + e.getMessage() + " (" + NewestMarkers.dir(layout, jobId) + ")", e);
        }
        String indexDir = layout.indexDir(jobId);
        List<FileStatus> markers = savepoints.listOrFail(indexDir, "list the savepoint index of job " + jobId);
        if (markers.isEmpty()) {
            return;
        }
        Set<String> folders = new HashSet<>();
        for (FileStatus s : savepoints.listOrFail(layout.savepointJobDir(jobId), "list savepoints of job " + jobId)) {
            folders.add(s.name());
        }
        for (FileStatus s : markers) {
            Optional<StorageLayout.Marker> marker = StorageLayout.parseMarker(s.name());
            if (s.regularFile() && marker.isPresent() && s.modificationTime() <= cutoff
                    && !folders.contains(marker.get().savepointId())
                    && !savepoints.isLeased(jobId, marker.get().savepointId(), now)) {
                out.add(new Garbage.Entry(jobId, fs.child(indexDir, s.name()), Kind.ORPHANED_INDEX_MARKER,
                        s.modificationTime()));
            }
        }
    }

    private void planIncomplete(String jobId, long now, long cutoff, List<Garbage> out, List<String> foreignOut) {
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
            out.add(new Garbage.Entry(jobId, e.location(), Kind.INCOMPLETE_SAVEPOINT, e.modificationTime()));
        }
    }

    /** The first entry of a savepoint folder that a Keepsake attempt would not have written, if any. */
    private Optional<String> foreignEntry(String directory) {
        return foreignEntry(directory, null);
    }

    /** The first entry of a folder that is not a regular file with a name {@code own} accepts (null: a savepoint folder's). */
    Optional<String> foreignEntry(String directory, Predicate<String> own) {
        try {
            return own == null ? removal.foreignEntry(directory) : removal.foreignEntry(directory, own);
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot collect garbage: listing failed: " + e.getMessage() + " ("
                    + directory + ")", e);
        }
    }

    private void planCheckpointTemps(long cutoff, List<Garbage> out) {
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
                    out.add(new Garbage.Entry(job.name(), fs.child(jobDir, f.name()), Kind.CHECKPOINT_TEMP,
                            f.modificationTime()));
                }
            }
        }
    }

    static String name(String path) {
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
