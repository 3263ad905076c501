package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake delete}: nothing goes without --yes; with it, exactly what was named goes. */
class DeleteCommandTest {

    @TempDir
    Path namespace;

    @Test
    void refusesWithoutYesAndDeletesNothing() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);

        ToolRun.Result one = ToolRun.run("delete", "--namespace", namespace.toString(), ToolRun.JOB, sp.savepointId());
        ToolRun.Result all = ToolRun.run("delete", "--namespace", namespace.toString(), ToolRun.JOB, "--all");

        assertThat(one.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(one.err()).contains("Refusing to delete savepoint " + sp.savepointId(), "--yes");
        assertThat(all.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(all.err()).contains("Refusing to delete every savepoint of job " + ToolRun.JOB);
        assertThat(Path.of(sp.location(), "_metadata.ser")).exists();
    }

    @Test
    void refusesASavepointAndAllTogether() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--all", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("not both");
        assertThat(Path.of(sp.location())).exists();
    }

    @Test
    void deletesOneSavepointWithYesAndLeavesTheOther() throws Exception {
        SavepointHandle gone = ToolRun.savepoint(namespace, 6);
        SavepointHandle kept = ToolRun.savepoint(namespace, 7);

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--namespace", namespace.toString(), ToolRun.JOB,
                gone.savepointId());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("Deleted savepoint " + gone.savepointId(), gone.location());
        assertThat(Path.of(gone.location())).doesNotExist();
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            assertThat(((SavepointStorage) storage).listSavepoints(ToolRun.JOB)).containsExactly(kept);
        }
    }

    @Test
    void deletingAMissingSavepointExitsThree() throws Exception {
        ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--namespace", namespace.toString(), ToolRun.JOB, "sp-nope");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(r.err()).contains("sp-nope", "does not exist");
    }

    @Test
    void deleteAllRemovesEverySavepointOfTheJob() throws Exception {
        SavepointHandle a = ToolRun.savepoint(namespace, 6);
        SavepointHandle b = ToolRun.savepoint(namespace, 7);

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--all", "--namespace", namespace.toString(), ToolRun.JOB);

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains(a.savepointId(), b.savepointId(), "Deleted 2 savepoint(s) of job " + ToolRun.JOB);
        assertThat(Files.exists(namespace.resolve("savepoint").resolve(ToolRun.JOB))).isFalse();
    }

    @Test
    void deleteAllKeepsAndReportsFoldersHoldingWhatKeepsakeDidNotWrite() throws Exception {
        SavepointHandle a = ToolRun.savepoint(namespace, 6);
        Path readme = Files.write(Path.of(a.location(), "README"), new byte[] {1});
        Path extra = Files.createDirectories(Path.of(a.location(), "extra-dir"));
        Files.write(extra.resolve("file"), new byte[] {2});
        Path photos = Files.createDirectories(namespace.resolve("savepoint").resolve(ToolRun.JOB).resolve("photos"));
        Files.write(photos.resolve("img.jpg"), new byte[] {3});

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--all", "--json", "--namespace", namespace.toString(),
                ToolRun.JOB);

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(0);
        String deleted = r.out().substring(r.out().indexOf("\"deleted\""), r.out().indexOf("\"kept\""));
        assertThat(deleted).doesNotContain("photos").doesNotContain(a.savepointId());
        assertThat(r.out().substring(r.out().indexOf("\"kept\""))).contains("photos", a.savepointId());
        assertThat(readme).exists();
        assertThat(extra.resolve("file")).exists();
        assertThat(photos.resolve("img.jpg")).exists();
        assertThat(Path.of(a.location(), "_metadata.ser")).doesNotExist();
    }
}
