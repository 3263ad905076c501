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
import io.keepsake.tool.internal.Json;
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

    /** Scans the selected jobs and renders one row per savepoint directory and one per job with checkpoints. */
    @Override
    protected int run(OpenedStorage storage) throws Exception {
        SavepointStorage savepoints = storage.savepoints();
        Optional<KeepsakeStorage> keepsake = storage.keepsake();
        List<String> checkpointJobs = keepsake.map(ListCommand::checkpointJobs).orElse(List.of());
        List<String> selected = selectedJobs(savepoints.listJobs(), checkpointJobs);
        List<ListedSavepoint> listed = listSavepoints(savepoints, selected);
        List<String> jobsWithSavepoints = listed.stream().map(ListedSavepoint::job).toList();
        List<ListedCheckpoints> checkpoints = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String job : selected) {
            Optional<LegacyMigration.Pending> pending = keepsake.isPresent() && checkpointJobs.contains(job)
                    ? LegacyMigration.plan(keepsake.get(), job) : Optional.empty();
            pending.ifPresent(p -> checkpoints.add(new ListedCheckpoints(job, p)));
            if (!jobs.isEmpty() && !jobsWithSavepoints.contains(job) && pending.isEmpty()) {
                missing.add(job);
            }
        }
        String root = savepoints.savepointRoot();
        SavepointNotFoundException notFound = missing.isEmpty() ? null : new SavepointNotFoundException("Cannot list "
                + (missing.size() == 1 ? "job " + missing.get(0) + ": it has" : "jobs " + String.join(", ", missing)
                + ": they have") + " no savepoint under " + root
                + (keepsake.isPresent() ? " and no checkpoint under " + keepsake.get().namespace() : ""));
        return render(new Listing(root, keepsake.map(KeepsakeStorage::namespace).orElse(null),
                jobs.isEmpty() ? List.of() : selected, verify, storageOptions.configuredSavepointRoot().isEmpty(), listed,
                checkpoints, missing, notFound));
    }

    /** The jobs asked for, each once in the order given; or every job under either root, sorted. */
    private List<String> selectedJobs(List<String> savepointJobs, List<String> checkpointJobs) {
        if (!jobs.isEmpty()) {
            return new ArrayList<>(new LinkedHashSet<>(jobs));
        }
        TreeSet<String> all = new TreeSet<>(savepointJobs);
        all.addAll(checkpointJobs);
        return new ArrayList<>(all);
    }

    /** Every savepoint directory of the selected jobs with its status, checking payloads with --verify. */
    private List<ListedSavepoint> listSavepoints(SavepointStorage savepoints, List<String> selected) {
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
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
        List<ListedSavepoint> listed = new ArrayList<>();
        try (Progress progress = verify ? progress(progressMode, "list --verify", total) : Progress.none()) {
            SavepointStorage metered = new MeteredSavepointStorage(savepoints, progress);
            for (int i = 0; i < entries.size(); i++) {
                SavepointEntry entry = entries.get(i);
                String job = entryJobs.get(i);
                SavepointStatus status = SavepointStatus.of(entry, registry);
                if (verify && status.state() == SavepointStatus.State.OK) {
                    status = SavepointStatus.of(SavepointVerifier.verify(metered, registry, job, entry.savepointId()));
                }
                listed.add(new ListedSavepoint(job, entry, status));
            }
        }
        return listed;
    }

    /** One savepoint directory and its status. */
    private record ListedSavepoint(String job, SavepointEntry entry, SavepointStatus status) {
        SavepointMeta meta() {
            return entry.handle().map(h -> h.meta()).orElse(null);
        }

        Map<String, Object> record() {
            return SavepointRecord.of(job, entry.savepointId(), entry.location(), meta(), status);
        }
    }

    /** One job with checkpoints in the namespace, and what migrate would do for it. */
    private record ListedCheckpoints(String job, LegacyMigration.Pending pending) {
        Map<String, Object> record() {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("job", job);
            r.put("pipelines", pending.pipelines());
            List<Map<String, Object>> latest = new ArrayList<>();
            for (CheckpointFile f : pending.newest()) {
                latest.add(Json.fileRecord(f.pipelineId(), f.checkpointId(), "checkpointFile", f.path(), f.length()));
            }
            r.put("latestCheckpoints", latest);
            r.put("files", pending.files());
            r.put("bytes", pending.bytes());
            Map<String, Object> migrate = new LinkedHashMap<>();
            migrate.put("state", pending.migrated() ? "migrated" : pending.kept() ? "kept" : "pending");
            migrate.put("savepointId", pending.savepointId());
            r.put("migrate", migrate);
            return r;
        }

        String migrateText() {
            return pending.migrated() ? "already migrated to " + pending.savepointId()
                    : pending.kept() ? "not needed: already in savepoint " + String.join(", ", pending.keptIn())
                    : "keepsake migrate " + job + " would write " + pending.savepointId();
        }
    }

    /** What list found: the savepoint directories, the jobs with checkpoints, and the jobs asked for that have neither. */
    private record Listing(String savepointRoot, String namespace, List<String> jobsAsked, boolean verified,
                           boolean defaultRoot, List<ListedSavepoint> savepoints, List<ListedCheckpoints> checkpoints,
                           List<String> missing, SavepointNotFoundException notFound) implements CommandResult {

        @Override
        public int exitCode() {
            List<Integer> codes = new ArrayList<>();
            savepoints.forEach(s -> codes.add(s.status().exitCode()));
            missing.forEach(m -> codes.add(ExitCodes.NOT_FOUND));
            return ExitCodes.worst(codes);
        }

        @Override
        public List<String> warnings() {
            return savepoints.stream().map(ListedSavepoint::status).filter(s -> s.exitCode() != ExitCodes.OK)
                    .map(s -> "keepsake list: " + s.state().word() + ": " + s.reason()).toList();
        }

        /** A job asked for that is not there is an error, as for inspect and verify. */
        @Override
        public Exception failure() {
            return notFound;
        }

        @Override
        public void putJson(Map<String, Object> doc) {
            doc.put("savepointRoot", savepointRoot);
            doc.put("namespace", namespace);
            doc.put("statusChecked", verified ? "payloads" : "metadata");
            doc.put("savepoints", savepoints.stream().map(ListedSavepoint::record).toList());
            doc.put("checkpointJobs", checkpoints.stream().map(ListedCheckpoints::record).toList());
            doc.put("missingJobs", missing);
        }

        @Override
        public void printText(PrintWriter out) {
            if (savepoints.isEmpty()) {
                out.println("No savepoints " + (jobsAsked.isEmpty() ? "" : "of job(s) " + String.join(", ", jobsAsked)
                        + " ") + "under " + savepointRoot
                        + (!defaultRoot ? ""
                        : " (the default savepoint root; an engine that sets savepoint.path keeps them there:"
                        + " give --savepoint-path, or --config with its seatunnel.yaml)"));
            } else {
                savepointTable().print(out, "");
                out.println();
                out.println(savepoints.size() + " savepoint director" + (savepoints.size() == 1 ? "y" : "ies")
                        + " under " + savepointRoot + "; STATUS checked "
                        + (verified ? "metadata and every payload (--verify)"
                        : "metadata only; add --verify to read every payload"));
            }
            if (!checkpoints.isEmpty()) {
                out.println();
                out.println("Jobs with checkpoints under " + namespace
                        + " (SeaTunnel 2.3.x format; migrate writes the latest of each pipeline as a savepoint)");
                TextTable table = new TextTable("JOB", "PIPELINES", "LATEST CHECKPOINTS", "FILES", "BYTES", "MIGRATE");
                for (ListedCheckpoints c : checkpoints) {
                    LegacyMigration.Pending p = c.pending();
                    table.row(c.job(), joined(p.pipelines()), latestText(p), p.files(), p.bytes(), c.migrateText());
                }
                table.print(out, "");
            }
        }

        private TextTable savepointTable() {
            TextTable table = new TextTable("JOB", "SAVEPOINT", "KIND", "FORMAT", "COMPLETED", "PIPELINES", "BYTES",
                    "STATUS");
            for (ListedSavepoint s : savepoints) {
                Map<String, Object> r = s.record();
                table.row(s.job(), s.entry().savepointId(), r.get("kind"), r.get("formatVersion"), r.get("completed"),
                        s.meta() == null ? null : joined(Formats.pipelines(s.meta())), r.get("bytes"),
                        s.status().display());
            }
            return table;
        }
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
