package io.keepsake.storage.internal;

import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointHint;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The savepoint folders of one job during a crash-recovery lookup ({@code SavepointRestorer.recoverLatest}):
 * what each claims (its index marker, or its verified metadata once read), which were read and
 * verified, and which are out (not a complete savepoint, or skipped as corrupted).
 *
 * <p>For each pipeline the newest state is the highest checkpoint id; among savepoints tying on
 * it, the newest completed one, and among those completed in the same millisecond, the greatest
 * savepoint id. Only what may decide that is read: every folder without a marker (once, when
 * the lookup starts), and for each pipeline the folder that its claims put first. A tied folder
 * whose marker carries no completion time (written before markers did) is read too, since
 * nothing else orders it. A claim is never trusted over the metadata: a folder put first is read
 * and verified, and when its metadata says something else the choice is made again with what it
 * says. So the metadata files read grow with the pipelines, not with the savepoints, ties
 * included.
 *
 * <p>When the storage keeps newest markers ({@link NewestMarkers}) and the job's newest folder can
 * be trusted, the lookup starts from that folder alone, so the listing does not grow with the
 * savepoints either; it falls back to listing every folder when the folder is missing, empty or
 * without its sentinel, when a marker without claims does not read, and when K or more markers
 * above the savepoint it would take were skipped. Not thread-safe: one lookup at a time.
 */
public final class NewestSavepoints {

    /** What a lookup does with a folder that may hold a newest state and whose metadata does not verify. */
    @FunctionalInterface
    public interface OnCorrupted {
        /** Throws to fail the lookup; returns to skip the folder (it is then out). */
        void skipOrFail(String savepointId, SavepointCorruptedException e);
    }

    private final SavepointStorage savepoints;
    private final String jobId;
    private final OnCorrupted onCorrupted;
    /** What each folder claims: its marker's word until its metadata is read, then the metadata's. */
    private final Map<String, SavepointHint> hints = new LinkedHashMap<>();
    private final Map<String, SavepointHandle> verified = new HashMap<>();
    private final Set<String> out = new HashSet<>();
    private final Map<String, SavepointStorageException> unclaimedProblems = new LinkedHashMap<>();
    private boolean skippedAny;

    /**
     * What the job's newest markers claim ({@link NewestMarkers}), when the lookup started from
     * them: the claims each marker's name makes, and the K its sentinel was written for. Null once
     * the lookup lists every folder.
     */
    private List<NewestMarkers.Marker> markers;
    private int kept;
    /** The savepoints skipped as corrupted, which stay out when the lookup falls back to the full listing. */
    private final Set<String> skippedIds = new HashSet<>();

    /**
     * Starts from the job's newest markers when the storage has them and their folder can be
     * trusted ({@link NewestMarkers}); otherwise lists the job's folders
     * ({@link SavepointStorage#hintSavepoints}) and reads the metadata of those without a claim.
     */
    public NewestSavepoints(SavepointStorage savepoints, String jobId, OnCorrupted onCorrupted) {
        this.savepoints = savepoints;
        this.jobId = jobId;
        this.onCorrupted = onCorrupted;
        Optional<NewestMarkers.Trusted> trusted = savepoints instanceof NewestMarkers.Source source
                ? source.newestMarkers(jobId) : Optional.empty();
        if (trusted.isEmpty() || !startFromMarkers(trusted.get())) {
            listAll();
        }
    }

    /**
     * Takes the markers as the candidates: a savepoint named by one claiming marker by what it
     * claims, any other (no claims in the name, or several markers) by its metadata, read now.
     * False when such a read finds anything but a verified savepoint or none at all.
     */
    private boolean startFromMarkers(NewestMarkers.Trusted trusted) {
        markers = trusted.markers();
        kept = trusted.kept();
        Map<String, List<NewestMarkers.Marker>> byId = new LinkedHashMap<>();
        markers.forEach(m -> byId.computeIfAbsent(m.savepointId(), k -> new ArrayList<>()).add(m));
        for (Map.Entry<String, List<NewestMarkers.Marker>> e : byId.entrySet()) {
            NewestMarkers.Marker first = e.getValue().get(0);
            if (e.getValue().size() == 1 && first.claimed()) {
                hints.put(e.getKey(), first.hint());
                continue;
            }
            hints.put(e.getKey(), new SavepointHint(e.getKey(), SavepointHint.TIME_NOT_READ, Map.of()));
            read(e.getKey(), true);
            if (!unclaimedProblems.isEmpty()) {
                unclaimedProblems.clear();
                return false;
            }
        }
        return true;
    }

    /** Lists every folder of the job and reads the metadata of those without a claim (the fallback). */
    private void listAll() {
        markers = null;
        hints.clear();
        out.clear();
        out.addAll(skippedIds);
        List<SavepointHint> listed = savepoints.hintSavepoints(jobId);
        for (SavepointHint h : listed) {
            SavepointHandle known = verified.get(h.savepointId());
            hints.put(h.savepointId(), known != null ? SavepointHint.of(known, h.modificationTime()) : h);
        }
        for (SavepointHint h : listed) {
            if (!h.claimed() && !verified.containsKey(h.savepointId()) && !out.contains(h.savepointId())) {
                read(h.savepointId(), true);
            }
        }
    }

