package io.keepsake.tool;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.Json;
import io.keepsake.tool.internal.SavepointVerifier;
import io.keepsake.tool.internal.SavepointVerifier.Failure;
import io.keepsake.tool.internal.SavepointVerifier.Outcome;
import io.keepsake.tool.internal.TextTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code keepsake verify [JOB [SAVEPOINT]]}: reads every byte of the selected savepoints (all of
 * them, a job's, or one), checks metadata, lengths and SHA-256 and decodes every payload through
 * the reader registry, then reports OK or FAILED with the typed reason for each. Directories
 * without {@code _metadata.ser} are in flight or abandoned, not savepoints: they are reported as
 * skipped and do not fail the run, unless one was asked for by id. Exits 4 when any savepoint is
 * corrupted, else 5 when any is incompatible, else 3 when one asked for is missing, else 1 for
 * any other failure.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Read and check every byte of all savepoints, of one job's, or of one savepoint.")
public final class VerifyCommand extends StorageCommand {

    @Parameters(index = "0", arity = "0..1", paramLabel = "JOB", description = "Only this job's savepoints.")
    String job;

    @Parameters(index = "1", arity = "0..1", paramLabel = "SAVEPOINT", description = "Only this savepoint.")
    String savepointId;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    private record Row(String job, String savepointId, Outcome outcome) {
        boolean skipped() {
            return outcome == null;
        }
    }

    /** Verifies the selected savepoints and prints one result per savepoint. */
    @Override
    protected int run(OpenedStorage storage) {
        SavepointStorage savepoints = storage.savepoints();
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
        List<Row> rows = new ArrayList<>();
        if (job != null && savepointId != null) {
            rows.add(new Row(job, savepointId, SavepointVerifier.verify(savepoints, registry, job, savepointId)));
        } else {
            List<String> jobs = job != null ? List.of(job) : savepoints.listJobs();
            for (String j : jobs) {
                for (SavepointEntry entry : savepoints.scanSavepoints(j)) {
                    rows.add(new Row(j, entry.savepointId(), entry.incomplete() ? null
                            : SavepointVerifier.verify(savepoints, registry, j, entry.savepointId())));
                }
            }
            if (job != null && rows.isEmpty()) {
                throw new SavepointNotFoundException("Cannot verify savepoints of job " + job
                        + ": it has no savepoint directory under " + savepoints.savepointRoot());
            }
        }
        print(rows, savepoints.savepointRoot());
        return exitCode(rows);
    }

    private void print(List<Row> rows, String root) {
        PrintWriter out = out();
        int ok = 0;
        int failed = 0;
        int skipped = 0;
        TextTable table = new TextTable("JOB", "SAVEPOINT", "RESULT", "PIPELINES", "BYTES", "DETAIL");
        List<Map<String, Object>> records = new ArrayList<>();
        for (Row row : rows) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("job", row.job());
            r.put("savepointId", row.savepointId());
            if (row.skipped()) {
                skipped++;
                r.put("result", "skipped");
                r.put("reason", "incomplete: no _metadata.ser");
                table.row(row.job(), row.savepointId(), "SKIPPED", null, null, "incomplete: no _metadata.ser");
            } else if (row.outcome().ok()) {
                ok++;
                r.put("result", "ok");
                r.put("pipelines", row.outcome().pipelines());
                r.put("bytes", row.outcome().bytes());
                table.row(row.job(), row.savepointId(), "OK", row.outcome().pipelines(), row.outcome().bytes(),
                        "every byte verified and decoded");
            } else {
                failed++;
                Outcome o = row.outcome();
                r.put("result", "failed");
                r.put("failure", o.failure().word());
                r.put("message", o.message());
                r.put("file", o.file());
                table.row(row.job(), row.savepointId(), "FAILED", null, null, o.failure().word() + ": " + o.message());
                err().println("keepsake verify: " + o.failure().word() + ": " + o.message());
            }
            records.add(r);
        }
        err().flush();
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("savepointRoot", root);
            doc.put("ok", ok);
            doc.put("failed", failed);
            doc.put("skipped", skipped);
            doc.put("savepoints", records);
            out.println(Json.write(doc));
        } else if (rows.isEmpty()) {
            out.println("No savepoints to verify under " + root);
        } else {
            table.print(out, "");
            out.println();
            out.println("Verified " + (ok + failed) + " savepoint(s) under " + root + ": " + ok + " ok, " + failed
                    + " failed" + (skipped > 0 ? ", " + skipped + " incomplete director" + (skipped == 1 ? "y" : "ies")
                    + " skipped" : ""));
        }
        out.flush();
    }

    private static int exitCode(List<Row> rows) {
        List<Failure> failures = rows.stream().filter(r -> !r.skipped() && !r.outcome().ok())
                .map(r -> r.outcome().failure()).toList();
        if (failures.contains(Failure.CORRUPTED)) {
            return ExitCodes.CORRUPTED;
        }
        if (failures.contains(Failure.INCOMPATIBLE)) {
            return ExitCodes.INCOMPATIBLE;
        }
        if (failures.contains(Failure.NOT_FOUND)) {
            return ExitCodes.NOT_FOUND;
        }
        return failures.isEmpty() ? ExitCodes.OK : ExitCodes.FAILURE;
    }
}
