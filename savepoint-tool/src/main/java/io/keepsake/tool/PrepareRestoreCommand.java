package io.keepsake.tool;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.RestorePreparation;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.tool.internal.PreparedCopies;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code keepsake prepare-restore JOB SAVEPOINT...}: makes the chosen savepoints the newest state of
 * their pipelines, so that the engine's next restore of the job ({@code seatunnel.sh -r JOB}, which
 * asks the storage only for each pipeline's latest state) starts from them. {@link RestorePreparation}
 * reads and verifies each savepoint whole, then writes every pipeline it holds as one checkpoint
 * file numbered one above every checkpoint id the job has; nothing is deleted. Pipelines the named
 * savepoints do not hold are named on stderr: they restore their own newest state. A second run
 * with the same savepoints reads them again, finds each pipeline's newest checkpoint file still
 * holding their state, reports it and writes nothing. Exit codes: 2
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

    /** Prepares the restore and renders, per pipeline, which savepoint it restores and as which checkpoint. */
    @Override
    protected int run(OpenedStorage storage) throws Exception {
        Optional<RestorePreparation.Prepared> earlier = storage.keepsake().flatMap(this::preparedEarlier);
        RestorePreparation.Prepared prepared = earlier.isPresent() ? earlier.get()
                : new RestorePreparation(storage.checkpoints(), storage.savepoints()).prepare(job, savepointIds);
        return render(new Preparation(job, earlier.isPresent(), prepared));
    }

    /** What a preparation wrote, or found an earlier run had written ({@code already}). */
    private record Preparation(String job, boolean already, RestorePreparation.Prepared prepared)
            implements CommandResult {

        @Override
        public int exitCode() {
            return ExitCodes.OK;
        }

        @Override
        public List<String> warnings() {
            return prepared.otherPipelines().isEmpty() ? List.of()
                    : List.of("prepare-restore: pipeline(s) " + new TreeSet<>(prepared.otherPipelines()) + " of job "
                    + job + " are in no named savepoint; they restore their own newest state");
        }

        @Override
        public void putJson(Map<String, Object> doc) {
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
            doc.put("job", job);
            doc.put("alreadyPrepared", already);
            doc.put("prepared", records);
            doc.put("otherPipelines", new ArrayList<>(new TreeSet<>(prepared.otherPipelines())));
        }

        @Override
        public void printText(PrintWriter out) {
            for (RestorePreparation.PreparedPipeline p : prepared.pipelines()) {
                out.println("Pipeline " + p.pipelineId() + " of job " + job + (already ? " already restores" : " restores")
                        + " savepoint " + p.savepointId() + " (checkpoint " + p.checkpointId() + ") as checkpoint "
                        + p.restoresAs() + " (" + p.file() + ")");
            }
            if (already) {
                out.println("Already prepared: the newest checkpoint of each pipeline holds the state of the named"
                        + " savepoints (read and compared); nothing written. Restore the job now (seatunnel.sh -r "
                        + job + ")");
            } else {
                out.println("Restore the job now (seatunnel.sh -r " + job + "); its first checkpoint after the restore"
                        + " supersedes the prepared state");
            }
        }
    }

    /**
     * What an earlier run with the same savepoints wrote, when each pipeline's newest checkpoint
     * file still holds its named savepoint's state (each savepoint read and verified whole);
     * empty when a pipeline is in two named savepoints (the preparation refuses that) or any
     * pipeline's newest state is something else.
     */
    private Optional<RestorePreparation.Prepared> preparedEarlier(KeepsakeStorage storage) {
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
        Map<Integer, CompletedCheckpoint> chosen = new TreeMap<>();
        Map<Integer, String> from = new TreeMap<>();
        for (String id : new LinkedHashSet<>(savepointIds)) {
            SavepointHandle handle = storage.readMetadata(job, id);
            for (Map.Entry<Integer, CompletedCheckpoint> e : registry.read(storage, handle).entrySet()) {
                if (from.putIfAbsent(e.getKey(), id) != null) {
                    return Optional.empty();
                }
                chosen.put(e.getKey(), e.getValue());
            }
        }
        if (chosen.isEmpty() || savepointIds.size() != from.values().stream().distinct().count()) {
            return Optional.empty();
        }
        return PreparedCopies.find(storage, job, chosen).map(copies -> {
            List<RestorePreparation.PreparedPipeline> pipelines = new ArrayList<>();
            for (PreparedCopies.Copy c : copies) {
                pipelines.add(new RestorePreparation.PreparedPipeline(c.pipelineId(), from.get(c.pipelineId()),
                        c.checkpointId(), c.restoresAs(), c.file()));
            }
            Set<Integer> others = new TreeSet<>(PreparedCopies.newestFiles(storage, job).keySet());
            if (storage.listJobs().contains(job)) {
                storage.scanSavepoints(job).forEach(e -> e.handle().ifPresent(h -> h.meta().manifest()
                        .forEach(m -> others.add(m.pipelineId()))));
            }
            others.removeAll(chosen.keySet());
            return new RestorePreparation.Prepared(job, pipelines, others);
        });
    }
}
