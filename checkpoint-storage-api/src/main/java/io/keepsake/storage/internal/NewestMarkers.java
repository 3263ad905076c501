package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointHint;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The newest markers of a job: a small folder {@code <job>/.newest/} that lets a lookup find the
 * newest savepoint of each pipeline without listing every savepoint.
 *
 * <p>Each entry is an empty file named like an index marker but carrying the attempt that wrote it,
 * {@code <pipeline>_<checkpoint>[,...]~<completed>@<savepointId>.<16 hex>}, or
 * {@code @<savepointId>.<16 hex>} when the claims would make the name too long (its metadata then
 * tells). A writer creates its marker before publication, in the step that writes the index
 * marker, and removes it on abort. The folder also holds a sentinel {@code complete~<K>}.
 *
 * <p>The invariant (N): while the sentinel is present, every published savepoint without a newest
 * marker has, for each pipeline it holds, at least K markers claiming that pipeline at a strictly
 * higher checkpoint id. So a lookup that lists this folder, and for each pipeline takes the
 * highest claim whose metadata verifies, has the newest state as long as fewer than K markers
 * above it were skipped (absent, unpublished, damaged, or disagreeing with their metadata);
 * otherwise it falls back to the full listing, as it does without the sentinel.
 *
 * <p>What keeps N: a published savepoint always has its marker (written before publication,
 * removed only after unpublication). Pruning removes a marker only when K others claim more in
 * each of its pipelines; it then lists again and drops the sentinel when one of those is gone. Every
 * other removal (abort, delete, collection of an orphan) drops the sentinel afterwards. The
 * sentinel is written only after a full listing marked the K newest savepoints of each pipeline
 * (savepoints of a build without markers included), and dropped again when a marker that listing
 * relied on is gone once it is written. Pruning and establishing run after a commit, off its
 * critical path ({@link NewestMarkerTidying}). Stateless; thread-safe.
 */
public final class NewestMarkers {

    private static final Logger LOG = LoggerFactory.getLogger(NewestMarkers.class);

    /** The folder under a job's savepoint folder holding the newest markers. */
    public static final String DIR = ".newest";

    /** How many markers per pipeline pruning keeps (more when checkpoint ids tie). */
    public static final int KEPT = 3;

    /** The sentinel's name prefix; the name ends with the K it was written for. */
    static final String SENTINEL_PREFIX = "complete~";

    /** The sentinel written by this build. */
    static final String SENTINEL = SENTINEL_PREFIX + KEPT;

    private NewestMarkers() {
    }

    /** The newest folder of a job. */
    static String dir(StorageLayout layout, String jobId) {
        StorageFileSystem fs = layout.fileSystem();
        return fs.child(layout.savepointJobDir(jobId), DIR);
    }

    /**
     * A parsed newest marker.
     *
     * @param name        the file name
     * @param savepointId the savepoint it names
     * @param claims      checkpoint id by pipeline; empty when the name does not carry them
     * @param completed   the completion time it claims, when it carries claims
     */
    public record Marker(String name, String savepointId, Map<Integer, Long> claims, OptionalLong completed) {

        /** True when the name says which checkpoint each pipeline holds. */
        public boolean claimed() {
            return !claims.isEmpty();
        }

        /** What the marker says, as a hint. */
        SavepointHint hint() {
            return new SavepointHint(savepointId, SavepointHint.TIME_NOT_READ, claims, completed);
        }
    }

    /** A savepoint storage whose job folders may hold newest markers. */
    public interface Source {
        /**
         * The job's newest markers when its newest folder can be trusted; empty otherwise.
         *
         * @throws SavepointStorageException when the folder cannot be listed
         */
        Optional<Trusted> newestMarkers(String jobId);
    }

    /** The trusted markers of a job (K from the sentinel), or empty when the folder cannot be trusted. */
    public record Trusted(int kept, List<Marker> markers) {
    }

    /**
     * The marker name of a savepoint written by {@code attempt}: the claims its index marker would
     * carry, then {@code @<attemptId>}; just {@code @<attemptId>} when that is too long or the
     * savepoint has no index marker.
     */
    static String name(SavepointMeta meta, AttemptId attempt) {
        return StorageLayout.markerClaims(meta).map(claims -> claims + "@" + attempt)
                .filter(StorageLayout::fitsMarker).orElse(unclaimedName(attempt));
    }

    /** The marker name that claims nothing, {@code @<attemptId>}: its savepoint's metadata tells. */
    static String unclaimedName(AttemptId attempt) {
        return "@" + attempt;
    }

    /** Parses a marker name; empty for the sentinel and anything else. */
    static Optional<Marker> parse(String name) {
        if (name.startsWith("@")) {
            return savepointOf(name.substring(1)).map(id -> new Marker(name, id, Map.of(), OptionalLong.empty()));
        }
        return StorageLayout.parseMarker(name).flatMap(m -> savepointOf(m.savepointId())
                .map(id -> new Marker(name, id, m.claims(), m.completed())));
    }

