package io.keepsake.tool;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.Formats;
import io.keepsake.tool.internal.Json;
import io.keepsake.tool.internal.SavepointStatus;
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
 * {@code keepsake list [JOB...]}: every savepoint directory of every job (or of the given jobs),
 * newest first, with what its metadata says and its status. Only metadata is read; payload bytes
 * are checked by {@code verify}. Exits 0 whatever the statuses are.
 */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List savepoints of all jobs, or of the given jobs, newest first, with their status"
                + " (ok, incomplete, corrupted: reason, incompatible: reason).")
public final class ListCommand extends StorageCommand {

    @Parameters(paramLabel = "JOB", arity = "0..*", description = "Job ids; default: every job under the savepoint root.")
    List<String> jobs = new ArrayList<>();

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    /** Scans the selected jobs and prints one row per savepoint directory. */
    @Override
    protected int run(OpenedStorage storage) {
        SavepointStorage savepoints = storage.savepoints();
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
        List<String> selected = jobs.isEmpty() ? savepoints.listJobs() : new ArrayList<>(new LinkedHashSet<>(jobs));
        List<Map<String, Object>> records = new ArrayList<>();
        TextTable table = new TextTable("JOB", "SAVEPOINT", "KIND", "FORMAT", "COMPLETED", "PIPELINES", "BYTES", "STATUS");
        for (String job : selected) {
            for (SavepointEntry entry : savepoints.scanSavepoints(job)) {
                SavepointStatus status = SavepointStatus.of(entry, registry);
                SavepointMeta meta = entry.handle().map(h -> h.meta()).orElse(null);
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("job", job);
                r.put("savepointId", entry.savepointId());
                r.put("location", entry.location());
                r.put("kind", meta == null ? null : meta.kind().stableName());
                r.put("formatVersion", meta == null ? null : meta.formatVersion());
                r.put("completed", meta == null ? null : Formats.time(meta.completedTimestamp()));
                r.put("pipelines", meta == null ? null : Formats.pipelines(meta));
                r.put("totalBytes", meta == null ? null : Formats.totalBytes(meta));
                r.put("status", status.state().word());
                r.put("reason", status.reason().isEmpty() ? null : status.reason());
                records.add(r);
                table.row(job, entry.savepointId(), r.get("kind"), r.get("formatVersion"), r.get("completed"),
                        meta == null ? null : joined(Formats.pipelines(meta)), r.get("totalBytes"), status.display());
            }
        }
        PrintWriter out = out();
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("savepointRoot", savepoints.savepointRoot());
            doc.put("savepoints", records);
            out.println(Json.write(doc));
        } else if (table.isEmpty()) {
            out.println("No savepoints " + (jobs.isEmpty() ? "" : "of job(s) " + String.join(", ", selected) + " ")
                    + "under " + savepoints.savepointRoot());
        } else {
            table.print(out, "");
            out.println();
            out.println(records.size() + " savepoint director" + (records.size() == 1 ? "y" : "ies") + " under "
                    + savepoints.savepointRoot());
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static String joined(List<Integer> pipelines) {
        StringBuilder b = new StringBuilder();
        for (Integer p : pipelines) {
            b.append(b.length() == 0 ? "" : ",").append(p);
        }
        return b.toString();
    }
}
