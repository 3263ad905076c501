package io.keepsake.tool;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.Fixtures;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code keepsake migrate} on a job written by SeaTunnel 2.3.8 whose newest checkpoint of pipeline
 * 1 was cut in half: the message names the file and the next step, nothing is created, and
 * {@code --checkpoint} migrates the pipeline's previous checkpoint instead.
 */
class MigrateTruncatedSeaTunnelCheckpointTest {

    /** Pipelines 1 and 2, checkpoints 1 to 3 each. */
    private static final String JOB = "700000000000000002";
    private static final String P1_NEWEST = "1796001599919-829-1-3.ser";
    private static final String P1_PREVIOUS = "1796001599906-574-1-2.ser";
    private static final String P2_NEWEST = "1796001599924-686-2-3.ser";

    @TempDir
    Path namespace;

    private Path truncated;

    @BeforeEach
    void truncateTheNewestCheckpointOfPipelineOne() throws Exception {
        Fixtures.copyLegacyJob(JOB, namespace);
        truncated = namespace.resolve(JOB).resolve(P1_NEWEST);
        byte[] bytes = Files.readAllBytes(truncated);
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length / 2));
    }

    private List<Path> everything() throws Exception {
        try (Stream<Path> s = Files.walk(namespace)) {
            return s.sorted().toList();
        }
    }

    private static CompletedCheckpoint fixture(String file) {
        return LegacyCheckpointCodec.decodeFile(Fixtures.legacyV0File(JOB, file), file);
    }

    @Test
    void aTruncatedNewestCheckpointNamesTheFileAndTheNextStepAndCreatesNothing() throws Exception {
        List<Path> before = everything();

        ToolRun.Result r = ToolRun.run("migrate", JOB, "--namespace", namespace.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(r.err()).contains("Cannot migrate job " + JOB + ": the newest checkpoint of pipeline 1 (checkpoint 3)"
                        + " does not decode", "nothing was written", "cut short or damaged",
                "--checkpoint 1:2 (it also has 2, 1)", "put back an intact copy of the file in " + truncated)
                .doesNotContain("should never happen");
        assertThat(r.out()).isEmpty();
        assertThat(everything()).as("no savepoint root, no job folder").isEqualTo(before);
        assertThat(namespace.resolve("savepoint")).doesNotExist();
    }

    @Test
    void checkpointMigratesThePreviousCheckpointOfThatPipeline() throws Exception {
        ToolRun.Result r = ToolRun.run("migrate", JOB, "--checkpoint", "1:2", "--namespace", namespace.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        String id = "migrated-v0-p1c2-p2c3";
        assertThat(r.out()).contains("Savepoint " + id, P1_PREVIOUS, P2_NEWEST);
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            SavepointStorage savepoints = (SavepointStorage) storage;
            assertThat(savepoints.readMetadata(JOB, id).meta().properties())
                    .containsEntry("legacyCheckpoint.1", "2").containsEntry("legacyCheckpoint.2", "3");
            assertThat(new SavepointRestorer(storage, savepoints).restoreSavepoint(JOB, id).checkpoints())
                    .isEqualTo(Map.of(1, fixture(P1_PREVIOUS), 2, fixture(P2_NEWEST)));
        }

        ToolRun.Result again = ToolRun.run("migrate", JOB, "--checkpoint", "1:2", "--namespace", namespace.toString());
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).contains("already migrated", id);
    }

    @Test
    void aCheckpointForEveryPipelineAppliesToThePipelinesNotNamed() throws Exception {
        ToolRun.Result r = ToolRun.run("migrate", JOB, "--checkpoint", "2", "--checkpoint", "2:1", "--dry-run",
                "--namespace", namespace.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("would migrate", "migrated-v0-p1c2-p2c1");
        assertThat(namespace.resolve("savepoint")).doesNotExist();
    }

    @Test
    void aChosenCheckpointThatIsNotThereIsNotFoundListingTheOthers() throws Exception {
        List<Path> before = everything();

        ToolRun.Result missing = ToolRun.run("migrate", JOB, "--checkpoint", "1:7", "--namespace", namespace.toString());
        ToolRun.Result noPipeline = ToolRun.run("migrate", JOB, "--checkpoint", "5:1", "--namespace",
                namespace.toString());

        assertThat(missing.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(missing.err()).contains("pipeline 1 has no checkpoint 7; it has [3, 2, 1]");
        assertThat(noPipeline.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(noPipeline.err()).contains("no checkpoint of pipeline 5", "its pipelines are [1, 2]");
        assertThat(everything()).isEqualTo(before);
    }

    @Test
    void checkpointIsForOneJobAndTakesNumbers() {
        ToolRun.Result twoJobs = ToolRun.run("migrate", JOB, "700000000000000101", "--checkpoint", "1:2", "--namespace",
                namespace.toString());
        ToolRun.Result words = ToolRun.run("migrate", JOB, "--checkpoint", "one:two", "--namespace",
                namespace.toString());
        ToolRun.Result twice = ToolRun.run("migrate", JOB, "--checkpoint", "1:2", "--checkpoint", "1:1", "--namespace",
                namespace.toString());

        assertThat(twoJobs.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(twoJobs.err()).contains("exactly one JOB");
        assertThat(words.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(words.err()).contains("PIPELINE:CHECKPOINT", "one:two");
        assertThat(twice.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(twice.err()).contains("pipeline 1 twice");
    }
}
