package io.keepsake.tool;

import io.keepsake.storage.GcCandidate;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.tool.internal.Durations;
import io.keepsake.tool.internal.Formats;
import io.keepsake.tool.internal.TextTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code keepsake gc [--older-than DURATION] [--dry-run]}: removes staging attempts and
 * never-completed savepoint directories, expired leases and checkpoint temporary files older than
 * the given age (default one hour), leaving attempts whose lease another process keeps fresh, then
 * the staging and job folders that are left empty; complete savepoints are never touched. With
 * {@code --dry-run} it lists what would go and deletes nothing. The age is printed as it was typed.
 * Entries it left on purpose (a race it resolved safely, or entries Keepsake did not write) are
 * listed as kept and exit 0; it exits 1 only when something it meant to remove could not be
 * removed (or the savepoint root holds entries but was never marked as Keepsake's, which it
 * refuses), 3 when a root is missing. A dry run over such an unmarked root says that it holds no
 * Keepsake savepoints and nothing would be removed, and exits 0.
 */
@Command(name = "gc", mixinStandardHelpOptions = true,
        description = "Remove abandoned staging attempts and incomplete savepoint directories.")
public final class GcCommand extends StorageCommand {

    /** What the storage's refusal of an unmarked savepoint root says, and the marker's name. */
    private static final String UNMARKED = "not marked as a Keepsake savepoint root";
    private static final String MARKER = ".keepsake-root";

    @Option(names = "--older-than", paramLabel = "DURATION", defaultValue = "1h",
            description = "Only what was last modified longer ago than this: 0, 30m, 2h, 7d, or ISO-8601 (PT1H, P7D)"
                    + " (default: ${DEFAULT-VALUE}).")
    String olderThanText;

    @Option(names = "--dry-run", description = "List what would be removed; remove nothing.")
    boolean dryRun;

    private Duration olderThan() {
        try {
            return Durations.parse(olderThanText);
        } catch (IllegalArgumentException e) {
            throw new ToolUsageException(e.getMessage().replace("Cannot parse duration", "Cannot parse --older-than")
                    .replace("Cannot use duration", "Cannot use --older-than"), e);
        }
    }

    @Override
    protected void validate() {
        olderThan();
    }

    /** Collects garbage, or with --dry-run plans it, and renders what it found. */
    @Override
    protected int run(OpenedStorage storage) throws Exception {
        SavepointStorage savepoints = storage.savepoints();
        Age age = new Age(savepoints.savepointRoot(), olderThanText.trim(), olderThan());
        if (!dryRun) {
            return render(new Collected(age, savepoints.collectGarbage(age.olderThan())));
        }
        List<GcCandidate> candidates;
        try {
            candidates = savepoints.planGarbage(age.olderThan());
        } catch (SavepointStorageException e) {
            if (!unmarkedRoot(e)) {
                throw e;
            }
            return render(new UnmarkedRoot(age, completeSavepoints(savepoints)));
        }
        return render(new Planned(age, candidates));
    }

    /** True for the storage's refusal of a savepoint root that holds entries but no {@code .keepsake-root} marker. */
    private static boolean unmarkedRoot(SavepointStorageException e) {
        String message = String.valueOf(e.getMessage());
        return e.getClass() == SavepointStorageException.class && message.contains(UNMARKED)
                && message.contains(MARKER);
    }

    /** How many savepoints with Keepsake metadata a root holds. */
    private static long completeSavepoints(SavepointStorage savepoints) {
        long complete = 0;
        for (String job : savepoints.listJobs()) {
            complete += savepoints.scanSavepoints(job).stream().filter(e -> e.handle().isPresent()).count();
        }
        return complete;
    }

    /** The root and the age a run works with, as every gc document begins. */
    private record Age(String savepointRoot, String text, Duration olderThan) {
        void putJson(Map<String, Object> doc, boolean dryRun) {
            doc.put("savepointRoot", savepointRoot);
            doc.put("olderThan", text);
            doc.put("olderThanMillis", olderThan.toMillis());
            doc.put("dryRun", dryRun);
        }
    }

