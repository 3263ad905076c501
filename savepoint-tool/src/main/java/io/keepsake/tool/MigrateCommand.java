package io.keepsake.tool;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.tool.internal.LegacyMigration;
import io.keepsake.tool.internal.TextTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;

/**
 * {@code keepsake migrate --job JOB [--savepoint-id ID]}: turns a job's latest legacy v0
 * checkpoints (SeaTunnel 2.3.x files under {@code <namespace>/<jobId>/}) into a savepoint bundle
 * in the current format, marked {@code migratedFrom=legacy-v0}, and proves it by reading it back
 * through the reader registry and comparing it with the decoded checkpoints. The legacy files are
 * left as they are. Refuses, with the typed already-exists error, when a savepoint with that id
 * exists; the default id is derived from the migrated checkpoints, so a repeated run is refused.
 */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = "Rewrite a job's latest legacy v0 checkpoints as a verified savepoint in the current format.")
public final class MigrateCommand extends StorageCommand {

    @Option(names = "--job", required = true, paramLabel = "JOB", description = "The job whose legacy checkpoints to migrate.")
    String job;

    @Option(names = "--savepoint-id", paramLabel = "ID",
            description = "The new savepoint's id (default: migrated-v0-p<pipeline>c<checkpoint>-...).")
    String savepointId;

    /** Migrates, verifies and prints the new savepoint's id and path. */
    @Override
    protected int run(OpenedStorage storage) {
        LegacyMigration.Result result = LegacyMigration.migrate(storage.checkpoints(), storage.savepoints(), job,
                savepointId);
        PrintWriter out = out();
        out.println("Migrated the latest legacy v0 checkpoints of job " + job + ":");
        TextTable table = new TextTable("PIPELINE", "CHECKPOINT", "TYPE", "SOURCE");
        for (LegacyMigration.LegacyCheckpoint l : result.migrated()) {
            table.row(l.pipelineId(), l.checkpointId(), l.checkpoint().checkpointType().typeName(), l.source());
        }
        table.print(out, "  ");
        out.println("Savepoint " + result.handle().savepointId());
        out.println("Path      " + result.handle().location());
        out.println("Verified  read back through the reader registry (format version "
                + SavepointReaderRegistry.CURRENT_FORMAT_VERSION + "), equal to the decoded legacy checkpoints for "
                + result.migrated().size() + " pipeline(s)");
        out.flush();
        return ExitCodes.OK;
    }
}
