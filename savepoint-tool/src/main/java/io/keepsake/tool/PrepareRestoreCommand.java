package io.keepsake.tool;

import io.keepsake.reader.RestorePreparation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code keepsake prepare-restore JOB SAVEPOINT...}: makes the chosen savepoints the newest state of
 * their pipelines, so that the engine's next restore of the job ({@code seatunnel.sh -r JOB}, which
 * asks the storage only for each pipeline's latest state) starts from them. {@link RestorePreparation}
 * reads and verifies each savepoint whole, then writes every pipeline it holds as one checkpoint
 * file numbered one above every checkpoint id the job has; nothing is deleted. Pipelines the named
 * savepoints do not hold are named on stderr: they restore their own newest state. Exit codes: 2
 * for a pipeline named twice, 3 for a savepoint that is not there, 4 for one that does not verify;
 * nothing is written in those cases.
 */
@Command(name = "prepare-restore", mixinStandardHelpOptions = true,
        description = "Make chosen savepoints the newest state of their pipelines, so that the engine's next restore"
                + " of the job (seatunnel.sh -r JOB) starts from them; run it while the job is stopped.")
public final class PrepareRestoreCommand extends StorageCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "The job id, as the engine numbers it.")
    String job;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "SAVEPOINT",
            description = "The savepoints to restore, one per pipeline (the SeaTunnel plugin keeps one per"
                    + " pipeline: st-<checkpoint>-p<pipeline>).")
    List<String> savepointIds = new ArrayList<>();

    /** Prepares the restore and prints, per pipeline, which savepoint it restores and as which checkpoint. */
    @Override
    protected int run(OpenedStorage storage) throws Exception {
        RestorePreparation.Prepared prepared = new RestorePreparation(storage.checkpoints(), storage.savepoints())
                .prepare(job, savepointIds);
        if (!prepared.otherPipelines().isEmpty()) {
            err().println("prepare-restore: pipeline(s) " + new java.util.TreeSet<>(prepared.otherPipelines())
                    + " of job " + job + " are in no named savepoint; they restore their own newest state");
            err().flush();
        }
        if (json) {
            List<Map<String, Object>> records = new ArrayList<>();
            for (RestorePreparation.PreparedPipeline p : prepared.pipelines()) {
                Map<String, Object> record = new LinkedHashMap<>();
                record.put("pipeline", p.pipelineId());
                record.put("savepointId", p.savepointId());
                record.put("checkpointId", p.checkpointId());
                record.put("restoresAs", p.restoresAs());
                record.put("file", p.file());
                records.add(record);
            }
            Map<String, Object> doc = document();
            doc.put("job", job);
            doc.put("prepared", records);
            doc.put("otherPipelines", new ArrayList<>(new java.util.TreeSet<>(prepared.otherPipelines())));
            printJson(doc);
            return ExitCodes.OK;
        }
        PrintWriter out = out();
        for (RestorePreparation.PreparedPipeline p : prepared.pipelines()) {
            out.println("Pipeline " + p.pipelineId() + " of job " + job + " restores savepoint " + p.savepointId()
                    + " (checkpoint " + p.checkpointId() + ") as checkpoint " + p.restoresAs() + " (" + p.file() + ")");
        }
        out.println("Restore the job now (seatunnel.sh -r " + job + "); its first checkpoint after the restore"
                + " supersedes the prepared state");
        out.flush();
        return ExitCodes.OK;
    }
}
