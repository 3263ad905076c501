package io.keepsake.tool;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.tool.internal.Formats;
import io.keepsake.tool.internal.MeteredSavepointStorage;
import io.keepsake.tool.internal.Progress;
import io.keepsake.tool.internal.SavepointRecord;
import io.keepsake.tool.internal.SavepointStatus;
import io.keepsake.tool.internal.SavepointVerifier;
import io.keepsake.tool.internal.SavepointVerifier.Outcome;
import io.keepsake.tool.internal.TextTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * {@code keepsake verify [JOB [SAVEPOINT] | PATH]}: reads every byte of the selected savepoints
 * (all of them, a job's, or one), checks metadata, lengths and SHA-256 and decodes every payload
 * through the reader registry, then reports OK or FAILED with the typed reason for each. Directories
 * without {@code _metadata.ser} are in flight or abandoned, not savepoints: they are reported as
 * skipped and do not fail the run, unless one was asked for by id. A progress line (bytes, rate,
 * ETA) goes to stderr when it is a terminal. Exits 4 when any savepoint is corrupted, else 5 when
 * any is incompatible, else 6 when the tool's JVM ran out of heap or stack reading one, else 3 when
 * the one asked for, or every savepoint of the job asked for, is missing, else 1 for any other failure.
 * A job or savepoint asked for that is not there is an error, not a result: one "not found" line on
 * stderr and, with {@code --json}, the error document, as {@code inspect} and {@code list} print it.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Read and check every byte of all savepoints, of one job's, or of one savepoint (by ids or by"
                + " its directory path).")
public final class VerifyCommand extends StorageCommand {

    @Parameters(arity = "0..2", paramLabel = "JOB [SAVEPOINT] | PATH",
            description = "Only this job's savepoints, only this savepoint, or the savepoint at this directory path.")
    List<String> arguments = new ArrayList<>();

    @Option(names = "--progress", paramLabel = "WHEN", defaultValue = "auto",
            description = "A progress line on stderr: auto (when stderr is a terminal and no --json), always, never"
                    + " (default: ${DEFAULT-VALUE}).")
    ProgressMode progressMode;

    /** One directory to verify: {@code skipped} is its status when it holds no savepoint to read, else null. */
    private record Target(String job, String savepointId, String location, SavepointStatus skipped) {
    }

    /** One directory's result: its status and, when it was read, the verifier's outcome. */
    private record Row(Target target, SavepointStatus status, Outcome outcome) {
        boolean skipped() {
            return outcome == null;
        }
    }

    @Override
    SavepointTarget target() {
        return SavepointTarget.of("verify", arguments);
    }

    /** Verifies the selected savepoints and renders one result per savepoint. */
    @Override
    protected int run(OpenedStorage storage) throws Exception {
        SavepointTarget t = target();
        SavepointStorage savepoints = storage.savepoints();
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
        List<Target> selected = new ArrayList<>();
        long total = t.savepointId() != null ? selectOne(savepoints, t, selected)
                : selectAll(savepoints, registry, t.jobId(), selected);
        List<Row> rows = new ArrayList<>();
        try (Progress progress = progress(progressMode, "verify", total)) {
            SavepointStorage metered = new MeteredSavepointStorage(savepoints, progress);
            for (Target s : selected) {
                if (s.skipped() != null) {
                    rows.add(new Row(s, s.skipped(), null));
                } else {
                    Outcome o = SavepointVerifier.verify(metered, registry, s.job(), s.savepointId());
                    if (t.savepointId() != null && o.failure() == SavepointVerifier.Failure.NOT_FOUND) {
                        // The one savepoint asked for is not there: an error, as inspect and verify JOB report it.
                        throw new SavepointNotFoundException(o.message());
                    }
                    rows.add(new Row(s, SavepointStatus.of(o), o));
                }
            }
        }
        return render(new Verification(savepoints.savepointRoot(), rows));
    }

    /** Selects the one savepoint asked for; returns its bytes when a progress line needs a total. */
    private long selectOne(SavepointStorage savepoints, SavepointTarget t, List<Target> selected) {
        selected.add(new Target(t.jobId(), t.savepointId(), null, null));
        // Only for the progress line's total; without one, the metadata is read once, by the verifier.
        return progressShown(progressMode) ? bytesOf(savepoints, t.jobId(), t.savepointId()) : 0;
    }

