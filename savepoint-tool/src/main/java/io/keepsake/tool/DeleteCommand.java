package io.keepsake.tool;

import io.keepsake.storage.DeletionReport;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.Formats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code keepsake delete JOB SAVEPOINT}, {@code keepsake delete PATH} or
 * {@code keepsake delete JOB --all}: deletes one savepoint, or every savepoint of a job with its
 * staging area. Nothing is deleted without {@code --yes}: the command refuses with exit code 2
 * before it opens the storage. Deletion goes through the storage, which removes
 * {@code _metadata.ser} first; every path it removed, and every path it left with the reason, is
 * printed. What is not there exits 3, or 0 with {@code --ignore-not-found} (so a repeated delete in
 * a script succeeds); a path it meant to remove and could not exits 1.
 */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = "Delete one savepoint (by ids or by its directory path), or every savepoint of a job with --all;"
                + " requires --yes.")
public final class DeleteCommand extends StorageCommand {

    @Parameters(arity = "1..2", paramLabel = "JOB [SAVEPOINT] | PATH",
            description = "The job id and savepoint id, the job id with --all, or the savepoint's directory path.")
    List<String> arguments = new ArrayList<>();

    @Option(names = "--all", description = "Delete every savepoint of the job and its staging area.")
    boolean all;

    @Option(names = "--yes", description = "Confirm the deletion; without it nothing is deleted.")
    boolean yes;

    @Option(names = "--ignore-not-found", description = "Exit 0 when there is nothing to delete.")
    boolean ignoreNotFound;

    /** Refuses a missing or ambiguous target, and any deletion without --yes. */
    @Override
    protected void validate() {
        SavepointTarget t = target().requireFolder("delete");
        if (all == (t.savepointId() != null)) {
            throw new ToolUsageException("Cannot delete: name one SAVEPOINT of job " + t.jobId() + " (or its path), or give"
                    + " --all, not " + (all ? "both" : "neither"));
        }
        if (!yes) {
            throw new ToolUsageException("Refusing to delete " + (all ? "every savepoint of job " + t.jobId()
                    : "savepoint " + t.savepointId() + " of job " + t.jobId()) + " without --yes; nothing was deleted");
        }
    }

    @Override
    SavepointTarget target() {
        return SavepointTarget.of("delete", arguments);
    }

    /**
     * Deletes what was asked for and renders every path removed and every path left with the reason,
     * as the storage reports them; exits 1 when a path it meant to remove could not be removed.
     */
    @Override
    protected int run(OpenedStorage storage) throws Exception {
        SavepointTarget t = target();
        String job = t.jobId();
        SavepointStorage savepoints = storage.savepoints();
        Deletion deletion;
        try {
            deletion = all ? deleteAll(storage, job) : deleteOne(storage, job, t.savepointId());
        } catch (SavepointNotFoundException e) {
            if (!ignoreNotFound) {
                throw e;
            }
            deletion = new Deletion(savepoints.savepointRoot(), job, t.savepointId(), List.of(),
                    new DeletionReport(List.of(), List.of(), List.of()),
                    "Nothing to delete (--ignore-not-found): " + e.getMessage());
        }
        return render(deletion);
    }

    private static Deletion deleteAll(OpenedStorage storage, String job) {
        SavepointStorage savepoints = storage.savepoints();
        if (!savepoints.listJobs().contains(job)) {
            throw new SavepointNotFoundException("Cannot delete savepoints of job " + job + ": it has no folder"
                    + " under " + savepoints.savepointRoot());
        }
        List<SavepointEntry> entries = savepoints.scanSavepoints(job);
        DeletionReport report = storage.keepsake().map(k -> k.deleteSavepointsReporting(job))
                .orElseGet(() -> otherStorageAll(savepoints, job, entries));
        return new Deletion(savepoints.savepointRoot(), job, null, entries, report, null);
    }

    private static Deletion deleteOne(OpenedStorage storage, String job, String savepointId) {
        SavepointStorage savepoints = storage.savepoints();
        List<SavepointEntry> entries = savepoints.scanSavepoints(job).stream()
                .filter(e -> e.savepointId().equals(savepointId)).toList();
        DeletionReport report = storage.keepsake().map(k -> k.deleteSavepointReporting(job, savepointId))
                .orElseGet(() -> otherStorageOne(savepoints, job, savepointId, entries));
        return new Deletion(savepoints.savepointRoot(), job, savepointId, entries, report, null);
    }

