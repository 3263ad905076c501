package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.Versions;
import io.keepsake.tool.internal.CheckpointChoice;
import io.keepsake.tool.internal.LegacyMigration;
import io.keepsake.tool.internal.Progress;
import io.keepsake.tool.internal.SavepointPath;
import io.keepsake.tool.internal.SavepointUpgrade;
import io.keepsake.tool.internal.TextTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * {@code keepsake migrate JOB --upgrade SAVEPOINT...}: upgrades savepoints of an older format
 * version to the one this build writes, beside them ({@link SavepointUpgrade}); a second run says
 * "already migrated". Otherwise
 * {@code keepsake migrate JOB... | --all-jobs [--dry-run] [--savepoint-id ID] [--checkpoint [P:]ID]}: turns each job's
 * latest legacy v0 checkpoints (SeaTunnel 2.3.x files under {@code <namespace>/<jobId>/}) into a
 * savepoint bundle in the current format, marked {@code migratedFrom=legacy-v0}, and proves it by
 * reading it back through the reader registry and comparing it with the decoded checkpoints. The
 * legacy files are left as they are. Idempotent: when the job's latest checkpoints were migrated
 * already, it says so and exits 0. {@code --dry-run} decodes and reports, writing nothing.
 * {@code --checkpoint} migrates a chosen checkpoint instead of the newest (for one job). The
 * checkpoints are read and decoded before the savepoint side is opened, so a checkpoint that does
 * not decode fails with nothing created (not even the savepoint root). {@code --job JOB} is the
 * deprecated spelling of the positional job.
 */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = "Rewrite jobs' latest legacy v0 checkpoints as verified savepoints in the current format, or"
                + " with --upgrade a job's savepoints of an older format version (kept beside the new ones);"
                + " a second run reports 'already migrated'.")
public final class MigrateCommand extends StorageCommand {

    @Parameters(arity = "0..*", paramLabel = "JOB", description = "The jobs whose legacy checkpoints to migrate.")
    List<String> jobs = new ArrayList<>();

    @Option(names = "--job", paramLabel = "JOB", hidden = true,
            description = "Deprecated: give the job positionally, as every other command does.")
    List<String> deprecatedJobs = new ArrayList<>();

    @Option(names = "--all-jobs", description = "Migrate every job that has checkpoints under the namespace.")
    boolean allJobs;

    @Option(names = "--dry-run", description = "Decode and report what would be written; write nothing.")
    boolean dryRun;

    @Option(names = "--savepoint-id", paramLabel = "ID",
            description = "The new savepoint's id, with one job only (default: migrated-v0-p<pipeline>c<checkpoint>-...).")
    String savepointId;

    @Option(names = "--checkpoint", paramLabel = "[PIPELINE:]ID",
            description = "Migrate this checkpoint instead of the newest, with one job only: PIPELINE:ID for one"
                    + " pipeline (1:2), ID for every pipeline not named; repeatable. For a newest checkpoint that"
                    + " does not decode.")
    List<String> checkpoints = new ArrayList<>();

    @Option(names = "--upgrade", paramLabel = "SAVEPOINT",
            description = "Upgrade this savepoint of the one JOB from an older format version to the current one"
                    + " (repeatable): verified, copied to SAVEPOINT-v" + Versions.CURRENT_FORMAT_VERSION + ", read back;"
                    + " the old savepoint is kept until you delete it.")
    List<String> upgrades = new ArrayList<>();

    @Option(names = "--progress", paramLabel = "WHEN", defaultValue = "auto",
            description = "A progress line on stderr: auto (when stderr is a terminal and no --json), always, never"
                    + " (default: ${DEFAULT-VALUE}).")
    ProgressMode progressMode;

    /** Where savepoints are written or looked up, opened by {@link #savepointSide}; null until then. */
    private OpenedStorage savepointSide;

    private List<String> requested() {
        LinkedHashSet<String> all = new LinkedHashSet<>(jobs);
        all.addAll(deprecatedJobs);
        return new ArrayList<>(all);
    }

