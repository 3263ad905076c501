package io.keepsake.reader;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The project's docs stand alone, build on a fresh machine, and name tests that exist. */
class DocsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern TEST_REFERENCE = Pattern.compile("`(\\w+(?:Test|IT))\\.(\\w+)`");

    private static List<Path> docs() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("benchmarks/README.md"),
                ROOT.resolve("quickstart/README.md")));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    private static List<Path> javaSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/")).toList();
        }
    }

    @Test
    void noDocPointsOutsideTheProjectOrUsesOfflineMaven() throws IOException {
        for (Path doc : docs()) {
            String text = Files.readString(doc);
            assertThat(text).as(doc.toString()).doesNotContain("../shared").doesNotContain("DESIGN.md")
                    .doesNotContainPattern("mvn[^\\n`]* -o\\b");
        }
    }

    @Test
    void theFrontPagesSpeakToUsersWithoutIssueNumbersOrCommitHashes() throws IOException {
        for (String page : List.of("README.md", "benchmarks/README.md", "quickstart/README.md")) {
            String text = Files.readString(ROOT.resolve(page));
            assertThat(text).as(page).doesNotContainPattern("(?i)\\bissues? \\d")
                    .doesNotContainPattern("\\b(at|main at|fixed in) [0-9a-f]{7,40}\\b");
        }
    }

    @Test
    void everyTestTheGuaranteesTableNamesExists() throws IOException {
        String guarantees = Files.readString(ROOT.resolve("docs/guarantees.md"));
        Set<String> references = new LinkedHashSet<>();
        Matcher m = TEST_REFERENCE.matcher(guarantees);
        while (m.find()) {
            references.add(m.group(1) + "." + m.group(2));
        }
        assertThat(references).hasSizeGreaterThan(15);
        List<Path> sources = javaSources();
        for (String reference : references) {
            String type = reference.substring(0, reference.indexOf('.'));
            String method = reference.substring(reference.indexOf('.') + 1);
            List<Path> files = sources.stream().filter(f -> f.getFileName().toString().equals(type + ".java")).toList();
            assertThat(files).as("source of %s", type).isNotEmpty();
            boolean found = false;
            for (Path f : files) {
                found |= Pattern.compile("(void|Stream<DynamicTest>) " + method + "\\(").matcher(Files.readString(f)).find();
            }
            assertThat(found).as("%s exists", reference).isTrue();
        }
    }

    @Test
    void theDiagramsAreMermaidBlocks() throws IOException {
        String diagrams = Files.readString(ROOT.resolve("docs/diagrams.md"));
        assertThat(Pattern.compile("```mermaid\\n").matcher(diagrams).results().count()).isGreaterThanOrEqualTo(3);
    }
}
