package io.keepsake.tool;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.DemoState;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake migrate}: legacy v0 checkpoint files become a verified savepoint bundle. */
class MigrateCommandTest {

    @TempDir
    Path namespace;

    /** Writes checkpoints 1..3 of pipelines 1 and 2 as SeaTunnel 2.3.x would; returns the latest, decoded. */
    private Map<Integer, CompletedCheckpoint> writeLegacy() throws Exception {
        Map<Integer, CompletedCheckpoint> latest = new TreeMap<>();
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            for (long c = 1; c <= 3; c++) {
                for (int p = 1; p <= 2; p++) {
                    // Pipeline 2 was itself restored once: the legacy format stores the runtime-only flag.
                    CompletedCheckpoint cp = DemoState.checkpoint(ToolRun.JOB_ID, p, c, CheckpointType.CHECKPOINT_TYPE)
                            .withRestored(p == 2);
                    storage.storeCheckPoint(new PipelineState(ToolRun.JOB, p, c, LegacyCheckpointCodec.encodeCheckpoint(cp)));
                    latest.put(p, cp);
                }
            }
        }
        return latest;
    }

    @Test
    void migratesTheLatestLegacyCheckpointsIntoARestorableSavepoint() throws Exception {
        Map<Integer, CompletedCheckpoint> legacy = writeLegacy();

        ToolRun.Result r = ToolRun.run("migrate", "--namespace", namespace.toString(), "--job", ToolRun.JOB);

        assertThat(r.exitCode()).isEqualTo(0);
        String id = "migrated-v0-p1c3-p2c3";
        Path location = namespace.resolve("savepoint").resolve(ToolRun.JOB).resolve(id);
        assertThat(r.out()).contains("Savepoint " + id, "Path      " + location, "equal to the decoded legacy checkpoints");
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            SavepointStorage savepoints = (SavepointStorage) storage;
            SavepointHandle handle = savepoints.readMetadata(ToolRun.JOB, id);
            assertThat(handle.meta().kind()).isEqualTo(SavepointKind.MANUAL);
            assertThat(handle.meta().properties()).containsEntry("migratedFrom", "legacy-v0");
            assertThat(new SavepointRestorer(storage, savepoints).restoreSavepoint(ToolRun.JOB, id).checkpoints()).isEqualTo(legacy);
            assertThat(new SavepointRestorer(storage, savepoints).recoverLatest(ToolRun.JOB).savepoint()).contains(handle);
            assertThat(storage.getAllCheckpoints(ToolRun.JOB)).hasSize(6);
        }
    }

    /** A storage told to write format version 1: migrate says the version read back from what it wrote. */
    @Test
    void migrateSaysTheFormatVersionItWrote() throws Exception {
        writeLegacy();

        ToolRun.Result text = ToolRun.run("migrate", "--namespace", namespace.toString(), "-D",
                "savepoint.format-version=1", ToolRun.JOB);
        ToolRun.Result json = ToolRun.run("migrate", "--json", "--namespace", namespace.toString(), "-D",
                "savepoint.format-version=1", ToolRun.JOB);

        assertThat(text.exitCode()).as(text.err()).isZero();
        assertThat(text.out()).contains("read back through the reader registry (format version 1)")
                .doesNotContain("format version 2");
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            assertThat(((SavepointStorage) storage).readMetadata(ToolRun.JOB, "migrated-v0-p1c3-p2c3").meta()
                    .formatVersion()).isEqualTo(1);
        }
        assertThat(json.exitCode()).as(json.err()).isZero();
        assertThat(json.out()).contains("\"status\": \"already-migrated\"", "\"formatVersion\": 1");
    }

    /** The one command that creates roots accepts {@code -D create-roots=true}, which other commands refuse. */
    @Test
    void migrateAcceptsCreateRootsTrue() throws Exception {
        writeLegacy();

        ToolRun.Result r = ToolRun.run("migrate", "--namespace", namespace.toString(), "-D", "create-roots=true", ToolRun.JOB);

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(namespace.resolve("savepoint").resolve(ToolRun.JOB).resolve("migrated-v0-p1c3-p2c3")
                .resolve("_metadata.ser")).isRegularFile();
        ToolRun.Result list = ToolRun.run("list", "--namespace", namespace.toString(), "-D", "create-roots=true", ToolRun.JOB);
        assertThat(list.exitCode()).isEqualTo(2);
        assertThat(list.err()).contains("drop the -D create-roots option");
    }

    /**
     * A job whose newest checkpoints a savepoint already holds (as SeaTunnel's
     * Keepsake plugin keeps one beside its checkpoint file) is not proposed for migration.
     */
    @Test
    void listDoesNotProposeMigratingCheckpointsASavepointAlreadyHolds() throws Exception {
        writeLegacy();
        ToolRun.Result before = ToolRun.run("list", "--namespace", namespace.toString(), ToolRun.JOB);
        assertThat(before.out()).contains("keepsake migrate " + ToolRun.JOB + " would write migrated-v0-p1c3-p2c3");
        String older = ToolRun.savepoint(namespace, 2).savepointId();
        assertThat(ToolRun.run("list", "--namespace", namespace.toString(), ToolRun.JOB).out())
                .as("a savepoint older than the newest checkpoints holds nothing newer")
                .contains("would write migrated-v0-p1c3-p2c3");

        String kept = ToolRun.savepoint(namespace, 3).savepointId();

        ToolRun.Result after = ToolRun.run("list", "--namespace", namespace.toString(), ToolRun.JOB);
        assertThat(after.exitCode()).as(after.err()).isZero();
        assertThat(after.out()).contains("not needed: already in savepoint " + kept).doesNotContain("would write")
                .doesNotContain(older + ",");
        ToolRun.Result json = ToolRun.run("list", "--namespace", namespace.toString(), ToolRun.JOB, "--json");
        assertThat(json.out()).contains("\"state\": \"kept\"");
    }

    /** An empty default savepoint root says where else savepoints may be. */
    @Test
    void anEmptyDefaultSavepointRootSaysSavepointPathMayBeElsewhere() throws Exception {
        Files.createDirectories(namespace);
        ToolRun.Result r = ToolRun.run("list", "--namespace", namespace.toString());
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("No savepoints under", "give --savepoint-path");
        Path apart = Files.createDirectories(namespace.resolveSibling(namespace.getFileName() + "-sp"));
        ToolRun.Result given = ToolRun.run("list", "--namespace", namespace.toString(), "--savepoint-path", apart.toString());
        assertThat(given.out()).contains("No savepoints under").doesNotContain("give --savepoint-path");
    }

    @Test
    void aSecondRunSaysAlreadyMigratedAndWritesNothing() throws Exception {
        writeLegacy();
        ToolRun.Result first = ToolRun.run("migrate", "--namespace", namespace.toString(), ToolRun.JOB);
        assertThat(first.exitCode()).as(first.err()).isZero();
        Path savepoints = namespace.resolve("savepoint").resolve(ToolRun.JOB);
        List<Path> before;
        try (var s = Files.list(savepoints)) {
            before = s.sorted().toList();
        }

        ToolRun.Result again = ToolRun.run("migrate", "--namespace", namespace.toString(), ToolRun.JOB);

        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).contains("already migrated", "migrated-v0-p1c3-p2c3", "nothing written");
        try (var s = Files.list(savepoints)) {
            assertThat(s.sorted().toList()).isEqualTo(before);
        }
    }

    @Test
    void theDeprecatedJobOptionStillWorksAndSaysSo() throws Exception {
        writeLegacy();

        ToolRun.Result r = ToolRun.run("migrate", "--namespace", namespace.toString(), "--job", ToolRun.JOB);

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.err()).contains("--job is deprecated");
        assertThat(r.out()).contains("Migrated the latest legacy v0 checkpoints of job " + ToolRun.JOB);
    }

    @Test
    void aDifferentSavepointWithTheIdIsRefusedWithTheTypedError() throws Exception {
        writeLegacy();
        String existing = ToolRun.savepoint(namespace, 6).savepointId();

        ToolRun.Result r = ToolRun.run("migrate", "--namespace", namespace.toString(), ToolRun.JOB, "--savepoint-id",
                existing);

        assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(r.err()).contains("already exists", existing, "does not hold these checkpoints");
    }

    @Test
    void usesTheGivenSavepointId() throws Exception {
        Map<Integer, CompletedCheckpoint> legacy = writeLegacy();

        ToolRun.Result r = ToolRun.run("migrate", "--namespace", namespace.toString(), "--job", ToolRun.JOB,
                "--savepoint-id", "sp-from-2-3-8");

        assertThat(r.exitCode()).isEqualTo(0);
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            SavepointStorage savepoints = (SavepointStorage) storage;
            assertThat(savepoints.listSavepoints(ToolRun.JOB)).extracting(SavepointHandle::savepointId)
                    .containsExactly("sp-from-2-3-8");
            assertThat(new SavepointRestorer(storage, savepoints).restoreSavepoint(ToolRun.JOB, "sp-from-2-3-8").checkpoints())
                    .isEqualTo(legacy);
        }
    }

    @Test
    void aJobWithoutLegacyCheckpointsIsNotFound() {
        ToolRun.Result r = ToolRun.run("migrate", "--namespace", namespace.toString(), "--job", ToolRun.JOB);

        assertThat(r.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(r.err()).contains("no legacy checkpoint", ToolRun.JOB);
    }

    @Test
    void aCorruptedNewestCheckpointFailsNamingTheFileAndWritesNothing() throws Exception {
        writeLegacy();
        Path newest;
        try (Stream<Path> files = Files.list(namespace.resolve(ToolRun.JOB))) {
            newest = files.filter(f -> f.getFileName().toString().endsWith("-2-3.ser")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(newest);
        Files.write(newest, java.util.Arrays.copyOf(bytes, bytes.length / 2));

        ToolRun.Result r = ToolRun.run("migrate", "--namespace", namespace.toString(), "--job", ToolRun.JOB);

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(r.err()).contains(newest.toString());
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            assertThat(((SavepointStorage) storage).scanSavepoints(ToolRun.JOB)).isEmpty();
        }
    }

    @Test
    void theMigratedSavepointVerifies() throws Exception {
        writeLegacy();
        ToolRun.run("migrate", "--namespace", namespace.toString(), "--job", ToolRun.JOB);

        ToolRun.Result r = ToolRun.run("verify", "--namespace", namespace.toString(), ToolRun.JOB);

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("migrated-v0-p1c3-p2c3", "OK");
        assertThat(List.of(r.err())).containsExactly("");
    }
}
