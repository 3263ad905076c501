package io.keepsake.tool.internal;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.LegacyCheckpoints;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointCorruptedException;
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
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Rewrites a job's legacy v0 state (SeaTunnel 2.3.x checkpoint files) as a format-version-1
 * savepoint bundle. It reads the latest checkpoint of every pipeline through the legacy SPI,
 * decodes each with {@link LegacyCheckpointCodec}, writes them with {@link CheckpointWireCodec}
 * into a staged savepoint of kind manual whose properties record {@code migratedFrom=legacy-v0},
 * commits it, then reads it back through {@link SavepointReaderRegistry} and requires whole-object
 * equality with what was decoded. A bundle that does not read back equal is deleted at once, so
 * a restore can never pick it up. The legacy files are never modified.
 *
 * <p>On a {@link KeepsakeStorage} the job's checkpoint files are listed, so that a pipeline
 * whose newest file cannot be read fails the migration (naming the file) instead of being left
 * out or replaced by an older checkpoint. Stateless.
 */
public final class LegacyMigration {

    /** The property that marks a migrated savepoint, and its value. */
    public static final String MIGRATED_FROM = "migratedFrom";

    /** The value of {@link #MIGRATED_FROM}. */
    public static final String LEGACY_V0 = LegacyCheckpointCodec.FORMAT_NAME;

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
     * @param handle   the committed, verified savepoint
     * @param migrated the legacy checkpoints it holds, by pipeline
     */
    public record Result(SavepointHandle handle, List<LegacyCheckpoint> migrated) {

        public Result {
            migrated = List.copyOf(migrated);
        }
    }

    private LegacyMigration() {
    }

    /**
     * Migrates the job's latest legacy checkpoints into a new savepoint.
     *
     * @param savepointId the new savepoint's id, or null for {@link #defaultSavepointId}
     * @throws SavepointNotFoundException      when the job has no legacy checkpoint
     * @throws SavepointCorruptedException     when a legacy checkpoint does not decode
     * @throws SavepointAlreadyExistsException when a savepoint with that id is already committed
     * @throws SavepointStorageException       when writing fails or the bundle does not read back equal
     */
    public static Result migrate(CheckpointStorage checkpoints, SavepointStorage savepoints, String jobId,
                                 String savepointId) {
        List<LegacyCheckpoint> legacy = readLatest(checkpoints, jobId);
        String id = savepointId != null ? savepointId : defaultSavepointId(legacy);
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(MIGRATED_FROM, LEGACY_V0);
        properties.put("pipelines", legacy.stream().map(LegacyCheckpoint::pipelineId).toList().toString());
        properties.put("legacyCheckpoints", legacy.stream()
                .map(l -> "pipeline " + l.pipelineId() + " checkpoint " + l.checkpointId())
                .collect(Collectors.joining(", ")));
        SavepointRequest request = new SavepointRequest(jobId, id, SavepointKind.MANUAL, Versions.PRODUCER_VERSION,
                CheckpointWireCodec.FORMAT_NAME, System.currentTimeMillis(), properties);

        CheckpointWireCodec codec = new CheckpointWireCodec();
        SavepointHandle handle;
        try (SavepointWriter writer = savepoints.beginSavepoint(request)) {
            for (LegacyCheckpoint l : legacy) {
                try (OutputStream out = writer.openPayload(l.pipelineId(), l.checkpointId())) {
                    codec.encode(l.checkpoint(), out);
                } catch (IOException e) {
                    throw new SavepointStorageException("Cannot migrate job " + jobId + ": writing pipeline "
                            + l.pipelineId() + " into savepoint " + id + " failed, nothing was published: "
                            + e.getMessage(), e);
                }
            }
            handle = writer.commit(System.currentTimeMillis());
        }
        verifyReadBack(savepoints, handle, legacy);
        return new Result(handle, legacy);
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
        String outcome;
        try {
            savepoints.deleteSavepoint(handle.jobId(), handle.savepointId());
            outcome = "it was deleted";
        } catch (SavepointStorageException e) {
            outcome = "deleting it failed too (" + e.getMessage() + "); delete it before restoring this job";
        }
        throw new SavepointStorageException("Cannot migrate job " + handle.jobId() + ": savepoint "
                + handle.savepointId() + " was written but " + problem + "; " + outcome + " (" + handle.location() + ")",
                cause);
    }

    /**
     * The latest legacy checkpoint of every pipeline of a job, decoded, in pipeline order. On a
     * {@link KeepsakeStorage} the newest file of each pipeline must decode (naming the file when it
     * does not) rather than being replaced by an older checkpoint.
     *
     * @throws SavepointNotFoundException  when the job has no legacy checkpoint
     * @throws SavepointCorruptedException when a pipeline's latest checkpoint does not decode
     */
    public static List<LegacyCheckpoint> readLatest(CheckpointStorage checkpoints, String jobId) {
        List<LegacyCheckpoints.Decoded> decoded;
        String where;
        if (checkpoints instanceof KeepsakeStorage storage) {
            decoded = LegacyCheckpoints.newest(storage, jobId);
            where = storage.namespace() + "/" + jobId;
        } else {
            decoded = LegacyCheckpoints.latest(checkpoints, jobId);
            where = "the checkpoint storage";
        }
        if (decoded.isEmpty()) {
            throw new SavepointNotFoundException("Cannot migrate job " + jobId + ": it has no legacy checkpoint ("
                    + where + ")");
        }
        return decoded.stream().map(d -> new LegacyCheckpoint(d.pipelineId(), d.checkpointId(), d.source(),
                d.checkpoint())).toList();
    }

    /**
     * The id used when none is given: {@code migrated-v0-p<pipeline>c<checkpoint>-...}, the same for
     * the same legacy state, so running the migration twice is refused instead of writing a copy.
     */
    public static String defaultSavepointId(List<LegacyCheckpoint> legacy) {
        String parts = legacy.stream().map(l -> "p" + l.pipelineId() + "c" + l.checkpointId())
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
