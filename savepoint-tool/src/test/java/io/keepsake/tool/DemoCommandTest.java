package io.keepsake.tool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake demo}: the whole story passes in a fresh directory. */
class DemoCommandTest {

    @TempDir
    Path temp;

    @Test
    void demoPassesEveryCheckAndExitsZero() {
        Path workDir = temp.resolve("demo");

        ToolRun.Result r = ToolRun.run("demo", "--work-dir", workDir.toString());

        assertThat(r.exitCode()).as(r.out()).isEqualTo(0);
        assertThat(r.out()).contains("Work directory: " + workDir, "[1/10]", "[10/10]", "Result: all ")
                .contains("checks passed").doesNotContain("FAIL ");
        assertThat(r.out()).contains("SavepointCorruptedException", "(exit code 4)");
        assertThat(r.out()).contains("Removed the demo's files from " + workDir);
        assertThat(workDir).as("the demo created it, so it removes it").doesNotExist();
    }

    @Test
    void keepLeavesTheFilesAndSaysWhere() {
        Path workDir = temp.resolve("kept");

        ToolRun.Result r = ToolRun.run("demo", "--keep", "--work-dir", workDir.toString());

        assertThat(r.exitCode()).as(r.out()).isEqualTo(0);
        assertThat(r.out()).contains("Kept the demo's files in " + workDir);
        assertThat(workDir.resolve("checkpoints").resolve("savepoint").resolve("700000000000004242")).isDirectory();
    }

    @Test
    void anEmptyDirectoryGivenByTheUserIsEmptiedButKept() throws Exception {
        Path workDir = Files.createDirectories(temp.resolve("given"));

        ToolRun.Result r = ToolRun.run("demo", "--json", "--work-dir", workDir.toString());

        assertThat(r.exitCode()).as(r.out()).isEqualTo(0);
        assertThat(r.out().strip()).startsWith("{").contains("\"schemaVersion\": 2", "\"command\": \"demo\"",
                "\"ok\": true", "\"failed\": 0");
        assertThat(workDir).isEmptyDirectory();
    }

    @Test
    void refusesADirectoryThatIsNotEmpty() throws Exception {
        Files.writeString(temp.resolve("precious.txt"), "keep me");

        ToolRun.Result r = ToolRun.run("demo", "--work-dir", temp.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("not empty");
        assertThat(temp.resolve("precious.txt")).hasContent("keep me");
    }
}