    /** Selects every savepoint directory of {@code job} (or of every job when null); returns their bytes. */
    private static long selectAll(SavepointStorage savepoints, SavepointReaderRegistry registry, String job,
                                  List<Target> selected) {
        long total = 0;
        for (String j : job != null ? List.of(job) : savepoints.listJobs()) {
            for (SavepointEntry entry : savepoints.scanSavepoints(j)) {
                SavepointStatus status = SavepointStatus.of(entry, registry);
                selected.add(new Target(j, entry.savepointId(), entry.location(), status.skipped() ? status : null));
                total += entry.handle().map(h -> Formats.totalBytes(h.meta())).orElse(0L);
            }
        }
        if (job != null && selected.isEmpty()) {
            throw new SavepointNotFoundException("Cannot verify savepoints of job " + job
                    + ": it has no savepoint directory under " + savepoints.savepointRoot());
        }
        return total;
    }

    private static long bytesOf(SavepointStorage savepoints, String job, String savepointId) {
        try {
            SavepointHandle handle = savepoints.readMetadata(job, savepointId);
            return Formats.totalBytes(handle.meta());
        } catch (SavepointStorageException e) {
            return 0; // the verifier reports it
        }
    }

    /** The results of a verification, one row per directory. */
    private record Verification(String savepointRoot, List<Row> rows) implements CommandResult {

        @Override
        public int exitCode() {
            return ExitCodes.worst(rows.stream().map(r -> r.status().exitCode()).toList());
        }

        @Override
        public List<String> warnings() {
            return rows.stream().filter(r -> !r.skipped() && !r.outcome().ok())
                    .map(r -> "keepsake verify: " + r.outcome().failure().word() + ": " + r.outcome().message()).toList();
        }

        private long count(Predicate<Row> which) {
            return rows.stream().filter(which).count();
        }

        @Override
        public void putJson(Map<String, Object> doc) {
            doc.put("savepointRoot", savepointRoot);
            doc.put("ok", (int) count(r -> !r.skipped() && r.outcome().ok()));
            doc.put("failed", (int) count(r -> !r.skipped() && !r.outcome().ok()));
            doc.put("skipped", (int) count(Row::skipped));
            doc.put("savepoints", rows.stream().map(Verification::record).toList());
        }

        private static Map<String, Object> record(Row row) {
            Target t = row.target();
            Outcome o = row.outcome();
            SavepointMeta meta = o != null && o.handle() != null ? o.handle().meta() : null;
            String location = o != null && o.handle() != null ? o.handle().location()
                    : t.location() != null ? t.location() : SavepointRecord.locationOf(row.status().file());
            return SavepointRecord.of(t.job(), t.savepointId(), location, meta, row.status());
        }

        @Override
        public void printText(PrintWriter out) {
            if (rows.isEmpty()) {
                out.println("No savepoints to verify under " + savepointRoot);
                return;
            }
            TextTable table = new TextTable("JOB", "SAVEPOINT", "RESULT", "PIPELINES", "BYTES", "DETAIL");
            for (Row row : rows) {
                Target t = row.target();
                Outcome o = row.outcome();
                if (row.skipped()) {
                    table.row(t.job(), t.savepointId(), "SKIPPED", null, null,
                            row.status().state().word() + ": " + row.status().reason());
                } else if (o.ok()) {
                    table.row(t.job(), t.savepointId(), "OK", joined(o.pipelines()), o.bytes(),
                            "every byte verified and decoded");
                } else {
                    table.row(t.job(), t.savepointId(), "FAILED", null, null, o.failure().word() + ": " + o.message());
                }
            }
            table.print(out, "");
            out.println();
            long ok = count(r -> !r.skipped() && r.outcome().ok());
            long failed = count(r -> !r.skipped() && !r.outcome().ok());
            long skipped = count(Row::skipped);
            out.println("Verified " + (ok + failed) + " savepoint(s) under " + savepointRoot + ": " + ok + " ok, " + failed
                    + " failed" + (skipped > 0 ? ", " + skipped + " incomplete director" + (skipped == 1 ? "y" : "ies")
                    + " skipped" : ""));
        }
    }

    private static String joined(List<Integer> pipelines) {
        StringBuilder b = new StringBuilder();
        for (Integer p : pipelines) {
            b.append(b.length() == 0 ? "" : ",").append(p);
        }
        return b.toString();
    }
}
