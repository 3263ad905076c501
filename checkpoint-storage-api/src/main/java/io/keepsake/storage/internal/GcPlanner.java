package io.keepsake.storage.internal;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    // What a candidate is (GcCandidate.what), as reports name it; the collector removes each kind its own way.
    static final String STAGING_ATTEMPT = "staging attempt";
    static final String EXPIRED_LEASE = "expired lease";
    /** Why gc reports an attempt's lease as kept. */
    static final String LEASE_FRESH = "the lease of a savepoint attempt is fresh";
    static final String INCOMPLETE = "incomplete savepoint directory";
    static final String TOMBSTONE = "collection leftover";
    static final String CHECKPOINT_TEMP = "checkpoint temporary file";
    static final String ORPHAN_MARKER = "orphaned index marker";
    /** A newest marker whose savepoint is not published (or says other claims) and no attempt writes. */
    static final String ORPHAN_NEWEST_MARKER = "orphaned newest marker";
    static final String STALE_UPLOAD = "stale multipart upload";
    static final String ATTEMPT_FILES = "stale attempt files";
    static final String UNFINISHED_PUBLICATION = "unfinished publication";
    static final String SETTLED_OUTCOME = "settled attempt outcome";
    static final String OUTCOME_TEMP = "outcome temporary file";
    static final String SETTLED_DELETION = "settled deletion record";
    static final String EMPTY_FOLDER = "empty savepoint directory";
    /** Why gc reports an attempt's files as kept where create-if-absent is not exclusive. */
    static final String UNDECIDABLE = "the store's create-if-absent is not exclusive (s3.conditional-writes=unsupported"
            + " or hdfs.allow-non-atomic-scheme=true), so no outcome file can decide between the attempt's writer and a"
            + " collection, and removing its files could tear a savepoint whose commit returned; gc leaves them:"
            + " delete the savepoint explicitly once no writer of it runs";

    /** Joins a pending upload's path and id in the path of a {@link #STALE_UPLOAD} candidate. */
    static final String UPLOAD_MARK = " (upload ";

    // The names of folders a collection set aside in staging before removing them (tombstones).
    static final String TOMBSTONE_MARK = ".gc-";
    static final String SAVEPOINT_TOMBSTONE_MARK = ".gcsp-";
    static final java.util.regex.Pattern SAVEPOINT_TOMBSTONE_NAME =
            java.util.regex.Pattern.compile("(.+)\\.gcsp-[0-9a-f]{16}");
    static final java.util.regex.Pattern TOMBSTONE_NAME = java.util.regex.Pattern.compile(".+\\.gc-[0-9a-f]{16}");

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
     * Plans the removal of an attempt's files ({@link #UNFINISHED_PUBLICATION} or {@link #ATTEMPT_FILES}),
     * or, where create-if-absent is not exclusive, reports them as kept instead.
     */
    private void planAttempt(GcCandidate candidate, List<GcCandidate> out, List<String> foreign) {
        if (outcomesDecide) {
            out.add(candidate);
            return;
        }
        String kept = candidate.path() + ": " + UNDECIDABLE;
        if (!foreign.contains(kept)) {
            foreign.add(kept);
        }
    }

    /**
     * What a collection with {@code olderThan} would remove now, adding what is left alone on
     * purpose to {@code foreign}: entries Keepsake did not write, and the leases of attempts that
     * are still fresh (one line per attempt, whatever the age asked for).
     */
    List<GcCandidate> plan(Duration olderThan, List<String> foreign) {
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

    void planStaging(String jobId, long now, long cutoff, List<GcCandidate> out, List<String> foreign) {
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
                if (!isLeaseContent(path)) {
                    foreign.add(path + ": Keepsake did not write it");
                } else if (inFlight.containsLease(path) || inFlight.isFresh(s, now)) {
                    foreign.add(path + ": " + LEASE_FRESH + " (renewed within the last " + inFlight.timeoutMillis()
                            + " ms, savepoint.lease-timeout-ms): its attempt is being written, or its writer died"
                            + " less than that ago; gc removes the attempt once the lease expires");
                } else if (s.modificationTime() <= cutoff) {
                    out.add(new GcCandidate(jobId, path, EXPIRED_LEASE, s.modificationTime()));
                }
            } else if (outcomeAttempt.isPresent() && AttemptOutcome.isTemporary(s.name())) {
                if (s.modificationTime() <= settled) {
                    out.add(new GcCandidate(jobId, path, OUTCOME_TEMP, s.modificationTime()));
                }
            } else if (outcomeAttempt.isPresent()) {
                planOutcome(jobId, path, s, outcomeAttempt.get(), leases.get(outcomeAttempt.get()), now, cutoff, out,
                        foreign);
            } else if (s.regularFile() && SavepointDeletion.recordSavepointId(s.name()).isPresent()) {
                if (SavepointDeletion.recordSettled(layout, jobId, s.name())) {
                    if (s.modificationTime() <= cutoff) {
                        out.add(new GcCandidate(jobId, path, SETTLED_DELETION, s.modificationTime()));
                    }
                } else {
                    foreign.add(path + ": " + SavepointDeletion.UNSETTLED_RECORD);
                }
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
     * An attempt's outcome: a writer's decision to publish whose writer is gone is looked at (and
     * tidied once its metadata is in place); a "collected" one goes once none of the attempt's files
     * is left.
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
                    planAttempt(new GcCandidate(jobId, path, UNFINISHED_PUBLICATION, s.modificationTime()), out, foreign);
                }
            }
            case COLLECTED -> {
                String folder = layout.savepointDir(jobId, StorageLayout.attemptSavepointId(attemptId).orElseThrow());
                try {
                    if (removal.attemptFiles(folder, attemptId).isEmpty()) {
                        out.add(new GcCandidate(jobId, path, SETTLED_OUTCOME, s.modificationTime()));
                    } else if (!alive) {
                        planAttempt(new GcCandidate(jobId, OwnedRemoval.attemptFilesPath(folder, attemptId),
                                ATTEMPT_FILES, s.modificationTime()), out, foreign);
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
    void planAttemptFiles(String jobId, long now, long cutoff, List<GcCandidate> out, List<String> foreign) {
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
                        planAttempt(new GcCandidate(jobId, OwnedRemoval.attemptFilesPath(e.location(), a.getKey()),
                                ATTEMPT_FILES, a.getValue()), out, foreign);
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

    /** True unless the attempt has no outcome or a "collected" one: a decision to publish, or an outcome that cannot be read, keeps it. */
    private boolean isPublishing(String jobId, String attemptId) {
        return AttemptOutcome.readQuietly(fs, AttemptOutcome.path(fs, layout.stagingDir(jobId), attemptId))
                .filter(d -> d.kind() != AttemptOutcome.Kind.COLLECTED).isPresent();
    }

    /**
     * Index markers whose savepoint folder does not exist and that no fresh lease names: what a
     * crash between writing a marker and publishing (or aborting) leaves.
     */
    void planOrphanMarkers(String jobId, long now, long cutoff, List<GcCandidate> out) {
        try {
            for (FileStatus s : NewestMarkers.orphans(layout, savepoints, jobId, now, cutoff)) {
                out.add(new GcCandidate(jobId, fs.child(NewestMarkers.dir(layout, jobId), s.name()),
                        ORPHAN_NEWEST_MARKER, s.modificationTime()));
            }
        } catch (IOException e) {
            throw new io.keepsake.storage.SavepointStorageException("Cannot list the newest markers of job " + jobId
                    + ": " + e.getMessage() + " (" + NewestMarkers.dir(layout, jobId) + ")", e);
        }
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
    Optional<String> foreignEntry(String directory, java.util.function.Predicate<String> own) {
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
