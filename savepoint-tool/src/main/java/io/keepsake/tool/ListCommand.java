package io.keepsake.tool;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.CheckpointFile;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.tool.internal.Formats;
import io.keepsake.tool.internal.LegacyMigration;
import io.keepsake.tool.internal.MeteredSavepointStorage;
import io.keepsake.tool.internal.Progress;
import io.keepsake.tool.internal.SavepointRecord;
import io.keepsake.tool.internal.SavepointStatus;
import io.keepsake.tool.internal.SavepointVerifier;
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
import java.util.Optional;
import java.util.TreeSet;

/**
 * {@code keepsake list [JOB...] [--verify]}: every savepoint directory of every job (or of the
 * given jobs), newest first, with what its metadata says and its status, then the jobs that have
 * checkpoints in the namespace (SeaTunnel 2.3.x files included) with what {@code migrate} would do
 * for them. Without {@code --verify} the status checks metadata only; with it every payload is
 * read and decoded as {@code verify} does. A folder without metadata is incomplete, or foreign when it
 * holds an entry Keepsake does not write (garbage collection keeps it). Exits 4 when a listed
 * savepoint is corrupted, else 5 when one is incompatible, else 6 when (with {@code --verify}) the
 * tool's JVM ran out of heap or stack reading one (each with its one-line reason on stderr, as
 * {@code verify} prints it), else 0. A job asked for that has neither savepoints nor checkpoints
 * is an error: the others are still listed in text, then one "not found" line goes to stderr and
 * the run exits 3, whatever the listed savepoints' status; with {@code --json} only the error
 * document is printed, as {@code inspect} and {@code verify} print theirs.
 */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List savepoints of all jobs, or of the given jobs, newest first, and the jobs with checkpoints"
                + " that migrate would turn into a savepoint. STATUS checks metadata only unless --verify.")
public final class ListCommand extends StorageCommand {

    @Parameters(paramLabel = "JOB", arity = "0..*", description = "Job ids; default: every job under either root.")
    List<String> jobs = new ArrayList<>();

    @Option(names = "--verify", description = "Also read, check and decode every payload, as verify does.")
    boolean verify;

    @Option(names = "--progress", paramLabel = "WHEN", defaultValue = "auto",
            description = "With --verify, a progress line on stderr: auto (when stderr is a terminal and no --json),"
                    + " always, never (default: ${DEFAULT-VALUE}).")
    ProgressMode progressMode;

