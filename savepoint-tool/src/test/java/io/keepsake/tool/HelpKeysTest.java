package io.keepsake.tool;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code -D} keys docs/tool.md names are printed whole in each command's --help at 80 columns. */
class HelpKeysTest {

    private static final Pattern DOC_KEY = Pattern.compile("-D ([A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9])");

    static Set<String> documentedKeys() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "tool.md"));
        Set<String> keys = new TreeSet<>();
        Matcher m = DOC_KEY.matcher(doc);
        while (m.find()) {
            if (!m.group(1).equals("key")) {
                keys.add(m.group(1));
            }
        }
        return keys;
    }

    @Test
    void everyDocumentedKeyIsUnbrokenInTheHelpOfEveryCommandTakingMinusD() throws Exception {
        Set<String> keys = documentedKeys();
        assertThat(keys).as("keys named in docs/tool.md").contains("fs.defaultFS", "create-roots",
                "savepoint.format-version", "hdfs.allow-non-atomic-scheme");

        List<String> commands = new ArrayList<>();
        KeepsakeCli.commandLine().getSubcommands().forEach((name, sub) -> {
            if (name.equals(sub.getCommandName()) && sub.getCommandSpec().findOption("-D") != null) {
                commands.add(name);
            }
        });
        assertThat(commands).contains("list", "verify", "migrate", "gc", "delete", "inspect");

        for (String command : commands) {
            ToolRun.Result help = ToolRun.run(command, "--help");
            assertThat(help.exitCode()).isZero();
            assertThat(help.out().lines()).as(command + " --help fits 80 columns")
                    .allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
            for (String key : keys) {
                assertThat(help.out()).as(command + " --help names -D " + key + " whole").contains(key);
            }
        }
    }

    @Test
    void theDefaultWidthIsEightyColumns() {
        assertThat(new CommandLine.Model.UsageMessageSpec().width()).isEqualTo(80);
    }
}
