package io.keepsake.tool;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The script {@code keepsake completion} prints, run by a real {@code bash}: the completion
 * function bash registered for {@code keepsake} is called with {@code COMP_WORDS} and
 * {@code COMP_CWORD} set as bash sets them on TAB, and {@code COMPREPLY} is what bash would offer.
 */
class BashCompletionTest {

    @TempDir
    Path temp;

    private Path script;

    @BeforeEach
    void writeScript() throws IOException {
        ToolRun.Result r = ToolRun.run("completion");
        assertThat(r.exitCode()).isZero();
        script = Files.writeString(temp.resolve("keepsake-completion.bash"), r.out(), StandardCharsets.UTF_8);
        Files.createDirectories(temp.resolve("work/savepoint/700000000000000123/sp-42"));
        Files.writeString(temp.resolve("work/seatunnel.yaml"), "seatunnel: {}\n");
    }

    /** What bash offers for {@code words}, the last one being completed, in the folder {@code work}. */
    private List<String> complete(String... words) throws Exception {
        StringBuilder array = new StringBuilder();
        for (String w : words) {
            array.append(" '").append(w.replace("'", "'\\''")).append("'");
        }
        String driver = "set -u\n"
                + "source \"$1\"\n"
                + "cd \"$2\"\n"
                + "function_name=$(complete -p keepsake | sed -E 's/.*-F ([^ ]+).*/\\1/')\n"
                + "COMP_WORDS=(" + array + " )\n"
                + "COMP_CWORD=" + (words.length - 1) + "\n"
                + "COMP_LINE=\"${COMP_WORDS[*]}\"\n"
                + "COMP_POINT=${#COMP_LINE}\n"
                + "COMPREPLY=()\n"
                + "\"$function_name\" keepsake \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        Path driverFile = Files.writeString(temp.resolve("driver.bash"), driver, StandardCharsets.UTF_8);
        Path out = temp.resolve("out.txt");
        Path err = temp.resolve("err.txt");
        Process p = new ProcessBuilder("bash", driverFile.toString(), script.toString(), temp.resolve("work").toString())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(err)).isZero();
        List<String> reply = new ArrayList<>();
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            if (!line.isEmpty()) {
                reply.add(line);
            }
        }
        return reply;
    }

    @Test
    void aSavepointPathArgumentCompletesFileNames() throws Exception {
        assertThat(complete("keepsake", "verify", "sav")).containsExactly("savepoint");
        assertThat(complete("keepsake", "verify", "savepoint/700000000000000123/")).containsExactly(
                "savepoint/700000000000000123/sp-42");
        assertThat(complete("keepsake", "inspect", "--decode", "savepoint/7")).containsExactly(
                "savepoint/700000000000000123");
        assertThat(complete("keepsake", "delete", "--yes", "sav")).containsExactly("savepoint");
    }

    @Test
    void pathOptionsCompleteFileNamesAndOtherOptionsDoNot() throws Exception {
        assertThat(complete("keepsake", "list", "--namespace", "sav")).containsExactly("savepoint");
        assertThat(complete("keepsake", "verify", "--savepoint-path", "sav")).containsExactly("savepoint");
        assertThat(complete("keepsake", "gc", "--config", "seat")).containsExactly("seatunnel.yaml");
        // a job id and an option's value that is not a path get no file names
        assertThat(complete("keepsake", "migrate", "sav")).isEmpty();
        assertThat(complete("keepsake", "migrate", "--savepoint-id", "sav")).isEmpty();
        assertThat(complete("keepsake", "verify", "--progress", "sav")).isEmpty();
    }

    @Test
    void backendOffersTheBackendsOfTheRunningClassPath() throws Exception {
        assertThat(complete("keepsake", "verify", "--backend", "")).contains("localfile", "hdfs", "s3");
        assertThat(complete("keepsake", "list", "--backend", "h")).containsExactly("hdfs");
    }

    @Test
    void commandsAndOptionsStillComplete() throws Exception {
        assertThat(complete("keepsake", "ver")).containsExactly("verify");
        assertThat(complete("keepsake", "verify", "--sav")).containsExactly("--savepoint-path");
        assertThat(complete("keepsake", "verify", "--progress", "al")).containsExactly("always");
    }
}
