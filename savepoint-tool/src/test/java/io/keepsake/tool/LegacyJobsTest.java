package io.keepsake.tool;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.tool.internal.DemoState;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Jobs with only legacy checkpoints are listed with what migrate would do; migrate is idempotent. */
class LegacyJobsTest {

    private static final String OTHER = "700000000000000456";

    @TempDir
    Path temp;

    private Path namespace;

    /** Writes checkpoints 1..{@code last} of pipelines 1 and 2 of {@code job}, as SeaTunnel 2.3.x does. */
    private void writeLegacy(String job, long last) throws Exception {
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            for (long c = 1; c <= last; c++) {
                for (int p = 1; p <= 2; p++) {
                    CompletedCheckpoint cp = DemoState.checkpoint(Long.parseLong(job), p, c,
                            CheckpointType.CHECKPOINT_TYPE);
                    storage.storeCheckPoint(new PipelineState(job, p, c, LegacyCheckpointCodec.encodeCheckpoint(cp)));
                }
            }
        }
    }

    @Test
    void listShowsJobsWithOnlyLegacyCheckpointsAndWhatMigrateWouldDo() throws Exception {
        namespace = temp.resolve("ns");
        writeLegacy(ToolRun.JOB, 3);
        writeLegacy(OTHER, 2);

        ToolRun.Result r = ToolRun.run("list", "--namespace", namespace.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("No savepoints under", "Jobs with checkpoints under " + namespace,
                ToolRun.JOB, "p1: 3, p2: 3", "keepsake migrate " + ToolRun.JOB + " would write migrated-v0-p1c3-p2c3",
                OTHER, "migrated-v0-p1c2-p2c2");

        ToolRun.Result one = ToolRun.run("list", "--json", "--namespace", namespace.toString(), OTHER);

        assertThat(one.exitCode()).as("a job with only checkpoints is found").isZero();
        assertThat(one.out()).contains("\"checkpointJobs\": [", "\"job\": \"" + OTHER + "\"", "\"state\": \"pending\"")
                .doesNotContain(ToolRun.JOB);
    }

    @Test
    void dryRunWritesNothingAndAllJobsMigratesEveryJobOnce() throws Exception {
        namespace = temp.resolve("ns");
        writeLegacy(ToolRun.JOB, 3);
        writeLegacy(OTHER, 2);
        String ns = namespace.toString();

        ToolRun.Result dry = ToolRun.run("migrate", "--all-jobs", "--dry-run", "--namespace", ns);

        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("Job " + ToolRun.JOB + ": dry run, nothing written",
                "migrated-v0-p1c3-p2c3", "Job " + OTHER + ": dry run");
        assertThat(namespace.resolve("savepoint").resolve(ToolRun.JOB)).doesNotExist();
        assertThat(namespace.resolve("savepoint").resolve(OTHER)).doesNotExist();

        ToolRun.Result all = ToolRun.run("migrate", "--all-jobs", "--namespace", ns);
        ToolRun.Result again = ToolRun.run("migrate", "--all-jobs", "--namespace", ns);
        ToolRun.Result list = ToolRun.run("list", "--namespace", ns);

        assertThat(all.exitCode()).as(all.err()).isZero();
        assertThat(Files.isDirectory(namespace.resolve("savepoint").resolve(OTHER).resolve("migrated-v0-p1c2-p2c2")))
                .isTrue();
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).contains("Job " + ToolRun.JOB + ": already migrated", "Job " + OTHER + ": already migrated");
        assertThat(list.out()).contains("already migrated to migrated-v0-p1c3-p2c3");
    }

    @Test
    void newCheckpointsAfterAMigrationAreMigratedAgainUnderANewId() throws Exception {
        namespace = temp.resolve("ns");
        writeLegacy(ToolRun.JOB, 2);
        String ns = namespace.toString();
        assertThat(ToolRun.run("migrate", ToolRun.JOB, "--namespace", ns).exitCode()).isZero();
        writeLegacy(ToolRun.JOB, 4);

        ToolRun.Result r = ToolRun.run("migrate", ToolRun.JOB, "--namespace", ns);

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("Savepoint migrated-v0-p1c4-p2c4");
    }

    @Test
    void jobsAndAllJobsTogetherOrNeitherAreUsageErrors() {
        ToolRun.Result neither = ToolRun.run("migrate", "--namespace", temp.toString());
        ToolRun.Result both = ToolRun.run("migrate", ToolRun.JOB, "--all-jobs", "--namespace", temp.toString());

        assertThat(neither.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(both.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(both.err()).contains("not both");
    }
}
