package io.keepsake.tool;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading creates nothing, and a savepoint is addressed by its directory path. */
class ReadOnlyAndPathTest {

    @TempDir
    Path temp;

    @Test
    void readOnlyCommandsOnAMistypedNamespaceExitNotFoundAndCreateNothing() {
        Path mistyped = temp.resolve("mistyped").resolve("path");
        List<List<String>> commands = List.of(
                List.of("list"),
                List.of("list", ToolRun.JOB),
                List.of("verify"),
                List.of("inspect", ToolRun.JOB, "sp-1"),
                List.of("gc", "--dry-run"),
                List.of("gc"),
                List.of("delete", ToolRun.JOB, "sp-1", "--yes"),
                List.of("migrate", ToolRun.JOB, "--dry-run"));
        for (List<String> command : commands) {
            String[] args = Stream.concat(command.stream(), Stream.of("--namespace", mistyped.toString()))
                    .toArray(String[]::new);

            ToolRun.Result r = ToolRun.run(args);

            assertThat(r.exitCode()).as("%s: %s", command, r.err()).isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(r.err()).as("%s", command).contains("not found", "does not exist", mistyped.toString());
            assertThat(temp.resolve("mistyped")).as("%s created nothing", command).doesNotExist();
        }
    }

    @Test
    void listOnAnExistingEmptyNamespaceWritesNothingInIt() throws Exception {
        Path ns = Files.createDirectories(temp.resolve("ns"));

        ToolRun.Result r = ToolRun.run("list", "--namespace", ns.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("No savepoints under " + ns.resolve("savepoint"));
        try (Stream<Path> s = Files.list(ns)) {
            assertThat(s.toList()).isEmpty();
        }
    }

    @Test
    void inspectVerifyAndDeleteTakeTheSavepointDirectory() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);

        ToolRun.Result inspect = ToolRun.run("inspect", sp.location());
        ToolRun.Result inspectUri = ToolRun.run("inspect", Path.of(sp.location()).toUri().toString(), "--json");
        ToolRun.Result verify = ToolRun.run("verify", sp.location() + "/");

        assertThat(inspect.exitCode()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains(sp.savepointId(), ToolRun.JOB, sp.location());
        assertThat(inspectUri.exitCode()).as(inspectUri.err()).isZero();
        assertThat(inspectUri.out()).contains("\"savepointId\": \"" + sp.savepointId() + "\"");
        assertThat(verify.exitCode()).as(verify.err()).isZero();
        assertThat(verify.out()).contains("1 ok, 0 failed");

        ToolRun.Result delete = ToolRun.run("delete", sp.location(), "--yes");

        assertThat(delete.exitCode()).as(delete.err()).isZero();
        assertThat(Path.of(sp.location())).doesNotExist();
    }

    @Test
    void aPathThatDoesNotExistIsNotFoundAndCreatesNothing() {
        Path missing = temp.resolve("nowhere").resolve("savepoint").resolve(ToolRun.JOB).resolve("sp-1");

        ToolRun.Result r = ToolRun.run("inspect", missing.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(temp.resolve("nowhere")).doesNotExist();
    }

    @Test
    void aRelativePathIsResolvedAgainstTheWorkingDirectoryAsTheNamespaceIs() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(temp.resolve("ns"), 6);
        String relative = Path.of("").toAbsolutePath().relativize(Path.of(sp.location())).toString();
        assertThat(relative).doesNotStartWith("/");

        ToolRun.Result verify = ToolRun.run("verify", relative);
        ToolRun.Result inspect = ToolRun.run("inspect", relative + "/");

        assertThat(verify.exitCode()).as(verify.err()).isZero();
        assertThat(verify.out()).contains(sp.savepointId(), "1 ok, 0 failed",
                temp.resolve("ns").resolve("savepoint").toString());
        assertThat(inspect.exitCode()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains(sp.location());
    }

    @Test
    void aTooShortPathNamesTheLayoutEveryMessageAndTheDocsUse() {
        ToolRun.Result shallow = ToolRun.run("verify", "/" + ToolRun.JOB + "/sp-1");
        ToolRun.Result uri = ToolRun.run("verify", "hdfs://nn:8020/" + ToolRun.JOB + "/sp-1");
        ToolRun.Result both = ToolRun.run("inspect", "/a/savepoint/" + ToolRun.JOB + "/sp-1", "sp-2");

        assertThat(shallow.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(shallow.err()).contains("<namespace>/<savepoint root>/<job>/<savepoint>");
        assertThat(uri.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(uri.err()).contains("<namespace>/<savepoint root>/<job>/<savepoint>");
        assertThat(both.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(both.err()).contains("drop the second argument");
    }

    @Test
    void aFileInsideASavepointStandsForItsFolderWhenReadingAndIsRefusedByDelete() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(temp.resolve("ns"), 6);
        String metadata = sp.location() + "/_metadata.ser";
        String payload = sp.location() + "/" + sp.meta().manifest().get(0).file();

        ToolRun.Result verify = ToolRun.run("verify", metadata);
        ToolRun.Result inspect = ToolRun.run("inspect", payload);
        ToolRun.Result delete = ToolRun.run("delete", metadata, "--yes");

        assertThat(verify.exitCode()).as(verify.err()).isZero();
        assertThat(verify.out()).contains(ToolRun.JOB, sp.savepointId(), "1 ok, 0 failed");
        assertThat(verify.err()).contains("_metadata.ser is a file in savepoint " + sp.savepointId(),
                "using the savepoint folder " + sp.location());
        assertThat(inspect.exitCode()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains(sp.savepointId(), sp.location());
        assertThat(delete.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(delete.err()).contains("give the savepoint folder, not a file in it", sp.location());
        assertThat(Path.of(metadata)).exists();
    }
}