    /**
     * A dry run: it exits 0, and its document holds the root and age, the candidates and no removals.
     */
    private interface DryRun extends CommandResult {
        /** The root and age the run looked at. */
        Age age();

        /** One record per entry a collection would remove. */
        List<Map<String, Object>> candidateRecords();

        @Override
        default int exitCode() {
            return ExitCodes.OK;
        }

        @Override
        default void putJson(Map<String, Object> doc) {
            age().putJson(doc, true);
            doc.put("candidates", candidateRecords());
            doc.put("deleted", null);
            doc.put("kept", null);
            doc.put("failed", null);
        }
    }

    /** A dry run: what a collection would remove. */
    private record Planned(Age age, List<GcCandidate> candidates) implements DryRun {
        @Override
        public List<Map<String, Object>> candidateRecords() {
            List<Map<String, Object>> records = new ArrayList<>();
            for (GcCandidate c : candidates) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("job", c.jobId());
                r.put("what", c.kind().label());
                r.put("modified", Formats.time(c.modificationTime()));
                r.put("path", c.path());
                records.add(r);
            }
            return records;
        }

        @Override
        public void printText(PrintWriter out) {
            out.println("Dry run: would remove " + entries(candidates.size()) + " older than " + age.text()
                    + " under " + age.savepointRoot() + "; nothing was removed");
            if (!candidates.isEmpty()) {
                TextTable table = new TextTable("JOB", "WHAT", "MODIFIED", "PATH");
                for (GcCandidate c : candidates) {
                    table.row(c.jobId(), c.kind().label(), Formats.time(c.modificationTime()), c.path());
                }
                table.print(out, "  ");
            }
        }
    }

    /**
     * A dry run over a root Keepsake never marked: nothing there is a Keepsake savepoint and a
     * collection would remove nothing (a real one refuses), so the dry run says so and exits 0.
     */
    private record UnmarkedRoot(Age age, long completeSavepoints) implements DryRun {
        @Override
        public List<Map<String, Object>> candidateRecords() {
            return List.of();
        }

        @Override
        public void printText(PrintWriter out) {
            String what = completeSavepoints == 0 ? " holds no Keepsake savepoints; it is not a Keepsake savepoint root"
                    : " holds " + completeSavepoints + " savepoint(s) with Keepsake metadata but is not marked as a"
                    + " Keepsake savepoint root (written before the marker existed, or copied there; committing one"
                    + " savepoint there marks it)";
            out.println("Dry run: nothing would be removed: " + age.savepointRoot() + what + " (no " + MARKER
                    + " marker, which Keepsake writes with the first savepoint there), and gc removes nothing under"
                    + " such a folder (gc without --dry-run refuses it and exits 1)");
        }
    }

    /** A collection: what it removed, kept on purpose and failed to remove; exit 1 when something failed. */
    private record Collected(Age age, GcReport report) implements CommandResult {
        @Override
        public int exitCode() {
            return report.failed().isEmpty() ? ExitCodes.OK : ExitCodes.FAILURE;
        }

        @Override
        public void putJson(Map<String, Object> doc) {
            age.putJson(doc, false);
            doc.put("candidates", null);
            doc.put("deleted", report.deleted().stream().map(p -> Removal.record(null, null, p, null)).toList());
            doc.put("kept", report.kept().stream().map(Removal::parse).toList());
            doc.put("failed", report.failed().stream().map(Removal::parse).toList());
        }

        @Override
        public void printText(PrintWriter out) {
            out.println("Removed " + entries(report.deleted().size()) + " older than " + age.text() + " under "
                    + age.savepointRoot());
            for (String path : report.deleted()) {
                out.println("  deleted " + path);
            }
            printLines(out, "Kept " + report.kept().size() + " on purpose:", "  kept ", report.kept());
            printLines(out, "Could not remove " + report.failed().size() + ":", "  failed ", report.failed());
        }

        private static void printLines(PrintWriter out, String heading, String prefix, List<String> lines) {
            if (!lines.isEmpty()) {
                out.println(heading);
                lines.forEach(line -> out.println(prefix + line));
            }
        }
    }

    private static String entries(int n) {
        return n + " stale " + (n == 1 ? "entry" : "entries");
    }
}
