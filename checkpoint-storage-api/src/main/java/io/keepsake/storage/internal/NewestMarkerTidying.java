package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointHint;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.internal.NewestMarkers.Marker;
import io.keepsake.storage.spi.StorageFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.keepsake.storage.internal.NewestMarkers.KEPT;
import static io.keepsake.storage.internal.NewestMarkers.SENTINEL;
import static io.keepsake.storage.internal.NewestMarkers.create;
import static io.keepsake.storage.internal.NewestMarkers.dir;
import static io.keepsake.storage.internal.NewestMarkers.dropSentinel;
import static io.keepsake.storage.internal.NewestMarkers.name;
import static io.keepsake.storage.internal.NewestMarkers.parse;
import static io.keepsake.storage.internal.NewestMarkers.unclaimedName;

/**
 * The tidying of a job's newest folder ({@link NewestMarkers}) after a commit, off its critical
 * path: when the sentinel is missing, establishing it over a full listing; then pruning the
 * markers to the K newest per pipeline. Tidies run on one daemon thread shared by every storage
 * of the process, one queued tidy per job folder at a time, or inline under the schedule
 * explorer's switch; a storage waits for the tidies over its file system before a collection or
 * delete plans, and at close. A failed tidy leaves things for the next one; readers fall back to
 * a full listing meanwhile. Thread-safe.
 */
final class NewestMarkerTidying {

    private static final Logger LOG = LoggerFactory.getLogger(NewestMarkerTidying.class);

    private NewestMarkerTidying() {
    }

    /** The name of the thread that tidies the newest folders after commits. */
    static final String THREAD_NAME = "keepsake-newest-markers";

