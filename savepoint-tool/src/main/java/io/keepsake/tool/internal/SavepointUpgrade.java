package io.keepsake.tool.internal;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointAlreadyExistsException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageNames;
import io.keepsake.storage.Versions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Upgrades a savepoint written in an older format version to the version this build writes
 * (version 1 to version 2), beside it: the old bundle is verified whole first (every payload's
 * length and SHA-256, and decoded) through the reader registry; its payload bytes are then copied,
 * verified again as they stream, into a new savepoint {@code <id>-v2} of the same job whose
 * properties record {@code upgradedFrom=<id>} and {@code upgradedFromFormatVersion=1} (kind,
 * payload format, timestamps and the other properties are the old one's); the new savepoint is read
 * back through the registry, every chunk verified and decoded, and its payloads must hash to the old
 * manifest's SHA-256, byte for byte the same. A new savepoint that does not read back so is deleted.
 * The old bundle is never changed or deleted: the operator deletes it once the new one is trusted.
 * Idempotent: when {@code <id>-v2} exists and records that it was upgraded from {@code <id>}, the
 * savepoint is "already migrated". Stateless.
 */
public final class SavepointUpgrade {

    /** The property that names the savepoint an upgraded one was copied from. */
    public static final String UPGRADED_FROM = "upgradedFrom";

    /** The property that records the format version of the savepoint an upgraded one was copied from. */
    public static final String UPGRADED_FROM_VERSION = "upgradedFromFormatVersion";

    /** What an upgrade did. */
    public enum Status {
        /** The new savepoint was written, read back and found equal. */
        UPGRADED("upgraded"),
        /** An earlier run (or the savepoint itself) already holds it in the current version; nothing written. */
        ALREADY_MIGRATED("already-migrated"),
        /** A dry run: the old savepoint verified, nothing written. */
        WOULD_UPGRADE("would-upgrade");

        private final String word;

        Status(String word) {
            this.word = word;
        }

        /** The status as JSON spells it. */
        public String word() {
            return word;
        }
    }

    /**
     * One upgrade.
     *
     * @param source the savepoint upgraded, as its verified metadata describes it
     * @param status what was done
     * @param target the savepoint in the current version (the new one, an earlier run's, or the source itself
     *               when it is in the current version already); null for a dry run
     * @param targetId the id of the savepoint in the current version
     */
    public record Result(SavepointHandle source, Status status, SavepointHandle target, String targetId) {
    }

    private SavepointUpgrade() {
    }

    /** The id of the upgraded copy of {@code savepointId}: {@code <savepointId>-v<current version>}. */
    public static String targetId(String savepointId) {
        return savepointId + "-v" + Versions.CURRENT_FORMAT_VERSION;
    }

    /**
     * Upgrades one savepoint (or, with {@code dryRun}, verifies it and says what would be written).
     *
     * @throws SavepointNotFoundException       when there is no such savepoint
     * @throws io.keepsake.storage.SavepointCorruptedException when the old savepoint does not verify (nothing is written)
     * @throws SavepointAlreadyExistsException  when {@code <id>-v2} is taken by a savepoint that is not its upgrade
     * @throws InvalidStorageArgumentException  when {@code <id>-v2} is not a valid id (too long)
     * @throws SavepointStorageException        when writing fails, or the new savepoint does not read back equal
     */
    public static Result upgrade(SavepointStorage savepoints, String jobId, String savepointId, boolean dryRun,
                                 Progress written, Progress readBack) {
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
        SavepointHandle source = savepoints.readMetadata(jobId, savepointId);
        int version = source.meta().formatVersion();
        if (version >= Versions.CURRENT_FORMAT_VERSION) {
            registry.forVersion(version);
            return new Result(source, Status.ALREADY_MIGRATED, source, savepointId);
        }
        String targetId = StorageNames.requireSafeName("upgraded savepoint id", targetId(savepointId));
        SavepointHandle earlier = existing(savepoints, jobId, targetId);
        if (earlier != null) {
            if (!savepointId.equals(earlier.meta().properties().get(UPGRADED_FROM))
                    || earlier.meta().formatVersion() != Versions.CURRENT_FORMAT_VERSION) {
                throw new SavepointAlreadyExistsException("Cannot upgrade savepoint " + savepointId + " of job " + jobId
                        + ": savepoint " + targetId + " is there and is not its upgrade to format version "
                        + Versions.CURRENT_FORMAT_VERSION + " (" + earlier.location() + ")");
            }
            return new Result(source, Status.ALREADY_MIGRATED, earlier, targetId);
        }
        registry.check(savepoints, source);
        if (dryRun) {
            return new Result(source, Status.WOULD_UPGRADE, null, targetId);
        }
        SavepointHandle target = copy(savepoints, source, targetId, written);
        verifyReadBack(savepoints, registry, source, target, readBack);
        return new Result(source, Status.UPGRADED, target, targetId);
    }

    private static SavepointHandle existing(SavepointStorage savepoints, String jobId, String id) {
        try {
            return savepoints.readMetadata(jobId, id);
        } catch (SavepointNotFoundException e) {
            return null;
        }
    }

    /** Writes the source's payloads, verified as they stream, into a new savepoint in the current version. */
    private static SavepointHandle copy(SavepointStorage savepoints, SavepointHandle source, String targetId,
                                        Progress written) {
        Map<String, String> properties = new TreeMap<>(source.meta().properties());
        properties.put(UPGRADED_FROM, source.savepointId());
        properties.put(UPGRADED_FROM_VERSION, Integer.toString(source.meta().formatVersion()));
        SavepointRequest request = new SavepointRequest(source.jobId(), targetId, source.meta().kind(),
                Versions.PRODUCER_VERSION, source.meta().payloadFormat(), source.meta().triggerTimestamp(), properties);
        try (SavepointWriter writer = savepoints.beginSavepoint(request)) {
            for (ManifestEntry entry : source.meta().manifest()) {
                try (InputStream in = savepoints.openPayload(source, entry);
                     OutputStream out = LegacyMigration.counting(
                             writer.openPayload(entry.pipelineId(), entry.checkpointId()), written)) {
                    in.transferTo(out);
                }
            }
            return writer.commit(source.meta().completedTimestamp());
        } catch (IOException e) {
            throw new SavepointStorageException("Cannot upgrade savepoint " + source.savepointId() + " of job "
                    + source.jobId() + ": copying its payloads failed: " + e.getMessage() + "; nothing was published ("
                    + source.location() + ")", e);
        }
    }

    /**
     * The new savepoint must be in the current version, verify and decode through the registry, and
     * hold the source's bytes: each payload's plain SHA-256 equals the source manifest's. Otherwise it is deleted.
     */
    private static void verifyReadBack(SavepointStorage savepoints, SavepointReaderRegistry registry,
                                       SavepointHandle source, SavepointHandle target, Progress readBack) {
        String problem = null;
        SavepointStorageException cause = null;
        try {
            if (target.meta().formatVersion() != Versions.CURRENT_FORMAT_VERSION) {
                problem = "it is in format version " + target.meta().formatVersion() + ", not "
                        + Versions.CURRENT_FORMAT_VERSION + " (is savepoint.format-version configured to "
                        + target.meta().formatVersion() + "?)";
            } else {
                registry.check(savepoints, target);
                problem = differingPayload(savepoints, source, target, readBack);
            }
        } catch (SavepointStorageException e) {
            problem = "it does not read back: " + e.getMessage();
            cause = e;
        }
        if (problem != null) {
            throw LegacyMigration.discard(savepoints, target, problem, cause);
        }
    }

    /** The first payload of {@code target} whose bytes differ from the source's, described; null when none does. */
    private static String differingPayload(SavepointStorage savepoints, SavepointHandle source, SavepointHandle target,
                                           Progress readBack) {
        List<ManifestEntry> entries = target.meta().manifest();
        for (ManifestEntry entry : entries) {
            ManifestEntry old = source.meta().entryForPipeline(entry.pipelineId());
            MessageDigest sha;
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is missing from this JVM", e);
            }
            long length;
            try (InputStream in = new DigestInputStream(savepoints.openPayload(target, entry), sha)) {
                length = in.transferTo(LegacyMigration.counting(OutputStream.nullOutputStream(), readBack));
            } catch (IOException e) {
                return "reading " + entry.file() + " back failed: " + e.getMessage();
            }
            String actual = HexFormat.of().formatHex(sha.digest());
            if (old == null || old.length() != length || !old.sha256().equals(actual)) {
                return "payload " + entry.file() + " differs from " + (old == null ? "nothing" : old.file())
                        + " of savepoint " + source.savepointId();
            }
        }
        return null;
    }
}