    @Override
    protected void validate() {
        List<String> requested = requested();
        if (allJobs == !requested.isEmpty()) {
            throw new ToolUsageException("Cannot migrate: name the JOB(s), or give --all-jobs, not "
                    + (allJobs ? "both" : "neither"));
        }
        if (savepointId != null && (allJobs || requested.size() != 1)) {
            throw new ToolUsageException("Cannot migrate: --savepoint-id names one savepoint, so give exactly one JOB ("
                    + savepointId + ")");
        }
        if (!checkpoints.isEmpty() && (allJobs || requested.size() != 1)) {
            throw new ToolUsageException("Cannot migrate: --checkpoint chooses checkpoints of one job, so give exactly"
                    + " one JOB (" + String.join(" ", checkpoints) + ")");
        }
        if (!upgrades.isEmpty() && (allJobs || requested.size() != 1 || savepointId != null || !checkpoints.isEmpty())) {
            throw new ToolUsageException("Cannot migrate: --upgrade upgrades savepoints of one job, so give exactly one"
                    + " JOB and neither --all-jobs, --savepoint-id nor --checkpoint (" + String.join(" ", upgrades) + ")");
        }
        CheckpointChoice.parse(checkpoints);
        if (!deprecatedJobs.isEmpty()) {
            err().println("keepsake migrate: --job is deprecated; give the job positionally: keepsake migrate "
                    + String.join(" ", deprecatedJobs));
            err().flush();
        }
    }

    /**
     * Opens the storage to read checkpoints only, creating nothing: the savepoint side is opened
     * ({@link #savepointSide}) once a job's checkpoints have decoded, so a migration that fails
     * on them leaves nothing behind.
     */
    @Override
    protected OpenedStorage openStorage(SavepointPath path) throws CheckpointStorageException {
        // an upgrade reads and writes savepoints under a root that must be there: opened creating nothing
        return upgrades.isEmpty() ? storageOptions.openForCheckpoints() : storageOptions.open(true, null);
    }

    /**
     * The storage the savepoints are written to (with its roots created) or, for a dry run, looked
     * up in (creating nothing); opened at the first job whose checkpoints decoded.
     */
    private OpenedStorage savepointSide() throws CheckpointStorageException {
        if (savepointSide == null) {
            savepointSide = storageOptions.open(dryRun, null);
        }
        return savepointSide;
    }

    /** Migrates (or with --dry-run plans) each job and prints what was written or found. */
    @Override
    protected int run(OpenedStorage checkpointSide) throws Exception {
        try {
            return migrateAll(checkpointSide);
        } finally {
            if (savepointSide != null) {
                savepointSide.close();
                savepointSide = null;
            }
        }
    }

    private int migrateAll(OpenedStorage checkpointSide) throws Exception {
        if (!upgrades.isEmpty()) {
            return upgradeAll(checkpointSide);
        }
        List<String> selected = allJobs ? allCheckpointJobs(checkpointSide) : requested();
        CheckpointChoice choice = CheckpointChoice.parse(checkpoints);
        List<MigratedJob> migrated = new ArrayList<>();
        Exception failure = null;
        try {
            for (String job : selected) {
                migrated.add(migrate(checkpointSide, job, choice));
            }
        } catch (RuntimeException | CheckpointStorageException e) {
            failure = e; // the jobs migrated before it are still reported in text
        }
        // The side written to when a job was migrated; otherwise the root as configured, opening nothing more.
        String root = savepointSide != null ? savepointSide.savepoints().savepointRoot()
                : storageOptions.configuredSavepointRoot().orElse(checkpointSide.savepoints().savepointRoot());
        return render(new Migration(root, dryRun, selected.isEmpty(), migrated, List.of(), failure));
    }

    /** Migrates (or with --dry-run plans) one job's legacy checkpoints into a savepoint. */
    private MigratedJob migrate(OpenedStorage checkpointSide, String job, CheckpointChoice choice)
            throws CheckpointStorageException {
        List<LegacyMigration.LegacyCheckpoint> legacy = LegacyMigration.read(checkpointSide.checkpoints(), job, choice);
        SavepointStorage savepoints = savepointSide().savepoints();
        LegacyMigration.Result result;
        try (Progress written = progress(progressMode, "migrate " + job + ": write", 0);
             Progress readBack = progress(progressMode, "migrate " + job + ": verify", 0)) {
            result = LegacyMigration.write(savepoints, job, legacy, savepointId, dryRun,
                    dryRun ? Progress.none() : written, dryRun ? Progress.none() : readBack);
        }
        String state = result.alreadyMigrated() ? "already migrated" : dryRun ? "would migrate" : "migrated";
        // the version the savepoint's metadata says, read back from the storage; null when none was written or found
        Integer formatVersion = result.handle() == null ? null
                : savepoints.readMetadata(job, result.handle().savepointId()).meta().formatVersion();
        return new MigratedJob(job, state, choice.newest() ? "latest" : "chosen", result, formatVersion);
    }

