package io.keepsake.tool;

import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.Formats;
import io.keepsake.tool.internal.SavepointPath;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code keepsake delete JOB SAVEPOINT}, {@code keepsake delete PATH} or
 * {@code keepsake delete JOB --all}: deletes one savepoint, or every savepoint of a job with its
 * staging area. Nothing is deleted without {@code --yes}: the command refuses with exit code 2
 * before it opens the storage. Deletion goes through {@link SavepointStorage#deleteSavepoint},
 * which removes {@code _metadata.ser} first. What is not there exits 3, or 0 with
 * {@code --ignore-not-found} (so a repeated delete in a script succeeds).
 */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = "Delete one savepoint (by ids or by its directory path), or every savepoint of a job with --all;"
                + " requires --yes.")
public final class DeleteCommand extends StorageCommand {

    @Parameters(arity = "1..2", paramLabel = "JOB [SAVEPOINT] | PATH",
            description = "The job id and savepoint id, the job id with --all, or the savepoint's directory path.")
    List<String> target = new ArrayList<>();

    @Option(names = "--all", description = "Delete every savepoint of the job and its staging area.")
    boolean all;

    @Option(names = "--yes", description = "Confirm the deletion; without it nothing is deleted.")
    boolean yes;

    @Option(names = "--ignore-not-found", description = "Exit 0 when there is nothing to delete.")
    boolean ignoreNotFound;

    /** Refuses a missing or ambiguous target, and any deletion without --yes. */
    @Override
    protected void validate() {
        SavepointTarget t = SavepointTarget.of("delete", target).requireFolder("delete");
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
    protected SavepointPath savepointPath() {
        return SavepointTarget.of("delete", target).path();
    }

    /** Deletes what was asked for and prints each deleted savepoint. */
    @Override
    protected int run(OpenedStorage storage) {
        SavepointTarget t = SavepointTarget.of("delete", target);
        String job = t.jobId();
        SavepointStorage savepoints = storage.savepoints();
        PrintWriter out = out();
        List<Map<String, Object>> deleted = new ArrayList<>();
        List<Map<String, Object>> kept = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try {
            if (all) {
                if (!savepoints.listJobs().contains(job)) {
                    throw new SavepointNotFoundException("Cannot delete savepoints of job " + job + ": it has no folder"
                            + " under " + savepoints.savepointRoot());
                }
                List<SavepointEntry> entries = savepoints.scanSavepoints(job);
                int n = savepoints.deleteSavepoints(job);
                java.util.Set<String> left = stillThere(savepoints, job);
                int others = 0;
                for (SavepointEntry e : entries) {
                    if (left.contains(e.savepointId())) {
                        lines.add("Kept " + e.location() + ": " + keptReason(e));
                        kept.add(keptRecord(job, e.savepointId(), e.location(), keptReason(e)));
                        continue;
                    }
                    lines.add("Deleted " + describe(e));
                    deleted.add(record(job, e.savepointId(), e.location()));
                    others += e.handle().isEmpty() ? 1 : 0;
                }
                lines.add("Deleted " + n + " savepoint(s) of job " + job + ", " + others
                        + " other director" + (others == 1 ? "y" : "ies") + " and its staging area"
                        + (kept.isEmpty() ? "" : "; kept " + kept.size() + " (see above)"));
            } else {
                Optional<SavepointEntry> entry = savepoints.scanSavepoints(job).stream()
                        .filter(e -> e.savepointId().equals(t.savepointId())).findFirst();
                savepoints.deleteSavepoint(job, t.savepointId());
                lines.add("Deleted " + entry.map(DeleteCommand::describe)
                        .orElse("savepoint " + t.savepointId() + " of job " + job));
                deleted.add(record(job, t.savepointId(), entry.map(SavepointEntry::location).orElse(null)));
                if (stillThere(savepoints, job).contains(t.savepointId())) {
                    String location = entry.map(SavepointEntry::location).orElse(t.savepointId());
                    String why = "the folder stays: it holds entries Keepsake did not write, or an attempt at this id"
                            + " is writing it";
                    lines.add("Kept " + location + ": " + why);
                    kept.add(keptRecord(job, t.savepointId(), location, why));
                }
            }
        } catch (SavepointNotFoundException e) {
            if (!ignoreNotFound) {
                throw e;
            }
            lines.add("Nothing to delete (--ignore-not-found): " + e.getMessage());
        }
        if (json) {
            Map<String, Object> doc = document();
            doc.put("savepointRoot", savepoints.savepointRoot());
            doc.put("deleted", deleted);
            doc.put("kept", kept);
            printJson(doc);
        } else {
            lines.forEach(out::println);
            out.flush();
        }
        return ExitCodes.OK;
    }

    /** The ids whose folder is still under the job after a delete, without a complete savepoint in it. */
    private static java.util.Set<String> stillThere(SavepointStorage savepoints, String job) {
        java.util.Set<String> ids = new java.util.HashSet<>();
        if (savepoints.listJobs().contains(job)) {
            savepoints.scanSavepoints(job).stream().filter(e -> e.handle().isEmpty())
                    .forEach(e -> ids.add(e.savepointId()));
        }
        return ids;
    }

    private static String keptReason(SavepointEntry e) {
        return e.incomplete() ? "it holds entries Keepsake did not write, or an attempt is writing it; nothing of it"
                + " that Keepsake did not write was deleted" : "it could not be deleted";
    }

    private static Map<String, Object> keptRecord(String job, String savepointId, String location, String reason) {
        return Removal.record(job, savepointId, location, reason);
    }

    private static Map<String, Object> record(String job, String savepointId, String location) {
        return Removal.record(job, savepointId, location, null);
    }

    private static String describe(SavepointEntry e) {
        String what = e.handle().map(h -> "savepoint " + e.savepointId() + " (" + h.meta().kind().stableName()
                + ", completed " + Formats.time(h.meta().completedTimestamp()) + ")")
                .orElse((e.incomplete() ? "incomplete directory " : "unreadable savepoint ") + e.savepointId());
        return what + " at " + e.location();
    }
}
