package io.keepsake.tool;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.Fixtures;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code keepsake migrate} on real checkpoint directories written by SeaTunnel 2.3.8: the bundle
 * restores to exactly the newest checkpoint of every pipeline, decoded independently here from
 * the fixture files.
 */
class MigrateSeaTunnelFixturesTest {

    @TempDir
    Path namespace;

    static List<String> jobs() {
        return Fixtures.legacyV0Jobs();
    }

    /** The newest checkpoint of each pipeline, by file name, decoded straight from the fixture bytes. */
    private static Map<Integer, CompletedCheckpoint> newestByPipeline(String job) {
        Map<Integer, Long> newestId = new TreeMap<>();
        Map<Integer, CompletedCheckpoint> newest = new TreeMap<>();
        for (String file : Fixtures.legacyV0Files(job)) {
            String[] parts = file.substring(0, file.length() - ".ser".length()).split("-");
            int pipeline = Integer.parseInt(parts[2]);
            long checkpoint = Long.parseLong(parts[3]);
            if (checkpoint >= newestId.getOrDefault(pipeline, Long.MIN_VALUE)) {
                newestId.put(pipeline, checkpoint);
                newest.put(pipeline, LegacyCheckpointCodec.decodeFile(Fixtures.legacyV0File(job, file), file));
            }
        }
        return newest;
    }

    @ParameterizedTest
    @MethodSource("jobs")
    void migratedSeaTunnelCheckpointsRestoreEqual(String job) throws Exception {
        Fixtures.copyLegacyJob(job, namespace);
        Map<Integer, CompletedCheckpoint> expected = newestByPipeline(job);

        ToolRun.Result r = ToolRun.run("migrate", "--namespace", namespace.toString(), "--job", job);

        assertThat(r.exitCode()).as(r.err()).isEqualTo(0);
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            SavepointStorage savepoints = (SavepointStorage) storage;
            List<SavepointHandle> handles = savepoints.listSavepoints(job);
            assertThat(handles).hasSize(1);
            SavepointHandle handle = handles.get(0);
            assertThat(r.out()).contains(handle.savepointId(), handle.location());
            assertThat(handle.meta().properties()).containsEntry("migratedFrom", "legacy-v0");
            assertThat(new SavepointRestorer(storage, savepoints).restoreSavepoint(job, handle.savepointId()).checkpoints())
                    .isEqualTo(expected)
                    .hasSize(expected.size());
        }
    }
}