    /** Upgrades each savepoint named with --upgrade and renders what was written or found. */
    private int upgradeAll(OpenedStorage storage) throws Exception {
        String configured = storage.configuration().get(StorageOptions.FORMAT_VERSION);
        if (configured != null && !configured.trim().equals(Integer.toString(Versions.CURRENT_FORMAT_VERSION))) {
            throw new ToolUsageException("Cannot upgrade savepoints: " + StorageOptions.FORMAT_VERSION + "="
                    + configured + " makes this storage write that format version, and an upgrade writes version "
                    + Versions.CURRENT_FORMAT_VERSION + "; leave the key out");
        }
        String job = requested().get(0);
        List<UpgradedSavepoint> upgraded = new ArrayList<>();
        Exception failure = null;
        try {
            for (String savepoint : new LinkedHashSet<>(upgrades)) {
                try (Progress written = progress(progressMode, "upgrade " + savepoint + ": write", 0);
                     Progress readBack = progress(progressMode, "upgrade " + savepoint + ": verify", 0)) {
                    upgraded.add(new UpgradedSavepoint(job, savepoint, SavepointUpgrade.upgrade(storage.savepoints(),
                            job, savepoint, dryRun, dryRun ? Progress.none() : written,
                            dryRun ? Progress.none() : readBack)));
                }
            }
        } catch (RuntimeException e) {
            failure = e; // the savepoints upgraded before it are still reported in text
        }
        return render(new Migration(storage.savepoints().savepointRoot(), dryRun, false, List.of(), upgraded, failure));
    }

    /** One job's migration: {@code state} is "migrated", "would migrate" or "already migrated". */
    private record MigratedJob(String job, String state, String which, LegacyMigration.Result result,
                               Integer formatVersion) {

        Map<String, Object> record() {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("job", job);
            r.put("status", state.replace(' ', '-'));
            r.put("savepointId", result.savepointId());
            r.put("formatVersion", formatVersion);
            r.put("location", result.handle() == null ? null : result.handle().location());
            r.put("pipelines", result.migrated().stream().map(LegacyMigration.LegacyCheckpoint::pipelineId).toList());
            List<Map<String, Object>> sources = new ArrayList<>();
            for (LegacyMigration.LegacyCheckpoint l : result.migrated()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("pipeline", l.pipelineId());
                m.put("checkpoint", l.checkpointId());
                m.put("type", l.checkpoint().checkpointType().typeName());
                m.put("source", l.source());
                sources.add(m);
            }
            r.put("checkpoints", sources);
            return r;
        }

        void printText(PrintWriter out) {
            String headline = switch (state) {
                case "already migrated" -> "Job " + job + ": already migrated, nothing written; its " + which
                        + " legacy v0 checkpoints are in savepoint " + result.savepointId();
                case "would migrate" -> "Job " + job + ": dry run, nothing written; would migrate these " + which
                        + " legacy v0 checkpoints into savepoint " + result.savepointId() + ":";
                default -> "Migrated the " + which + " legacy v0 checkpoints of job " + job + ":";
            };
            out.println(headline);
            TextTable table = new TextTable("PIPELINE", "CHECKPOINT", "TYPE", "SOURCE");
            for (LegacyMigration.LegacyCheckpoint l : result.migrated()) {
                table.row(l.pipelineId(), l.checkpointId(), l.checkpoint().checkpointType().typeName(), l.source());
            }
            table.print(out, "  ");
            if (result.handle() != null) {
                out.println("Savepoint " + result.handle().savepointId());
                out.println("Path      " + result.handle().location());
            }
            if ("migrated".equals(state)) {
                out.println("Verified  read back through the reader registry (format version "
                        + formatVersion + "), equal to the decoded legacy checkpoints for "
                        + result.migrated().size() + " pipeline(s)");
            }
        }
    }