    /**
     * While the lookup starts from the markers: false when, for some pipeline, at least K markers
     * claim a higher checkpoint id than the one the lookup would now take (every one of them was
     * skipped), or a marker without claims was skipped; an older savepoint without a marker may
     * then be newer than the one taken, so only the full listing tells.
     */
    private boolean markersSuffice(Map<Integer, Newest> newest, Map<Integer, Long> checkpointFiles) {
        Map<Integer, Integer> above = new HashMap<>();
        for (NewestMarkers.Marker m : markers) {
            if (!m.claimed()) {
                if (out.contains(m.savepointId())) {
                    return false;
                }
                continue;
            }
            for (Map.Entry<Integer, Long> claim : m.claims().entrySet()) {
                Newest n = newest.get(claim.getKey());
                Long file = checkpointFiles.get(claim.getKey());
                long level = n != null ? n.checkpointId : file != null ? file : Long.MIN_VALUE;
                if (claim.getValue() > level && above.merge(claim.getKey(), 1, Integer::sum) >= kept) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Reads and verifies one folder's metadata; a folder that is not a verified savepoint is out. */
    private void read(String savepointId, boolean unclaimed) {
        try {
            SavepointHandle handle = savepoints.readMetadata(jobId, savepointId);
            verified.put(savepointId, handle);
            hints.put(savepointId, SavepointHint.of(handle, hints.get(savepointId).modificationTime()));
        } catch (SavepointNotFoundException e) {
            out.add(savepointId);
        } catch (SavepointCorruptedException e) {
            out.add(savepointId);
            if (unclaimed) {
                unclaimedProblems.put(savepointId, e);
            } else {
                onCorrupted.skipOrFail(savepointId, e);
                skippedIds.add(savepointId);
                skippedAny = true;
            }
        } catch (SavepointStorageException e) {
            if (!unclaimed) {
                throw e;
            }
            out.add(savepointId);
            unclaimedProblems.put(savepointId, e);
        }
    }

    /** Takes a savepoint out of the lookup (its payload did not verify and the caller skips it). */
    public void skip(String savepointId) {
        out.add(savepointId);
        skippedIds.add(savepointId);
        skippedAny = true;
    }

    /** True when a savepoint was skipped as corrupted. */
    public boolean skippedAny() {
        return skippedAny;
    }

    /**
     * For one pipeline during one pass over the folders: the highest checkpoint id claimed so far,
     * the first of the folders claiming it by completion time and id, and those of them whose
     * completion time is not known.
     */
    private static final class Newest {
        long checkpointId;
        String first;
        long firstCompleted;
        final List<String> unordered = new ArrayList<>();

        Newest(long checkpointId) {
            this.checkpointId = checkpointId;
        }

        void offer(String savepointId, long claimedCheckpoint, OptionalLong completed) {
            if (claimedCheckpoint > checkpointId) {
                checkpointId = claimedCheckpoint;
                first = null;
                unordered.clear();
            } else if (claimedCheckpoint < checkpointId) {
                return;
            }
            if (completed.isEmpty()) {
                unordered.add(savepointId);
            } else if (first == null || completed.getAsLong() > firstCompleted
                    || (completed.getAsLong() == firstCompleted && savepointId.compareTo(first) > 0)) {
                first = savepointId;
                firstCompleted = completed.getAsLong();
            }
        }
    }

    /**
     * For each pipeline whose newest state is in a savepoint, that savepoint, verified: the highest
     * claimed checkpoint id wins, a savepoint wins a tie with a checkpoint file, and between
     * savepoints the newest completed wins a tie, then the greatest savepoint id.
     *
     * @param checkpointFiles the checkpoint id of each pipeline's newest checkpoint file; a
     *                        pipeline's savepoints below it are not chosen
     */
    public Map<Integer, SavepointHandle> choose(Map<Integer, Long> checkpointFiles) {
        while (true) {
            Map<Integer, Newest> newest = new HashMap<>();
            for (SavepointHint h : hints.values()) {
                if (out.contains(h.savepointId())) {
                    continue;
                }
                for (Map.Entry<Integer, Long> claim : h.claims().entrySet()) {
                    Newest n = newest.get(claim.getKey());
                    if (n == null) {
                        Long file = checkpointFiles.get(claim.getKey());
                        if (file != null && claim.getValue() < file) {
                            continue;
                        }
                        n = new Newest(claim.getValue());
                        newest.put(claim.getKey(), n);
                    }
                    n.offer(h.savepointId(), claim.getValue(), h.completed());
                }
            }
            if (markers != null && !markersSuffice(newest, checkpointFiles)) {
                listAll();
                continue;
            }
            Set<String> toRead = new LinkedHashSet<>();
            newest.values().forEach(n -> toRead.addAll(n.unordered));
            if (toRead.isEmpty()) {
                newest.values().stream().map(n -> n.first).filter(id -> !verified.containsKey(id))
                        .forEach(toRead::add);
            }
            if (toRead.isEmpty()) {
                Map<Integer, SavepointHandle> chosen = new TreeMap<>();
                newest.forEach((pid, n) -> chosen.put(pid, verified.get(n.first)));
                return chosen;
            }
            toRead.forEach(id -> read(id, false));
        }
    }

    /**
     * A folder without a marker whose metadata did not verify fails the recovery (or is skipped
     * through {@link OnCorrupted}) when it is at least as new as every verified savepoint: it may
     * hold the newest state. Older ones are left, as a listing leaves them.
     *
     * @throws SavepointStorageException when such a folder could not be read for another reason
     */
    public void checkUnclaimedCorrupted() {
        long newestIntact = verified.entrySet().stream().filter(e -> !out.contains(e.getKey()))
                .mapToLong(e -> e.getValue().meta().completedTimestamp()).max().orElse(Long.MIN_VALUE);
        for (Map.Entry<String, SavepointStorageException> e : unclaimedProblems.entrySet()) {
            if (hints.get(e.getKey()).modificationTime() >= newestIntact) {
                if (!(e.getValue() instanceof SavepointCorruptedException corrupted)) {
                    throw e.getValue();
                }
                onCorrupted.skipOrFail(e.getKey(), corrupted);
                skippedAny = true;
            }
        }
    }
}