    private static final ExecutorService TIDIER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, THREAD_NAME);
        t.setDaemon(true);
        return t;
    });
    private static final Set<String> QUEUED = ConcurrentHashMap.newKeySet();
    /** Tidies queued or running, by the file system they use (by identity). */
    private static final Map<StorageFileSystem, Integer> PENDING = new IdentityHashMap<>();

    /**
     * Tidies the job's newest folder on a background thread, one queued tidy per job folder at a
     * time; inline when the test switch {@link PayloadSyncs#INLINE_PROPERTY} is on.
     */
    static void tidyLater(StorageLayout layout, InFlightAttempts inFlight, String jobId) {
        if (Boolean.getBoolean(PayloadSyncs.INLINE_PROPERTY)) {
            // the schedule explorer's switch: every file-system call on the actor's own thread
            tidy(layout, inFlight, jobId);
            return;
        }
        String key = System.identityHashCode(layout.fileSystem()) + ":" + dir(layout, jobId);
        if (!QUEUED.add(key)) {
            return;
        }
        StorageFileSystem fs = layout.fileSystem();
        pending(fs, 1);
        try {
            TIDIER.execute(() -> {
                try {
                    QUEUED.remove(key);
                    tidy(layout, inFlight, jobId);
                } catch (RuntimeException e) {
                    LOG.debug("Tidying the newest markers of job {} failed; the next commit tidies them", jobId, e);
                } finally {
                    pending(fs, -1);
                }
            });
        } catch (RuntimeException e) {
            QUEUED.remove(key);
            pending(fs, -1);
            throw e;
        }
    }

    private static void pending(StorageFileSystem fs, int delta) {
        synchronized (PENDING) {
            int n = PENDING.getOrDefault(fs, 0) + delta;
            if (n == 0) {
                PENDING.remove(fs);
                PENDING.notifyAll();
            } else {
                PENDING.put(fs, n);
            }
        }
    }

    /**
     * Waits, up to {@code timeoutMillis}, until no tidy queued so far over {@code fs} is pending (a
     * storage waits so before a collection or delete plans, and at close).
     *
     * @return true when none is pending
     */
    static boolean awaitTidied(StorageFileSystem fs, long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        boolean interrupted = false;
        try {
            synchronized (PENDING) {
                while (PENDING.containsKey(fs)) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        return false;
                    }
                    try {
                        PENDING.wait(left);
                    } catch (InterruptedException e) {
                        interrupted = true;
                        return false;
                    }
                }
                return true;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits until every tidy queued so far, over any file system, has run (for tests). */
    static void awaitAll() {
        boolean interrupted = false;
        synchronized (PENDING) {
            while (!PENDING.isEmpty()) {
                try {
                    PENDING.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Establishes the sentinel when it is missing, then prunes the markers to the K newest per
     * pipeline (ties kept). A failure leaves things for the next tidy; readers fall back meanwhile.
     */
    static void tidy(StorageLayout layout, InFlightAttempts inFlight, String jobId) {
        StorageFileSystem fs = layout.fileSystem();
        String dir = dir(layout, jobId);
        try {
            List<String> names = fs.listNames(dir);
            if (names.stream().noneMatch(SENTINEL::equals)) {
                if (!establish(layout, inFlight, jobId)) {
                    return;
                }
                names = fs.listNames(dir);
            }
            prune(layout, inFlight, jobId, names);
        } catch (IOException | SavepointStorageException e) {
            LOG.debug("Tidying the newest markers of job {} failed; the next commit tidies them ({})", jobId, dir, e);
        }
    }

    /**
     * Marks the K newest savepoints of each pipeline from a full listing, writes the sentinel,
     * then lists the folder again and drops the sentinel when a marker it relied on is gone.
     *
     * @return true when the sentinel stands
     */
    static boolean establish(StorageLayout layout, InFlightAttempts inFlight, String jobId) throws IOException {
        StorageFileSystem fs = layout.fileSystem();
        String dir = dir(layout, jobId);
        SavepointStore store = new SavepointStore(layout, inFlight);
        Map<String, Map<Integer, Long>> claims = new LinkedHashMap<>();
        Map<String, SavepointHandle> verified = new HashMap<>();
        Set<String> unknown = new LinkedHashSet<>();
        Set<String> absent = new HashSet<>();
        for (SavepointHint h : store.hints(jobId)) {
            if (h.claimed()) {
                claims.put(h.savepointId(), h.claims());
            } else {
                readInto(store, jobId, h.savepointId(), claims, verified, unknown, absent);
            }
        }
        Set<String> toMark = newestPerPipeline(store, jobId, claims, verified, unknown, absent);
        toMark.addAll(unknown);
        return markAndSeal(fs, dir, jobId, toMark, claims, verified);
    }

    /**
     * The savepoints whose markers keep the invariant: the K newest of each pipeline whose metadata
     * verifies (ties kept), reading metadata as it goes; starts over when a read shows other
     * claims than the savepoint's hint.
     */
    private static Set<String> newestPerPipeline(SavepointStore store, String jobId,
                                                 Map<String, Map<Integer, Long>> claims,
                                                 Map<String, SavepointHandle> verified, Set<String> unknown,
                                                 Set<String> absent) {
        Set<String> toMark = new LinkedHashSet<>();
        boolean changed = true;
        while (changed) {
            changed = false;
            toMark.clear();
            Map<Integer, List<String>> byPipeline = new TreeMap<>();
            claims.forEach((id, c) -> c.keySet().forEach(p -> byPipeline.computeIfAbsent(p, k -> new ArrayList<>()).add(id)));
            for (Map.Entry<Integer, List<String>> e : byPipeline.entrySet()) {
                int p = e.getKey();
                List<String> ids = e.getValue();
                ids.sort(Comparator.comparingLong((String id) -> claims.get(id).get(p)).reversed());
                int counted = 0;
                long level = Long.MIN_VALUE;
                for (String id : ids) {
                    if (absent.contains(id) || unknown.contains(id)) {
                        continue;
                    }
                    long cp = claims.get(id).get(p);
                    if (counted >= KEPT && cp < level) {
                        break;
                    }
                    if (!verified.containsKey(id)) {
                        Map<Integer, Long> before = claims.get(id);
                        readInto(store, jobId, id, claims, verified, unknown, absent);
                        if (!before.equals(claims.get(id))) {
                            changed = true;
                            break;
                        }
                        if (!verified.containsKey(id)) {
                            continue;
                        }
                    }
                    toMark.add(id);
                    counted++;
                    level = cp;
                }
                if (changed) {
                    break;
                }
            }
        }
        return toMark;
    }

    /**
     * Creates the markers of {@code toMark} that the folder lacks, writes the sentinel, then lists
     * the folder again and drops the sentinel when a marker it relied on is gone.
     *
     * @return true when the sentinel stands
     */
    private static boolean markAndSeal(StorageFileSystem fs, String dir, String jobId, Set<String> toMark,
                                       Map<String, Map<Integer, Long>> claims, Map<String, SavepointHandle> verified)
            throws IOException {
        Map<String, List<Marker>> existing = new HashMap<>();
        for (String name : fs.listNames(dir)) {
            parse(name).ifPresent(m -> existing.computeIfAbsent(m.savepointId(), k -> new ArrayList<>()).add(m));
        }
        Set<String> relied = new LinkedHashSet<>();
        for (String id : toMark) {
            SavepointHandle h = verified.get(id);
            Optional<Marker> there = existing.getOrDefault(id, List.of()).stream()
                    .filter(m -> h == null ? !m.claimed() : m.claims().equals(claims.get(id)))
                    .findFirst();
            if (there.isPresent()) {
                relied.add(there.get().name());
                continue;
            }
            AttemptId attempt = AttemptId.next(id);
            String name = h == null ? unclaimedName(attempt) : name(h.meta(), attempt);
            create(fs, fs.child(dir, name), true);
            relied.add(name);
        }
        create(fs, fs.child(dir, SENTINEL), false);
        Set<String> now = new HashSet<>(fs.listNames(dir));
        if (!now.containsAll(relied)) {
            dropSentinel(fs, dir);
            return false;
        }
        LOG.debug("Newest markers of job {} established over {} savepoint(s) ({})", jobId, toMark.size(), dir);
        return true;
    }

    private static void readInto(SavepointStore store, String jobId, String id, Map<String, Map<Integer, Long>> claims,
                                 Map<String, SavepointHandle> verified, Set<String> unknown, Set<String> absent) {
        try {
            SavepointHandle h = store.readMetadata(jobId, id);
            verified.put(id, h);
            Map<Integer, Long> c = new TreeMap<>();
            for (ManifestEntry e : h.meta().manifest()) {
                c.put(e.pipelineId(), e.checkpointId());
            }
            if (c.isEmpty()) {
                claims.remove(id);
            } else {
                claims.put(id, c);
            }
        } catch (SavepointNotFoundException e) {
            absent.add(id);
            claims.remove(id);
        } catch (SavepointStorageException e) {
            // damaged or unreadable but published: marked without claims, so a lookup reads it
            if (e instanceof SavepointCorruptedException) {
                unknown.add(id);
                claims.remove(id);
            } else {
                throw e;
            }
        }
    }

    /**
     * Removes the markers below the K-th highest claim of each of their pipelines, then lists again
     * and drops the sentinel when a marker that justified a removal is gone.
     */
    static void prune(StorageLayout layout, InFlightAttempts inFlight, String jobId, List<String> names)
            throws IOException {
        StorageFileSystem fs = layout.fileSystem();
        String dir = dir(layout, jobId);
        Map<String, Map<Integer, Long>> claims = claimsByMarker(new SavepointStore(layout, inFlight), jobId, names);
        Map<Integer, List<Long>> byPipeline = new TreeMap<>();
        claims.values().forEach(c -> c.forEach((p, cp) -> byPipeline.computeIfAbsent(p, k -> new ArrayList<>()).add(cp)));
        Map<Integer, Long> threshold = new HashMap<>();
        byPipeline.forEach((p, cps) -> {
            if (cps.size() > KEPT) {
                cps.sort(Comparator.reverseOrder());
                threshold.put(p, cps.get(KEPT - 1));
            }
        });
        Set<String> justifiers = new HashSet<>();
        List<String> pruned = new ArrayList<>();
        for (Map.Entry<String, Map<Integer, Long>> e : claims.entrySet()) {
            boolean below = e.getValue().entrySet().stream()
                    .allMatch(c -> threshold.containsKey(c.getKey()) && c.getValue() < threshold.get(c.getKey()));
            if (!below) {
                continue;
            }
            for (Map.Entry<String, Map<Integer, Long>> other : claims.entrySet()) {
                for (Map.Entry<Integer, Long> c : e.getValue().entrySet()) {
                    Long cp = other.getValue().get(c.getKey());
                    if (cp != null && cp >= threshold.get(c.getKey())) {
                        justifiers.add(other.getKey());
                    }
                }
            }
            if (fs.delete(fs.child(dir, e.getKey()), false)) {
                pruned.add(e.getKey());
            }
        }
        if (pruned.isEmpty()) {
            return;
        }
        Set<String> now = new HashSet<>(fs.listNames(dir));
        if (!now.containsAll(justifiers)) {
            dropSentinel(fs, dir);
        }
        LOG.debug("Pruned {} newest marker(s) of job {} ({})", pruned.size(), jobId, dir);
    }

    /**
     * The claims of each marker among {@code names}: its own, or for a marker without claims those
     * of its published savepoint's metadata; a marker whose savepoint does not read is left out.
     */
    private static Map<String, Map<Integer, Long>> claimsByMarker(SavepointStore store, String jobId,
                                                                  List<String> names) {
        Map<String, Map<Integer, Long>> claims = new LinkedHashMap<>();
        for (String name : names) {
            Optional<Marker> m = parse(name);
            if (m.isEmpty()) {
                continue;
            }
            if (m.get().claimed()) {
                claims.put(name, m.get().claims());
                continue;
            }
            try {
                Map<Integer, Long> c = new TreeMap<>();
                store.readMetadata(jobId, m.get().savepointId()).meta().manifest()
                        .forEach(e -> c.put(e.pipelineId(), e.checkpointId()));
                if (!c.isEmpty()) {
                    claims.put(name, c);
                }
            } catch (SavepointStorageException e) {
                // not published, or damaged: neither counted nor pruned here
            }
        }
        return claims;
    }
}