    /** One savepoint's upgrade to the current format version. */
    private record UpgradedSavepoint(String job, String from, SavepointUpgrade.Result result) {

        Map<String, Object> record() {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("job", job);
            r.put("from", from);
            r.put("fromFormatVersion", result.source().meta().formatVersion());
            r.put("status", result.status().word());
            r.put("savepointId", result.targetId());
            r.put("formatVersion", Versions.CURRENT_FORMAT_VERSION);
            r.put("location", result.target() == null ? null : result.target().location());
            r.put("pipelines", result.source().meta().manifest().stream().map(e -> e.pipelineId()).sorted().toList());
            return r;
        }

        void printText(PrintWriter out) {
            String source = result.source().savepointId();
            int version = result.source().meta().formatVersion();
            switch (result.status()) {
                case ALREADY_MIGRATED -> out.println(result.targetId().equals(source)
                        ? "Savepoint " + source + " of job " + job + ": already migrated, it is in format version "
                                + version + "; nothing written"
                        : "Savepoint " + source + " of job " + job + ": already migrated to format version "
                                + Versions.CURRENT_FORMAT_VERSION + " as savepoint " + result.targetId()
                                + "; nothing written");
                case WOULD_UPGRADE -> out.println("Savepoint " + source + " of job " + job + ": dry run, nothing"
                        + " written; it verified in format version " + version + " and would be upgraded to format"
                        + " version " + Versions.CURRENT_FORMAT_VERSION + " as savepoint " + result.targetId());
                default -> {
                    out.println("Upgraded savepoint " + source + " of job " + job + " from format version " + version
                            + " to " + Versions.CURRENT_FORMAT_VERSION + ":");
                    out.println("Savepoint " + result.targetId());
                    out.println("Path      " + result.target().location());
                    out.println("Verified  " + source + " read whole first; " + result.targetId() + " read back"
                            + " through the reader registry (format version " + Versions.CURRENT_FORMAT_VERSION
                            + "), every chunk verified, its payloads byte for byte those of " + source);
                    out.println("Kept      " + source + " (format version " + version + ") for a build that reads"
                            + " only version " + version + "; delete it when no longer needed: keepsake delete " + job
                            + " " + source + " --yes");
                }
            }
        }
    }

    /**
     * What a migrate run wrote or found: the jobs migrated or the savepoints upgraded (one of the
     * two lists is empty), and the error that stopped it, if one did.
     */
    private record Migration(String savepointRoot, boolean dryRun, boolean noJobs, List<MigratedJob> jobs,
                             List<UpgradedSavepoint> upgrades, Exception failure) implements CommandResult {

        @Override
        public int exitCode() {
            return ExitCodes.OK;
        }

        @Override
        public void putJson(Map<String, Object> doc) {
            doc.put("savepointRoot", savepointRoot);
            doc.put("dryRun", dryRun);
            doc.put("jobs", jobs.stream().map(MigratedJob::record).toList());
            doc.put("upgrades", upgrades.stream().map(UpgradedSavepoint::record).toList());
        }

        @Override
        public void printText(PrintWriter out) {
            jobs.forEach(j -> j.printText(out));
            upgrades.forEach(u -> u.printText(out));
            if (noJobs) {
                out.println("No job with checkpoints to migrate");
            }
        }
    }

    private static List<String> allCheckpointJobs(OpenedStorage storage) {
        KeepsakeStorage keepsake = storage.keepsake().orElseThrow(() -> new ToolUsageException("Cannot migrate"
                + " --all-jobs: backend '" + storage.backend() + "' does not list its checkpoint jobs; name the jobs"));
        List<String> result = new ArrayList<>();
        try {
            for (String job : keepsake.checkpointJobs()) {
                if (!keepsake.checkpointFiles(job).isEmpty()) {
                    result.add(job);
                }
            }
        } catch (CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot migrate --all-jobs: listing the checkpoint jobs failed: "
                    + e.getMessage(), e);
        }
        return result;
    }
}