    /** Scans the selected jobs and prints one row per savepoint directory and one per job with checkpoints. */
    @Override
    protected int run(OpenedStorage storage) {
        SavepointStorage savepoints = storage.savepoints();
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
        Optional<KeepsakeStorage> keepsake = storage.keepsake();
        List<String> savepointJobs = savepoints.listJobs();
        List<String> checkpointJobs = keepsake.map(ListCommand::checkpointJobs).orElse(List.of());
        List<String> selected;
        if (jobs.isEmpty()) {
            TreeSet<String> all = new TreeSet<>(savepointJobs);
            all.addAll(checkpointJobs);
            selected = new ArrayList<>(all);
        } else {
            selected = new ArrayList<>(new LinkedHashSet<>(jobs));
        }

        List<SavepointEntry> entries = new ArrayList<>();
        List<String> entryJobs = new ArrayList<>();
        long total = 0;
        for (String job : selected) {
            for (SavepointEntry entry : savepoints.scanSavepoints(job)) {
                entries.add(entry);
                entryJobs.add(job);
                total += entry.handle().map(h -> Formats.totalBytes(h.meta())).orElse(0L);
            }
        }

        List<Integer> codes = new ArrayList<>();
        List<Map<String, Object>> records = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TextTable table = new TextTable("JOB", "SAVEPOINT", "KIND", "FORMAT", "COMPLETED", "PIPELINES", "BYTES",
                "STATUS");
        try (Progress progress = verify ? progress(progressMode, "list --verify", total) : Progress.none()) {
            SavepointStorage metered = new MeteredSavepointStorage(savepoints, progress);
            for (int i = 0; i < entries.size(); i++) {
                SavepointEntry entry = entries.get(i);
                String job = entryJobs.get(i);
                SavepointStatus status = SavepointStatus.of(entry, registry);
                if (verify && status.state() == SavepointStatus.State.OK) {
                    status = SavepointStatus.of(SavepointVerifier.verify(metered, registry, job, entry.savepointId()));
                }
                codes.add(status.exitCode());
                SavepointMeta meta = entry.handle().map(h -> h.meta()).orElse(null);
                Map<String, Object> r = SavepointRecord.of(job, entry.savepointId(), entry.location(), meta, status);
                if (status.exitCode() != ExitCodes.OK) {
                    problems.add("keepsake list: " + status.state().word() + ": " + status.reason());
                }
                records.add(r);
                table.row(job, entry.savepointId(), r.get("kind"), r.get("formatVersion"), r.get("completed"),
                        meta == null ? null : joined(Formats.pipelines(meta)), r.get("bytes"), status.display());
            }
        }
        problems.forEach(err()::println);

        List<Map<String, Object>> checkpointRecords = new ArrayList<>();
        TextTable checkpointTable = new TextTable("JOB", "PIPELINES", "LATEST CHECKPOINTS", "FILES", "BYTES", "MIGRATE");
        List<String> missing = new ArrayList<>();
        for (String job : selected) {
            Optional<LegacyMigration.Pending> pending = keepsake.isPresent() && checkpointJobs.contains(job)
                    ? LegacyMigration.plan(keepsake.get(), job) : Optional.empty();
            pending.ifPresent(p -> {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("job", job);
                r.put("pipelines", p.pipelines());
                List<Map<String, Object>> latest = new ArrayList<>();
                for (CheckpointFile f : p.newest()) {
                    Map<String, Object> l = new LinkedHashMap<>();
                    l.put("pipeline", f.pipelineId());
                    l.put("checkpoint", f.checkpointId());
                    l.put("checkpointFile", f.path());
                    l.put("file", f.path()); // the version 2 name of checkpointFile, kept until version 3
                    l.put("bytes", f.length());
                    latest.add(l);
                }
                r.put("latestCheckpoints", latest);
                r.put("files", p.files());
                r.put("bytes", p.bytes());
                Map<String, Object> migrate = new LinkedHashMap<>();
                migrate.put("state", p.migrated() ? "migrated" : p.kept() ? "kept" : "pending");
                migrate.put("savepointId", p.savepointId());
                r.put("migrate", migrate);
                checkpointRecords.add(r);
                checkpointTable.row(job, joined(p.pipelines()), latestText(p), p.files(), p.bytes(),
                        p.migrated() ? "already migrated to " + p.savepointId()
                                : p.kept() ? "not needed: already in savepoint " + String.join(", ", p.keptIn())
                                : "keepsake migrate " + job + " would write " + p.savepointId());
            });
            boolean hasSavepointDirs = entryJobs.contains(job);
            if (!jobs.isEmpty() && !hasSavepointDirs && pending.isEmpty()) {
                missing.add(job);
                codes.add(ExitCodes.NOT_FOUND);
            }
        }
        err().flush();
        SavepointNotFoundException notFound = missing.isEmpty() ? null : new SavepointNotFoundException("Cannot list "
                + (missing.size() == 1 ? "job " + missing.get(0) + ": it has" : "jobs " + String.join(", ", missing)
                + ": they have") + " no savepoint under " + savepoints.savepointRoot()
                + (keepsake.isPresent() ? " and no checkpoint under " + keepsake.get().namespace() : ""));

        PrintWriter out = out();
        if (json && notFound != null) {
            // A job asked for that is not there is an error document, as for inspect and verify.
            throw notFound;
        }
        if (json) {
            Map<String, Object> doc = document();
            doc.put("savepointRoot", savepoints.savepointRoot());
            doc.put("namespace", keepsake.map(KeepsakeStorage::namespace).orElse(null));
            doc.put("statusChecked", verify ? "payloads" : "metadata");
            doc.put("savepoints", records);
            doc.put("checkpointJobs", checkpointRecords);
            doc.put("missingJobs", missing);
            printJson(doc);
        } else {
            if (table.isEmpty()) {
                out.println("No savepoints " + (jobs.isEmpty() ? "" : "of job(s) " + String.join(", ", selected) + " ")
                        + "under " + savepoints.savepointRoot()
                        + (storageOptions.configuredSavepointRoot().isPresent() ? ""
                        : " (the default savepoint root; an engine that sets savepoint.path keeps them there:"
                        + " give --savepoint-path, or --config with its seatunnel.yaml)"));
            } else {
                table.print(out, "");
                out.println();
                out.println(records.size() + " savepoint director" + (records.size() == 1 ? "y" : "ies") + " under "
                        + savepoints.savepointRoot() + "; STATUS checked "
                        + (verify ? "metadata and every payload (--verify)"
                        : "metadata only; add --verify to read every payload"));
            }
            if (!checkpointTable.isEmpty()) {
                out.println();
                out.println("Jobs with checkpoints under " + keepsake.get().namespace()
                        + " (SeaTunnel 2.3.x format; migrate writes the latest of each pipeline as a savepoint)");
                checkpointTable.print(out, "");
            }
            out.flush();
        }
        if (notFound != null) {
            throw notFound;
        }
        return ExitCodes.worst(codes);
    }

    private static List<String> checkpointJobs(KeepsakeStorage storage) {
        try {
            return storage.checkpointJobs();
        } catch (CheckpointStorageException e) {
            throw new SavepointStorageException("Cannot list the jobs with checkpoints: " + e.getMessage(), e);
        }
    }

    private static String latestText(LegacyMigration.Pending p) {
        StringBuilder b = new StringBuilder();
        for (CheckpointFile f : p.newest()) {
            b.append(b.length() == 0 ? "" : ", ").append("p").append(f.pipelineId()).append(": ").append(f.checkpointId());
        }
        return b.toString();
    }

    private static String joined(List<Integer> pipelines) {
        StringBuilder b = new StringBuilder();
        for (Integer p : pipelines) {
            b.append(b.length() == 0 ? "" : ",").append(p);
        }
        return b.toString();
    }
}
