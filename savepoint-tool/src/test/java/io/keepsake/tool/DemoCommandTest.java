package io.keepsake.tool;

import io.keepsake.tool.internal.DemoScenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake demo}: the whole story passes in a fresh directory. */
class DemoCommandTest {

    @TempDir
    Path temp;

    @Test
    void demoPassesEveryCheckAndExitsZero() throws IOException {
        Path workDir = temp.resolve("demo");

        ToolRun.Result r = ToolRun.run("demo", "--work-dir", workDir.toString());

        assertThat(r.exitCode()).as(r.out()).isEqualTo(0);
        assertThat(r.out()).contains("Work directory: " + workDir, "[1/11]", "[11/11]", "Result: all ")
                .contains("checks passed").doesNotContain("FAIL ");
        assertThat(r.out()).contains("SavepointCorruptedException", "(exit code 4)");
        assertThat(r.out()).as("the savepoint is checkpoint 6, so resuming at 7 leaves no hole")
                .contains("Stop with savepoint: checkpoint 6 of every pipeline", "it holds checkpoint 6 of pipelines [1, 2]",
                        "the engine numbers its next checkpoint 7", "Resume after the savepoint's checkpoint 6: checkpoints 7 to 10");
        assertThat(r.out().lines()).containsAll(readmeDemoLines());
        assertThat(r.out()).contains("Removed the demo's files from " + workDir);
        assertThat(workDir).as("the demo created it, so it removes it").doesNotExist();
    }

    /** The non-blank lines of README's block of the demo's steps. */
    private static List<String> readmeDemoLines() throws IOException {
        String readme = Files.readString(Path.of("../README.md"));
        int intro = readme.indexOf("Its steps, as it prints them");
        assertThat(intro).as("README's demo steps").isNotNegative();
        int start = readme.indexOf("```\n", intro) + 4;
        List<String> lines = readme.substring(start, readme.indexOf("```", start)).lines()
                .filter(l -> !l.isBlank()).toList();
        assertThat(lines).hasSizeGreaterThan(10).anyMatch(l -> l.startsWith("Result: all "));
        return lines;
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
    void theKeptRootHoldsSeaTunnelCheckpointsThatMigrateTurnsIntoAVerifiedSavepoint() throws Exception {
        Path workDir = temp.resolve("kept");
        String namespace = workDir.resolve("checkpoints").toString();
        ToolRun.Result demo = ToolRun.run("demo", "--keep", "--work-dir", workDir.toString());
        assertThat(demo.exitCode()).as(demo.out()).isEqualTo(0);
        assertThat(demo.out()).contains("keepsake migrate --namespace " + namespace + " " + DemoScenario.LEGACY_JOB);
        Path legacyJob = workDir.resolve("checkpoints").resolve(DemoScenario.LEGACY_JOB);
        try (Stream<Path> files = Files.list(legacyJob)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .as("checkpoints 2 and 3 of pipelines 1 and 2, in SeaTunnel's <ts>-<rand>-<pipeline>-<checkpoint>.ser names")
                    .hasSize(4).allMatch(n -> n.matches("\\d+-\\d+-[12]-[23]\\.ser"));
        }

        ToolRun.Result migrate = ToolRun.run("migrate", "--namespace", namespace, DemoScenario.LEGACY_JOB);

        assertThat(migrate.exitCode()).as(migrate.out() + migrate.err()).isEqualTo(0);
        ToolRun.Result list = ToolRun.run("list", "--namespace", namespace, "--verify", DemoScenario.LEGACY_JOB);
        assertThat(list.exitCode()).as(list.out() + list.err()).isEqualTo(0);
        assertThat(list.out()).contains(" ok");
        ToolRun.Result verify = ToolRun.run("verify", "--namespace", namespace, DemoScenario.LEGACY_JOB);
        assertThat(verify.exitCode()).as(verify.out() + verify.err()).isEqualTo(0);
        ToolRun.Result again = ToolRun.run("migrate", "--namespace", namespace, DemoScenario.LEGACY_JOB);
        assertThat(again.exitCode()).isEqualTo(0);
        assertThat(again.out()).contains("already migrated");
    }

    @Test
    void anEmptyDirectoryGivenByTheUserIsEmptiedButKept() throws Exception {
        Path workDir = Files.createDirectories(temp.resolve("given"));

        ToolRun.Result r = ToolRun.run("demo", "--json", "--work-dir", workDir.toString());

        assertThat(r.exitCode()).as(r.out()).isEqualTo(0);
        assertThat(r.out().strip()).startsWith("{").contains("\"schemaVersion\": 3", "\"command\": \"demo\"",
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
