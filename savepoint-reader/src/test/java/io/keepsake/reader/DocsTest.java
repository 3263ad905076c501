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
        Set<String> references = testReferences(Files.readString(ROOT.resolve("docs/guarantees.md")));
        assertThat(references).hasSizeGreaterThan(15);
        assertTestsExist(references);
    }

    @Test
    void theGuaranteesAtAGlanceLinkToSectionsOfThePageAndNoProseLineIsAWall() throws IOException {
        String guarantees = Files.readString(ROOT.resolve("docs/guarantees.md"));
        int glance = guarantees.indexOf("## At a glance");
        assertThat(glance).as("an 'At a glance' section").isPositive();
        Set<String> slugs = new LinkedHashSet<>();
        Matcher heading = Pattern.compile("(?m)^#+ (.+)$").matcher(guarantees);
        while (heading.find()) {
            slugs.add(heading.group(1).toLowerCase().replaceAll("[^a-z0-9 -]", "").replace(' ', '-'));
        }
        String table = guarantees.substring(glance, guarantees.indexOf("\n###", glance));
        Matcher link = Pattern.compile("\\]\\(#([a-z0-9-]+)\\)").matcher(table);
        int rows = 0;
        while (link.find()) {
            rows++;
            assertThat(slugs).as("section of #%s", link.group(1)).contains(link.group(1));
        }
        assertThat(rows).isGreaterThanOrEqualTo(8);
        for (String line : guarantees.split("\n")) {
            if (!line.startsWith("|")) {
                assertThat(line.length()).as("prose line: %s", line).isLessThanOrEqualTo(140);
            }
        }
    }

    /** The task pages: the tests, types and tool options they name are the code's. */
    private static final List<String> TASK_PAGES = List.of("docs/operators.md", "docs/engine-authors.md",
            "docs/backend-authors.md");

    /** A backticked name that reads as a Java type: capitalised, with a lower-case letter and another capital. */
    private static final Pattern TYPE_NAME = Pattern.compile("`([A-Z][a-z]\\w*[A-Z]\\w*)`");

    /** The JDK packages a task page's type names may come from. */
    private static final List<String> JDK_PACKAGES = List.of("java.lang.", "java.util.", "java.io.", "java.nio.file.");

    @Test
    void everyTestTheTaskPagesAndTheReliabilityPageNameExists() throws IOException {
        List<String> pages = new ArrayList<>(TASK_PAGES);
        pages.add("docs/reliability.md");
        for (String page : pages) {
            assertTestsExist(testReferences(Files.readString(ROOT.resolve(page))));
        }
    }

    @Test
    void everyTypeTheTaskPagesNameIsInTheCodeOrTheJdk() throws IOException {
        Set<String> sourceNames = new LinkedHashSet<>();
        for (Path f : javaSources()) {
            sourceNames.add(f.getFileName().toString().replace(".java", ""));
        }
        for (String page : TASK_PAGES) {
            Matcher m = TYPE_NAME.matcher(Files.readString(ROOT.resolve(page)));
            int named = 0;
            while (m.find()) {
                String type = m.group(1);
                named++;
                assertThat(sourceNames.contains(type) || inJdk(type)).as("%s names type %s", page, type).isTrue();
            }
            assertThat(named).as("types named in %s", page).isPositive();
        }
    }

    @Test
    void everyToolOptionTheOperatorsPageNamesIsDeclaredByTheTool() throws IOException {
        StringBuilder tool = new StringBuilder();
        try (Stream<Path> files = Files.walk(ROOT.resolve("savepoint-tool/src/main/java"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                tool.append(Files.readString(f));
            }
        }
        Matcher m = Pattern.compile("(?<![\\w-])(--[a-z][a-z-]*)").matcher(Files.readString(ROOT.resolve("docs/operators.md")));
        Set<String> options = new LinkedHashSet<>();
        while (m.find()) {
            options.add(m.group(1));
        }
        assertThat(options).contains("--older-than", "--yes");
        for (String option : options) {
            boolean standard = option.equals("--help") || option.equals("--version");   // picocli's own
            assertThat(standard || tool.indexOf("\"" + option + "\"") >= 0).as("option %s is declared", option).isTrue();
        }
    }

    private static boolean inJdk(String simpleName) {
        for (String pkg : JDK_PACKAGES) {
            try {
                Class.forName(pkg + simpleName);
                return true;
            } catch (ClassNotFoundException e) {
                // not in this package
            }
        }
        return false;
    }

    private static Set<String> testReferences(String text) {
        Set<String> references = new LinkedHashSet<>();
        Matcher m = TEST_REFERENCE.matcher(text);
        while (m.find()) {
            references.add(m.group(1) + "." + m.group(2));
        }
        return references;
    }

    private static void assertTestsExist(Set<String> references) throws IOException {
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
