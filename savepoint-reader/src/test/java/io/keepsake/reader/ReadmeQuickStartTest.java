package io.keepsake.reader;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README's embedding quick-start shows code of the consumer project that the {@code quickstart}
 * module builds and runs with maven-invoker-plugin, line for line; quickstart/README.md says how
 * to install what that project depends on and how to run it, as the build does.
 */
class ReadmeQuickStartTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path PROJECT = ROOT.resolve("quickstart/src/it/embedding");
    private static final Path CODE = PROJECT.resolve("src/main/java/com/example/quickstart/QuickStart.java");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```\n", Pattern.DOTALL);
    private static final Pattern KEEPSAKE_ARTIFACT =
            Pattern.compile("<groupId>io\\.keepsake</groupId>\\s*<artifactId>([\\w-]+)</artifactId>");

    private static String section() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int start = readme.indexOf("## Using it from an engine\n");
        assertThat(start).as("README's quick-start heading").isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    private static List<String> javaBlocks() throws IOException {
        List<String> blocks = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(section());
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    /** {@code block} with {@code indent} spaces put before each of its non-blank lines. */
    private static String indented(String block, int indent) {
        String pad = " ".repeat(indent);
        return block.lines().map(l -> l.isBlank() ? l : pad + l).collect(Collectors.joining("\n", "", "\n"));
    }

    @Test
    void everyJavaBlockOfTheReadmeIsARunOfLinesOfTheQuickStartTheBuildRuns() throws IOException {
        String code = Files.readString(CODE);
        List<String> blocks = javaBlocks();
        assertThat(blocks).as("README's quick-start code blocks").hasSizeGreaterThanOrEqualTo(2);
        for (String block : blocks) {
            boolean found = false;
            for (int indent = 0; indent <= 12 && !found; indent += 4) {
                found = code.contains(indented(block, indent));
            }
            assertThat(found).as("README block, line for line (at some indentation), in %s:%n%s", CODE, block).isTrue();
        }
    }

    @Test
    void theReadmeShowsTheTypedEntryPointAndWhatToDoOnEachTypedError() throws IOException {
        String shown = String.join("", javaBlocks());
        assertThat(shown).contains("KeepsakeStorage.open(\"localfile\", Map.of(\"namespace\"")
                .doesNotContain("(KeepsakeStorage)");
        for (String error : List.of("SavepointNotFoundException", "SavepointCorruptedException",
                "SavepointIncompatibleException", "SavepointResourcesExhaustedException", "SavepointStorageException")) {
            assertThat(shown).as("what to do on %s", error).containsPattern("catch \\(" + error + " e\\) \\{\n\\s+\\S.*\n");
        }
    }

    @Test
    void theQuickStartShowsTheRegistryAndTheFallbackPastACorruptedSavepoint() throws IOException {
        String code = Files.readString(CODE);
        assertThat(code).contains("SavepointReaderRegistry.standard()", "withFallbackPastCorrupted(true)",
                "catch (SavepointCorruptedException e)");
    }

    @Test
    void itsReadmeSaysToInstallWhatTheProjectUsesAndToRunItAsTheBuildDoes() throws IOException {
        String guide = Files.readString(ROOT.resolve("quickstart/README.md"));
        Matcher install = Pattern.compile("`mvn -B -q -pl ([\\w,-]+) -am install -DskipTests`").matcher(guide);
        assertThat(install.find()).as("quickstart/README.md's install command").isTrue();
        List<String> installed = List.of(install.group(1).split(","));
        Matcher artifact = KEEPSAKE_ARTIFACT.matcher(Files.readString(PROJECT.resolve("pom.xml")));
        List<String> used = new ArrayList<>();
        while (artifact.find()) {
            used.add(artifact.group(1));
        }
        assertThat(used).as("the consumer's Keepsake artifacts").contains("keepsake-bom", "savepoint-reader");
        assertThat(installed).as("every Keepsake artifact the consumer uses is installed").containsAll(used);
        for (String module : installed) {
            assertThat(ROOT.resolve(module).resolve("pom.xml")).as("module %s", module).exists();
        }
        assertThat(guide).contains("`mvn -q compile exec:exec`");
        String module = Files.readString(ROOT.resolve("quickstart/pom.xml"));
        assertThat(module).contains("<goal>compile</goal>\n            <goal>exec:exec</goal>");
        assertThat(guide).contains("(src/it/embedding/pom.xml)", "(src/it/embedding/src/main/java/com/example/quickstart/QuickStart.java)");
    }
}
