package io.keepsake.tool;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.CapturedRun;
import io.keepsake.tool.internal.DemoState;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Runs the tool in-process with captured output, and seeds local storages for the tests. */
final class ToolRun {

    static final String JOB = "700000000000000123";
    static final long JOB_ID = Long.parseLong(JOB);

    /**
     * What one run printed and returned.
     *
     * @param exitCode the exit code
     * @param out      stdout
     * @param err      stderr
     */
    record Result(int exitCode, String out, String err) {
    }

    private ToolRun() {
    }

    /** Runs {@code keepsake args...} in this JVM. */
    static Result run(String... args) {
        CapturedRun run = KeepsakeCli.runCaptured(args);
        return new Result(run.exitCode(), run.stdout(), run.stderr());
    }

    /** Opens the local-file storage over {@code namespace} through its factory, as the engine does. */
    static CheckpointStorage open(Path namespace) throws Exception {
        return CheckpointStorageFactories.find("localfile").create(Map.of("namespace", namespace.toString()));
    }

    /** The checkpoints a savepoint of {@code pipelines} at {@code checkpointId} holds. */
    static Map<Integer, CompletedCheckpoint> state(long checkpointId, List<Integer> pipelines) {
        Map<Integer, CompletedCheckpoint> map = new TreeMap<>();
        for (int p : pipelines) {
            map.put(p, DemoState.checkpoint(JOB_ID, p, checkpointId, CheckpointType.SAVEPOINT_TYPE));
        }
        return map;
    }

    /** Commits a manual savepoint of pipelines 1 and 2 at {@code checkpointId} under {@code namespace}. */
    static SavepointHandle savepoint(Path namespace, long checkpointId) throws Exception {
        return savepoint(namespace, checkpointId, Map.of());
    }

    /**
     * Commits a manual savepoint of pipelines 1 and 2 at {@code checkpointId} through a storage opened
     * with the engine's keys plus {@code keys} (such as {@code savepoint.format-version=1}).
     */
    static SavepointHandle savepoint(Path namespace, long checkpointId, Map<String, String> keys) throws Exception {
        Map<String, String> config = new TreeMap<>(keys);
        config.put("namespace", namespace.toString());
        try (CheckpointStorage storage = CheckpointStorageFactories.find("localfile").create(config)) {
            List<Integer> pipelines = List.of(1, 2);
            try (SavepointSaveSession session = SavepointSaveSession.builder((SavepointStorage) storage, JOB, pipelines)
                    .open()) {
                for (CompletedCheckpoint cp : state(checkpointId, pipelines).values()) {
                    session.report(cp);
                    session.pipelineSuspended(cp.pipelineId());
                }
                return session.commit();
            }
        }
    }
}