    /** The savepoint of the attempt a marker names, when it is a safe name. */
    private static Optional<String> savepointOf(String attemptId) {
        return AttemptId.parse(attemptId).map(AttemptId::savepointId).filter(Names::isSafeName);
    }

    /** The K a sentinel name was written for; empty for other names. */
    static OptionalLong sentinelKept(String name) {
        if (!name.startsWith(SENTINEL_PREFIX)) {
            return OptionalLong.empty();
        }
        try {
            long k = Long.parseLong(name.substring(SENTINEL_PREFIX.length()));
            return k >= 1 && k <= 1000 ? OptionalLong.of(k) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * The job's markers when the folder can be trusted: it holds a sentinel and at least one marker;
     * empty otherwise (missing, empty, no sentinel). One names-only listing.
     */
    static Optional<Trusted> trusted(StorageFileSystem fs, String dir) throws IOException {
        List<Marker> markers = new ArrayList<>();
        long kept = 0;
        for (String name : fs.listNames(dir)) {
            OptionalLong k = sentinelKept(name);
            if (k.isPresent()) {
                kept = Math.max(kept, k.getAsLong());
                continue;
            }
            parse(name).ifPresent(markers::add);
        }
        if (kept == 0 || markers.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Trusted((int) kept, markers));
    }

    /** Creates an empty marker (or sentinel) file; synced where sync publishes. */
    static void create(StorageFileSystem fs, String path, boolean mustCreate) throws IOException {
        try (SyncableOutputStream out = fs.create(path, mustCreate)) {
            StagedFiles.endVolatileFile(fs, out);
        }
    }

    /**
     * Writes the newest marker of a savepoint about to be published by {@code attempt}; returns
     * its path.
     */
    static String write(StorageLayout layout, SavepointMeta meta, AttemptId attempt) throws IOException {
        StorageFileSystem fs = layout.fileSystem();
        String path = fs.child(dir(layout, meta.jobId()), name(meta, attempt));
        try {
            create(fs, path, true);
        } catch (FileAlreadyExistsException e) {
            // an attempt id is written once; a retried create that took effect leaves this
            LOG.debug("Newest marker {} is already there", path);
        }
        // a published savepoint must not lose its marker in a crash: durable before publication
        fs.syncDirectory(dir(layout, meta.jobId()));
        return path;
    }

    /**
     * Removes a marker other than by pruning (abort, delete, collection), then the sentinel: the
     * marker may have been one that kept an older savepoint's marker pruned.
     *
     * @return true when the marker was removed by this call
     */
    static boolean remove(StorageFileSystem fs, String markerPath) throws IOException {
        boolean removed = fs.delete(markerPath, false);
        dropSentinel(fs, markerPath.substring(0, markerPath.lastIndexOf('/')));
        return removed;
    }

    /** Removes every sentinel of a newest folder; the folder is then not trusted until re-established. */
    static void dropSentinel(StorageFileSystem fs, String dir) throws IOException {
        for (String name : fs.listNames(dir)) {
            if (name.startsWith(SENTINEL_PREFIX)) {
                fs.delete(fs.child(dir, name), false);
            }
        }
    }

    /**
     * Checks the invariant against a full listing of the job ({@code entries}, every folder with its
     * verified metadata or what is wrong with it): when the sentinel stands but a published folder
     * has no marker of its own and, on one of its pipelines, fewer than K markers above it, or its
     * metadata could not be read (so its claims are unknown), the sentinel is removed and a tidy
     * queued that marks the folder. Such a folder was added without a commit of this
     * specification's writers: copied in by hand, or restored from a backup. Until then the marker
     * lookup would not see it. Removing the sentinel only makes lookups list every folder, so a
     * listing that raced a commit or a prune and removes it needlessly costs one slower lookup. A
     * failure to look is logged; the listing's answer stands.
     */
    static void requireCovered(StorageLayout layout, InFlightAttempts inFlight, String jobId,
                               List<SavepointEntry> entries) {
        StorageFileSystem fs = layout.fileSystem();
        String dir = dir(layout, jobId);
        try {
            // a folder the lookup does not trust needs no repair: it lists every folder already
            Optional<Trusted> trusted = trusted(fs, dir);
            if (trusted.isEmpty()) {
                return;
            }
            for (SavepointEntry e : entries) {
                Optional<String> why = uncovered(e, trusted.get().markers(), trusted.get().kept());
                if (why.isPresent()) {
                    LOG.info("Savepoint {} of job {} {}: it was added without a Keepsake commit (a copy?); lookups of the"
                            + " newest savepoint list every savepoint of the job until its markers are tidied ({})",
                            e.savepointId(), jobId, why.get(), dir);
                    dropSentinel(fs, dir);
                    NewestMarkerTidying.tidyLater(layout, inFlight, jobId);
                    return;
                }
            }
        } catch (NoSuchFileException e) {
            // no newest folder: lookups list every savepoint already
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot check the newest markers of job {} against its listing ({})", jobId, dir, e);
        }
    }

    /** Why a listed folder is not covered by the markers, or empty when it is (or is no savepoint). */
    private static Optional<String> uncovered(SavepointEntry e, List<Marker> markers, long kept) {
        if (e.incomplete()) {
            return Optional.empty();
        }
        if (e.handle().isEmpty()) {
            boolean named = markers.stream().anyMatch(m -> m.savepointId().equals(e.savepointId()));
            return named ? Optional.empty() : Optional.of("does not read and has no newest marker");
        }
        Map<Integer, Long> claims = new TreeMap<>();
        for (ManifestEntry m : e.handle().get().meta().manifest()) {
            claims.put(m.pipelineId(), m.checkpointId());
        }
        if (claims.isEmpty() || markers.stream().anyMatch(m -> m.savepointId().equals(e.savepointId())
                && (!m.claimed() || m.claims().equals(claims)))) {
            return Optional.empty();
        }
        for (Map.Entry<Integer, Long> c : claims.entrySet()) {
            long above = markers.stream().filter(m -> m.claims().getOrDefault(c.getKey(), Long.MIN_VALUE) > c.getValue())
                    .count();
            if (above < kept) {
                return Optional.of("has no newest marker and is among the " + kept + " newest of pipeline " + c.getKey());
            }
        }
        return Optional.empty();
    }

    /**
     * After a delete removed the metadata of a savepoint: removes the newest markers that name it
     * with the claims and completion time of the metadata deleted (an attempt at the same id in
     * flight writes its own), and those without claims unless an attempt at the id is in flight;
     * then the sentinel when one was removed. What is left is collected as orphaned.
     */
    static List<String> removeFor(StorageLayout layout, String jobId, SavepointMeta deleted, boolean attemptInFlight)
            throws IOException {
        StorageFileSystem fs = layout.fileSystem();
        String dir = dir(layout, jobId);
        Map<Integer, Long> claims = new TreeMap<>();
        deleted.manifest().forEach(e -> claims.put(e.pipelineId(), e.checkpointId()));
        List<String> removed = new ArrayList<>();
        for (String name : fs.listNames(dir)) {
            Optional<Marker> m = parse(name).filter(x -> x.savepointId().equals(deleted.savepointId()));
            if (m.isEmpty()) {
                continue;
            }
            boolean same = m.get().claimed() ? m.get().claims().equals(claims)
                    && m.get().completed().equals(OptionalLong.of(deleted.completedTimestamp())) : !attemptInFlight;
            if (same && fs.delete(fs.child(dir, name), false)) {
                removed.add(fs.child(dir, name));
            }
        }
        if (!removed.isEmpty()) {
            dropSentinel(fs, dir);
        }
        return removed;
    }

    /**
     * Markers whose savepoint is not published, or whose published metadata says other claims or
     * another completion time, and that are older than {@code cutoff}, with no attempt at their id
     * in flight: what a writer killed between its marker and publication leaves.
     */
    static List<FileStatus> orphans(StorageLayout layout, SavepointStore store, String jobId,
                                                            long now, long cutoff) throws IOException {
        StorageFileSystem fs = layout.fileSystem();
        List<FileStatus> out = new ArrayList<>();
        Map<String, Optional<SavepointHandle>> read = new HashMap<>();
        for (FileStatus s : fs.list(dir(layout, jobId))) {
            Optional<Marker> m = parse(s.name());
            if (m.isEmpty() || !s.regularFile() || s.modificationTime() > cutoff) {
                continue;
            }
            String id = m.get().savepointId();
            Optional<SavepointHandle> published;
            try {
                published = read.computeIfAbsent(id, k -> Optional.of(store.readMetadata(jobId, k)));
            } catch (SavepointNotFoundException e) {
                published = Optional.empty();
                read.put(id, published);
            } catch (SavepointStorageException e) {
                continue; // damaged or unreadable: its marker stays, so a lookup reads it
            }
            boolean orphan = published.isEmpty();
            if (published.isPresent() && m.get().claimed()) {
                SavepointHint verified = SavepointHint.of(published.get(), 0);
                orphan = !verified.claims().equals(m.get().claims())
                        || (m.get().completed().isPresent() && !verified.completed().equals(m.get().completed()));
            }
            if (orphan && !store.isLeased(jobId, id, now)) {
                out.add(s);
            }
        }
        return out;
    }

    // ---- tidying after a commit: the names tests and callers outside this package use ----

    /**
     * The name of the thread that tidies the newest folders after commits; a test counting the
     * calls a commit waits for leaves them out by this name.
     */
    public static final String TIDY_THREAD_NAME = NewestMarkerTidying.THREAD_NAME;

    /** Waits until every tidy queued so far, over any file system, has run (for tests). */
    public static void awaitTidied() {
        NewestMarkerTidying.awaitAll();
    }
}
