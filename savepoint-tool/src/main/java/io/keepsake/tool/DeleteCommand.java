package io.keepsake.tool;

import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.Formats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;

/**
 * {@code keepsake delete JOB SAVEPOINT} or {@code keepsake delete JOB --all}: deletes one
 * savepoint, or every savepoint of a job with its staging area. Nothing is deleted without
 * {@code --yes}: the command refuses with exit code 2 before it opens the storage. Deletion goes
 * through {@link SavepointStorage#deleteSavepoint}, which removes {@code _metadata.ser} first.
 */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = "Delete one savepoint, or every savepoint of a job with --all; requires --yes.")
public final class DeleteCommand extends StorageCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "The job id.")
    String job;

    @Parameters(index = "1", arity = "0..1", paramLabel = "SAVEPOINT", description = "The savepoint id.")
    String savepointId;

    @Option(names = "--all", description = "Delete every savepoint of the job and its staging area.")
    boolean all;

    @Option(names = "--yes", description = "Confirm the deletion; without it nothing is deleted.")
    boolean yes;

    /** Refuses a missing or ambiguous target, and any deletion without --yes. */
    @Override
    protected void validate() {
        if (all == (savepointId != null)) {
            throw new ToolUsageException("Cannot delete: name one SAVEPOINT of job " + job + ", or give --all, not "
                    + (all ? "both" : "neither"));
        }
        if (!yes) {
            throw new ToolUsageException("Refusing to delete " + (all ? "every savepoint of job " + job
                    : "savepoint " + savepointId + " of job " + job) + " without --yes; nothing was deleted");
        }
    }

    /** Deletes what was asked for and prints each deleted savepoint. */
    @Override
    protected int run(OpenedStorage storage) {
        SavepointStorage savepoints = storage.savepoints();
        PrintWriter out = out();
        if (all) {
            if (!savepoints.listJobs().contains(job)) {
                throw new SavepointNotFoundException("Cannot delete savepoints of job " + job + ": it has no folder under "
                        + savepoints.savepointRoot());
            }
            List<SavepointEntry> entries = savepoints.scanSavepoints(job);
            int deleted = savepoints.deleteSavepoints(job);
            for (SavepointEntry e : entries) {
                out.println("Deleted " + describe(e));
            }
            out.println("Deleted " + deleted + " savepoint(s) of job " + job + ", " + (entries.size() - deleted)
                    + " other director" + (entries.size() - deleted == 1 ? "y" : "ies") + " and its staging area");
        } else {
            Optional<SavepointEntry> entry = savepoints.scanSavepoints(job).stream()
                    .filter(e -> e.savepointId().equals(savepointId)).findFirst();
            savepoints.deleteSavepoint(job, savepointId);
            out.println("Deleted " + entry.map(DeleteCommand::describe)
                    .orElse("savepoint " + savepointId + " of job " + job));
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static String describe(SavepointEntry e) {
        String what = e.handle().map(h -> "savepoint " + e.savepointId() + " (" + h.meta().kind().stableName()
                + ", completed " + Formats.time(h.meta().completedTimestamp()) + ")")
                .orElse((e.incomplete() ? "incomplete directory " : "unreadable savepoint ") + e.savepointId());
        return what + " at " + e.location();
    }
}
