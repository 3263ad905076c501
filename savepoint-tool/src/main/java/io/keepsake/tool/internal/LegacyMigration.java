package io.keepsake.tool.internal;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.Versions;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.wire.CheckpointWireCodec;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Rewrites a job's legacy v0 state (SeaTunnel 2.3.x checkpoint files) as a savepoint bundle in
 * the format version the storage writes (version 2 unless {@code savepoint.format-version} says 1). It reads the latest checkpoint of every pipeline through the legacy SPI,
 * decodes each with {@link LegacyCheckpointCodec}, writes them with {@link CheckpointWireCodec}
 * into a staged savepoint of kind manual whose properties record {@code migratedFrom=legacy-v0},
 * commits it, then reads it back through {@link SavepointReaderRegistry} and requires whole-object
 * equality with what was decoded. A bundle that does not read back equal is deleted at once, so
 * a restore can never pick it up. The legacy files are never modified.
 *
 * <p>Reading ({@link #read}) and writing ({@link #write}) are separate steps, so that a checkpoint
 * that does not decode is found before anything is created. On a {@link KeepsakeStorage} the job's
 * checkpoint files are listed, so that a pipeline whose newest file cannot be read fails the
 * migration (naming the file and the pipeline's other checkpoints) instead of being left out or
 * replaced by an older checkpoint unasked; an older one is migrated only when chosen
 * ({@link CheckpointChoice}).
 *
 * <p>Migration is idempotent: the default savepoint id is derived from the migrated checkpoints,
 * and a savepoint with that id that records the same checkpoints
 * ({@code legacyCheckpoint.<pipeline>=<checkpoint>}) is reported as already migrated instead of
 * written again. Stateless.
 */
public final class LegacyMigration {

    /** The property that marks a migrated savepoint, and its value. */
    public static final String MIGRATED_FROM = "migratedFrom";

    /** The value of {@link #MIGRATED_FROM}. */
    public static final String LEGACY_V0 = LegacyCheckpointCodec.FORMAT_NAME;

    /** The prefix of the properties that record which checkpoint of each pipeline was migrated. */
    public static final String LEGACY_CHECKPOINT_PREFIX = "legacyCheckpoint.";

    /**
     * One decoded legacy checkpoint.
     *
     * @param pipelineId   the pipeline
     * @param checkpointId the checkpoint
     * @param source       the file it came from, or a description when the storage does not expose files
     * @param checkpoint   the decoded checkpoint
     */
    public record LegacyCheckpoint(int pipelineId, long checkpointId, String source, CompletedCheckpoint checkpoint) {
    }

    /**
     * A finished migration.
     *
     * @param handle          the committed, verified savepoint (null for a dry run)
     * @param savepointId     the savepoint's id
     * @param migrated        the legacy checkpoints it holds, by pipeline
     * @param alreadyMigrated true when an earlier run had written it and nothing was written now
     */
    public record Result(SavepointHandle handle, String savepointId, List<LegacyCheckpoint> migrated,
                         boolean alreadyMigrated) {

        public Result {
            migrated = List.copyOf(migrated);
        }
    }

    /**
     * What {@code migrate} would do for a job, for {@code keepsake list}: found from the checkpoint
     * file names and the savepoints' metadata; only when no savepoint holds some pipeline's newest
     * checkpoint id is that newest file read, to find a copy {@code prepare-restore} made of a
     * savepoint (the savepoints holding the pipeline below that id are read to compare).
     *
     * @param jobId       the job
     * @param newest      the newest checkpoint file of each pipeline, by pipeline
     * @param files       how many checkpoint files the job has
     * @param bytes       their total length
     * @param savepointId the id a migration without {@code --savepoint-id} would write
     * @param migrated    true when a complete savepoint with that id exists
     * @param keptIn      the complete savepoints that already hold, for every pipeline, its newest
     *                    checkpoint or a newer one (as SeaTunnel's Keepsake plugin keeps a
     *                    savepoint beside its checkpoint file), or whose state a restore
     *                    preparation copied into it; empty when some pipeline's newest
     *                    checkpoint is in no savepoint
     */
    public record Pending(String jobId, List<CheckpointFile> newest, int files, long bytes, String savepointId,
                          boolean migrated, List<String> keptIn) {

        public Pending {
            newest = List.copyOf(newest);
            keptIn = List.copyOf(keptIn);
        }

        /** True when migrating would write nothing the job's savepoints do not hold already. */
        public boolean kept() {
            return !migrated && !keptIn.isEmpty();
        }

        /** The pipeline ids, in order. */
        public List<Integer> pipelines() {
            return newest.stream().map(CheckpointFile::pipelineId).toList();
        }
    }

    private LegacyMigration() {
    }

    /**
     * What a migration of {@code jobId} would write, from file names; empty when the job has no checkpoint file.
     *
     * @throws SavepointStorageException when the job's folder cannot be listed
     */
    public static Optional<Pending> plan(KeepsakeStorage storage, String jobId) {
        List<CheckpointFile> files;
        try {
            files = storage.checkpointFiles(jobId);
        } catch (CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot list the checkpoints of job " + jobId + ": " + e.getMessage(), e);
        }
        if (files.isEmpty()) {
            return Optional.empty();
        }
        Map<Integer, CheckpointFile> newest = new TreeMap<>();
        long bytes = 0;
        for (CheckpointFile f : files) {
            bytes += f.length();
            CheckpointFile best = newest.get(f.pipelineId());
            if (best == null || f.checkpointId() >= best.checkpointId()) {
                newest.put(f.pipelineId(), f);
            }
        }
        Map<Integer, Long> ids = new TreeMap<>();
        newest.values().forEach(f -> ids.put(f.pipelineId(), f.checkpointId()));
        String id = defaultSavepointId(ids);
        List<io.keepsake.storage.SavepointEntry> entries = storage.scanSavepoints(jobId);
        boolean migrated = entries.stream().anyMatch(e -> e.savepointId().equals(id) && e.handle().isPresent());
        List<String> keptIn = keptIn(entries, ids);
        if (!migrated && keptIn.isEmpty()) {
            keptIn = preparedFrom(storage, newest, entries);
        }
        return Optional.of(new Pending(jobId, List.copyOf(newest.values()), files.size(), bytes, id, migrated,
                keptIn));
    }

    /**
     * The complete savepoints whose state, between them, every pipeline's newest checkpoint file
     * holds with only a higher checkpoint id (what {@code prepare-restore} writes), newest holder
     * first; empty when some pipeline's newest file holds no savepoint's state. Only savepoints
     * holding the pipeline at a lower id are read, each at most once, and only while every
     * pipeline before matched.
     */
    private static List<String> preparedFrom(KeepsakeStorage storage, Map<Integer, CheckpointFile> newest,
                                             List<io.keepsake.storage.SavepointEntry> entries) {
        io.keepsake.reader.SavepointReaderRegistry registry = io.keepsake.reader.SavepointReaderRegistry.standard();
        Map<String, Map<Integer, CompletedCheckpoint>> read = new java.util.HashMap<>();
        java.util.Set<String> holders = new java.util.LinkedHashSet<>();
        for (CheckpointFile f : newest.values()) {
            Optional<String> holder = Optional.empty();
            for (io.keepsake.storage.SavepointEntry e : entries) {
                io.keepsake.storage.ManifestEntry m = e.handle().map(h -> h.meta().entryForPipeline(f.pipelineId()))
                        .orElse(null);
                if (m == null || m.checkpointId() >= f.checkpointId()) {
                    continue;
                }
                Map<Integer, CompletedCheckpoint> state;
                try {
                    state = read.computeIfAbsent(e.savepointId(), x -> registry.read(storage, e.handle().get()));
                } catch (SavepointStorageException unreadable) {
                    continue; // list reports the savepoint's own status; it holds nothing to compare
                }
                CompletedCheckpoint saved = state.get(f.pipelineId());
                if (saved != null && io.keepsake.tool.internal.PreparedCopies.holds(storage, f, saved)) {
                    holder = Optional.of(e.savepointId());
                    break;
                }
            }
            if (holder.isEmpty()) {
                return List.of();
            }
            holders.add(holder.get());
        }
        return List.copyOf(holders);
    }

    /**
     * The complete savepoints that hold, between them, every pipeline's checkpoint in {@code ids} or
     * a newer one, newest holder first per pipeline; empty when some pipeline is in none.
     */
    private static List<String> keptIn(List<io.keepsake.storage.SavepointEntry> entries, Map<Integer, Long> ids) {
        java.util.Set<String> holders = new java.util.LinkedHashSet<>();
        for (Map.Entry<Integer, Long> pipeline : ids.entrySet()) {
            Optional<String> holder = entries.stream().filter(e -> e.handle().isPresent())
                    .filter(e -> {
                        io.keepsake.storage.ManifestEntry m = e.handle().get().meta().entryForPipeline(pipeline.getKey());
                        return m != null && m.checkpointId() >= pipeline.getValue();
                    })
                    .map(io.keepsake.storage.SavepointEntry::savepointId).findFirst();
            if (holder.isEmpty()) {
                return List.of();
            }
            holders.add(holder.get());
        }
        return List.copyOf(holders);
    }

    /**
     * Writes decoded legacy checkpoints of a job as a new savepoint and verifies it, or reports
     * that an earlier run did; nothing is written before this is called, so a checkpoint that does
     * not decode ({@link #read}) leaves no trace.
     *
     * @param legacy      the decoded checkpoints, one per pipeline ({@link #read})
     * @param savepointId the new savepoint's id, or null for {@link #defaultSavepointId}
     * @param dryRun      true to report only, writing nothing
     * @param written     counts the payload bytes written (and, through the returned savepoint, nothing else)
     * @param readBack    counts the payload bytes read back while verifying
     * @throws SavepointAlreadyExistsException when a different savepoint with that id is already committed
     * @throws SavepointStorageException       when writing fails or the bundle does not read back equal
     */
    public static Result write(SavepointStorage savepoints, String jobId, List<LegacyCheckpoint> legacy,
                               String savepointId, boolean dryRun, Progress written, Progress readBack) {
        String id = savepointId != null ? savepointId : defaultSavepointId(legacy);
        Optional<SavepointHandle> existing = existing(savepoints, jobId, id);
        if (existing.isPresent()) {
            if (recordsSame(existing.get(), legacy)) {
                return new Result(existing.get(), id, legacy, true);
            }
            throw new SavepointAlreadyExistsException("Cannot migrate job " + jobId + ": savepoint " + id
                    + " already exists and does not hold these checkpoints (" + describe(legacy) + "); give another"
                    + " --savepoint-id, or delete it first (" + existing.get().location() + ")");
        }
        if (dryRun) {
            return new Result(null, id, legacy, false);
        }
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(MIGRATED_FROM, LEGACY_V0);
        legacy.forEach(l -> properties.put(LEGACY_CHECKPOINT_PREFIX + l.pipelineId(), Long.toString(l.checkpointId())));
        SavepointRequest request = new SavepointRequest(jobId, id, SavepointKind.MANUAL, Versions.PRODUCER_VERSION,
                CheckpointWireCodec.FORMAT_NAME, System.currentTimeMillis(), properties);

        CheckpointWireCodec codec = new CheckpointWireCodec();
        SavepointHandle handle;
        try (SavepointWriter writer = savepoints.beginSavepoint(request)) {
            for (LegacyCheckpoint l : legacy) {
                try (OutputStream out = counting(writer.openPayload(l.pipelineId(), l.checkpointId()), written)) {
                    codec.encode(l.checkpoint(), out);
                } catch (IOException e) {
                    throw new SavepointStorageException("Cannot migrate job " + jobId + ": writing pipeline "
                            + l.pipelineId() + " into savepoint " + id + " failed, nothing was published: "
                            + e.getMessage(), e);
                }
            }
            handle = writer.commit(System.currentTimeMillis());
        }
        written.close();
        verifyReadBack(new MeteredSavepointStorage(savepoints, readBack), handle, legacy);
        readBack.close();
        return new Result(handle, id, legacy, false);
    }

    /** Reads the newest checkpoints and migrates them, with neither a dry run nor progress (for tests and embedding). */
    public static Result migrate(CheckpointStorage checkpoints, SavepointStorage savepoints, String jobId,
                                 String savepointId) {
        return write(savepoints, jobId, read(checkpoints, jobId, CheckpointChoice.NEWEST), savepointId, false,
                Progress.none(), Progress.none());
    }

    private static Optional<SavepointHandle> existing(SavepointStorage savepoints, String jobId, String id) {
        for (SavepointEntry e : savepoints.scanSavepoints(jobId)) {
            if (e.savepointId().equals(id) && e.handle().isPresent()) {
                return e.handle();
            }
        }
        return Optional.empty();
    }

    private static boolean recordsSame(SavepointHandle handle, List<LegacyCheckpoint> legacy) {
        Map<String, String> p = handle.meta().properties();
        if (!LEGACY_V0.equals(p.get(MIGRATED_FROM))) {
            return false;
        }
        long recorded = p.keySet().stream().filter(k -> k.startsWith(LEGACY_CHECKPOINT_PREFIX)).count();
        return recorded == legacy.size() && legacy.stream().allMatch(l ->
                Long.toString(l.checkpointId()).equals(p.get(LEGACY_CHECKPOINT_PREFIX + l.pipelineId())));
    }

    private static String describe(List<LegacyCheckpoint> legacy) {
        return legacy.stream().map(l -> "pipeline " + l.pipelineId() + " checkpoint " + l.checkpointId())
                .collect(Collectors.joining(", "));
    }

    /** {@code out}, telling {@code progress} of every byte written through it. */
    static OutputStream counting(OutputStream out, Progress progress) {
        return new FilterOutputStream(out) {
            @Override
            public void write(int b) throws IOException {
                out.write(b);
                progress.advance(1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                progress.advance(len);
            }
        };
    }

    private static void verifyReadBack(SavepointStorage savepoints, SavepointHandle handle, List<LegacyCheckpoint> legacy) {
        Map<Integer, CompletedCheckpoint> expected = new TreeMap<>();
        legacy.forEach(l -> expected.put(l.pipelineId(), l.checkpoint()));
        String problem;
        SavepointStorageException cause = null;
        try {
            Map<Integer, CompletedCheckpoint> actual = SavepointReaderRegistry.standard().read(savepoints, handle);
            if (actual.equals(expected)) {
                return;
            }
            List<Integer> differing = new ArrayList<>();
            for (Integer p : expected.keySet()) {
                if (!expected.get(p).equals(actual.get(p))) {
                    differing.add(p);
                }
            }
            problem = "it reads back different from the decoded legacy checkpoints (pipelines " + differing + ")";
        } catch (SavepointStorageException e) {
            problem = "it does not read back: " + e.getMessage();
            cause = e;
        }
        throw discard(savepoints, handle, problem, cause);
    }

    /**
     * A savepoint just written that does not read back as it must is deleted at once, so that a
     * restore can never pick it up; the returned error says why and whether the delete worked.
     */
    static SavepointStorageException discard(SavepointStorage savepoints, SavepointHandle handle, String problem,
                                             SavepointStorageException cause) {
        String outcome;
        try {
            savepoints.deleteSavepoint(handle.jobId(), handle.savepointId());
            outcome = "it was deleted";
        } catch (SavepointStorageException e) {
            outcome = "deleting it failed too (" + e.getMessage() + "); delete it before restoring this job";
        }
        return new SavepointStorageException("Cannot migrate job " + handle.jobId() + ": savepoint "
                + handle.savepointId() + " was written but " + problem + "; " + outcome + " (" + handle.location() + ")",
                cause);
    }

    /**
     * The legacy checkpoint of every pipeline of a job that {@code choice} selects, decoded, in
     * pipeline order; see {@link LegacyCheckpointReading#read}.
     *
     * @throws SavepointNotFoundException  when the job has no legacy checkpoint, or not the one chosen
     * @throws CheckpointCorruptedException when a selected checkpoint does not decode
     * @throws io.keepsake.tool.ToolUsageException when a checkpoint was chosen on a storage that does not list files
     */
    public static List<LegacyCheckpoint> read(CheckpointStorage checkpoints, String jobId, CheckpointChoice choice) {
        return LegacyCheckpointReading.read(checkpoints, jobId, choice);
    }

    /**
     * The id used when none is given: {@code migrated-v0-p<pipeline>c<checkpoint>-...}, the same for
     * the same legacy state, so running the migration twice finds the first run's savepoint instead
     * of writing a copy.
     */
    public static String defaultSavepointId(List<LegacyCheckpoint> legacy) {
        Map<Integer, Long> ids = new TreeMap<>();
        legacy.forEach(l -> ids.put(l.pipelineId(), l.checkpointId()));
        return defaultSavepointId(ids);
    }

    /** The default id for the given checkpoint of each pipeline; see {@link #defaultSavepointId(List)}. */
    public static String defaultSavepointId(Map<Integer, Long> checkpointByPipeline) {
        String parts = checkpointByPipeline.entrySet().stream().map(e -> "p" + e.getKey() + "c" + e.getValue())
                .collect(Collectors.joining("-"));
        String id = "migrated-v0-" + parts;
        if (id.length() <= 120) {
            return id;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(parts.getBytes(StandardCharsets.UTF_8));
            return "migrated-v0-" + HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
