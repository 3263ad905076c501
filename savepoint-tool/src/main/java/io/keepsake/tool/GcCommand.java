package io.keepsake.tool;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.Durations;
import io.keepsake.tool.internal.Formats;
import io.keepsake.tool.internal.TextTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/**
 * {@code keepsake gc [--older-than DURATION] [--dry-run]}: removes staging attempts and
 * never-completed savepoint directories, expired leases and checkpoint temporary files older than
 * the given age (default one hour), leaving attempts whose lease another process keeps fresh; complete
 * savepoints are never touched. With {@code --dry-run} it lists what would go and deletes
 * nothing. Exits 1 when some stale entry could not be removed.
 */
@Command(name = "gc", mixinStandardHelpOptions = true,
        description = "Remove abandoned staging attempts and incomplete savepoint directories.")
public final class GcCommand extends StorageCommand {

    @Option(names = "--older-than", paramLabel = "DURATION", defaultValue = "1h", converter = Durations.class,
            description = "Only what was last modified longer ago than this: ISO-8601 (PT1H, P7D) or 30m, 2h, 7d"
                    + " (default: ${DEFAULT-VALUE}).")
    Duration olderThan;

    @Option(names = "--dry-run", description = "List what would be removed; remove nothing.")
    boolean dryRun;

    /** Collects garbage, or with --dry-run lists the candidates, and prints the result. */
    @Override
    protected int run(OpenedStorage storage) {
        SavepointStorage savepoints = storage.savepoints();
        PrintWriter out = out();
        if (dryRun) {
            List<GcCandidate> candidates = savepoints.planGarbage(olderThan);
            out.println("Dry run: would remove " + entries(candidates.size())
                    + " older than " + olderThan + " under " + savepoints.savepointRoot() + "; nothing was removed");
            if (!candidates.isEmpty()) {
                TextTable table = new TextTable("JOB", "WHAT", "MODIFIED", "PATH");
                for (GcCandidate c : candidates) {
                    table.row(c.jobId(), c.what(), Formats.time(c.modificationTime()), c.path());
                }
                table.print(out, "  ");
            }
            out.flush();
            return ExitCodes.OK;
        }
        GcReport report = savepoints.collectGarbage(olderThan);
        out.println("Removed " + entries(report.deleted().size())
                + " older than " + olderThan + " under " + savepoints.savepointRoot());
        for (String path : report.deleted()) {
            out.println("  deleted " + path);
        }
        if (!report.kept().isEmpty()) {
            out.println("Could not remove " + report.kept().size() + ":");
            for (String kept : report.kept()) {
                out.println("  kept " + kept);
            }
        }
        out.flush();
        return report.kept().isEmpty() ? ExitCodes.OK : ExitCodes.FAILURE;
    }

    private static String entries(int n) {
        return n + " stale " + (n == 1 ? "entry" : "entries");
    }
}