    /**
     * What a deletion removed, kept and failed to remove, with the savepoint entries it was asked
     * about (every one of the job's with {@code savepointId} null); {@code nothing} is the one line
     * of a run that found nothing to delete, or null.
     */
    private record Deletion(String savepointRoot, String job, String savepointId, List<SavepointEntry> entries,
                            DeletionReport report, String nothing) implements CommandResult {

        @Override
        public int exitCode() {
            return report.failed().isEmpty() ? ExitCodes.OK : ExitCodes.FAILURE;
        }

        @Override
        public void putJson(Map<String, Object> doc) {
            doc.put("savepointRoot", savepointRoot);
            doc.put("deleted", report.deleted().stream()
                    .map(path -> Removal.record(job, savepointOf(path, entries), path, null)).toList());
            doc.put("kept", report.kept().stream().map(line -> named(job, Removal.parse(line), entries)).toList());
            doc.put("failed", report.failed().stream().map(line -> named(job, Removal.parse(line), entries)).toList());
        }

        @Override
        public void printText(PrintWriter out) {
            if (nothing != null) {
                out.println(nothing);
                return;
            }
            List<String> lines = new ArrayList<>();
            int complete = 0;
            int others = 0;
            for (SavepointEntry e : entries) {
                if (report.deleted().stream().anyMatch(p -> within(p, e.location()))) {
                    lines.add("Deleted " + describe(e));
                    complete += e.handle().isPresent() ? 1 : 0;
                    others += e.handle().isEmpty() ? 1 : 0;
                }
            }
            report.deleted().forEach(path -> lines.add("  removed " + path));
            report.kept().forEach(line -> lines.add("  kept " + line));
            report.failed().forEach(line -> lines.add("  failed to remove " + line));
            if (savepointId == null) {
                lines.add(summary(complete, others));
            } else if (lines.stream().noneMatch(l -> l.startsWith("Deleted "))) {
                lines.add(0, (report.deleted().isEmpty() ? "Deleted nothing of savepoint " : "Deleted savepoint ")
                        + savepointId + " of job " + job);
            }
            lines.forEach(out::println);
        }

        private String summary(int complete, int others) {
            int kept = report.kept().size();
            int failed = report.failed().size();
            return "Deleted " + complete + " savepoint(s) of job " + job + ", " + others + " other director"
                    + (others == 1 ? "y" : "ies") + " and its staging area: removed " + report.deleted().size()
                    + " path(s)" + (kept == 0 ? "" : ", kept " + kept) + (failed == 0 ? "" : ", failed to remove " + failed)
                    + (kept == 0 && failed == 0 ? "" : " (listed above)");
        }
    }

    /** A storage that does not report its removals: the folders that went, by what is left. */
    private static DeletionReport otherStorageAll(SavepointStorage savepoints, String job, List<SavepointEntry> entries) {
        savepoints.deleteSavepoints(job);
        return folders(savepoints, job, entries);
    }

    private static DeletionReport otherStorageOne(SavepointStorage savepoints, String job, String savepointId,
                                                  List<SavepointEntry> entries) {
        savepoints.deleteSavepoint(job, savepointId);
        return folders(savepoints, job, entries);
    }

    private static DeletionReport folders(SavepointStorage savepoints, String job, List<SavepointEntry> entries) {
        Set<String> left = new HashSet<>();
        if (savepoints.listJobs().contains(job)) {
            savepoints.scanSavepoints(job).forEach(e -> left.add(e.savepointId()));
        }
        List<String> gone = new ArrayList<>();
        List<String> stayed = new ArrayList<>();
        for (SavepointEntry e : entries) {
            if (left.contains(e.savepointId())) {
                stayed.add(e.location() + ": the storage left it and does not say why");
            } else {
                gone.add(e.location());
            }
        }
        return new DeletionReport(gone, stayed, List.of());
    }

    /** True when {@code path} is {@code folder} or inside it. */
    private static boolean within(String path, String folder) {
        return path.equals(folder) || path.startsWith(folder.endsWith("/") ? folder : folder + "/");
    }

    /** The savepoint whose folder holds {@code path}; null for the job's staging and index entries. */
    private static String savepointOf(String path, List<SavepointEntry> entries) {
        return entries.stream().filter(e -> within(path, e.location())).map(SavepointEntry::savepointId)
                .findFirst().orElse(null);
    }

    private static Map<String, Object> named(String job, Map<String, Object> record, List<SavepointEntry> entries) {
        String path = (String) record.get("path");
        return Removal.record(job, path == null ? null : savepointOf(path, entries), path, (String) record.get("reason"));
    }

    private static String describe(SavepointEntry e) {
        String what = e.handle().map(h -> "savepoint " + e.savepointId() + " (" + h.meta().kind().stableName()
                + ", completed " + Formats.time(h.meta().completedTimestamp()) + ")")
                .orElse((e.incomplete() ? "incomplete directory " : "unreadable savepoint ") + e.savepointId());
        return what + " at " + e.location();
    }
}
