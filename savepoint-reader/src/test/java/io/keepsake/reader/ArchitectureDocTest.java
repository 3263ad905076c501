package io.keepsake.reader;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/architecture.md draws the modules as the build has them: its module table names every
 * module of the root pom, what each depends on outside its tests (as its pom says), and every
 * package of its main code (as the source tree has them), and nothing else.
 */
class ArchitectureDocTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

    /** One row of the page's module table. */
    record Row(Set<String> dependsOn, Set<String> packages) {
    }

    @Test
    void theModuleTableNamesEveryModuleItsDependenciesAndItsPackages() throws IOException {
        Map<String, Row> page = moduleTable(Files.readString(ROOT.resolve("docs/architecture.md")));
        List<String> modules = modules();
        assertThat(page.keySet()).as("modules in docs/architecture.md").containsExactlyInAnyOrderElementsOf(modules);
        for (String module : modules) {
            assertThat(page.get(module).dependsOn()).as("what %s depends on outside its tests", module)
                    .containsExactlyInAnyOrderElementsOf(dependencies(module));
            assertThat(page.get(module).packages()).as("the packages of %s's main code", module)
                    .containsExactlyInAnyOrderElementsOf(packages(module));
        }
    }

    /** The rows of the table whose header begins {@code | module | depends on | packages |}. */
    private static Map<String, Row> moduleTable(String text) {
        Map<String, Row> rows = new TreeMap<>();
        boolean inTable = false;
        for (String line : text.split("\n")) {
            if (line.startsWith("| module | depends on | packages |")) {
                inTable = true;
                continue;
            }
            if (!inTable) {
                continue;
            }
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = line.split("\\|");
            if (cells.length < 4 || cells[1].trim().startsWith("-")) {
                continue;
            }
            List<String> module = codes(cells[1]);
            assertThat(module).as("first cell of %s", line).hasSize(1);
            rows.put(module.get(0), new Row(new TreeSet<>(codes(cells[2])), new TreeSet<>(codes(cells[3]))));
        }
        assertThat(rows).as("the module table of docs/architecture.md").isNotEmpty();
        return rows;
    }

    private static List<String> codes(String cell) {
        List<String> out = new ArrayList<>();
        Matcher m = CODE.matcher(cell);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static List<String> modules() throws IOException {
        List<String> out = new ArrayList<>();
        Matcher m = MODULE.matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The project's artifacts a module's pom depends on in any scope but test. */
    private static Set<String> dependencies(String module) throws IOException {
        String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"))
                .replaceAll("(?s)<dependencyManagement>.*?</dependencyManagement>", "")
                .replaceAll("(?s)<build>.*?</build>", "");
        Set<String> out = new TreeSet<>();
        Matcher m = DEPENDENCY.matcher(pom);
        while (m.find()) {
            String d = m.group(1);
            String group = tag(d, "groupId");
            if (!("io.keepsake".equals(group) || "${project.groupId}".equals(group)) || "test".equals(tag(d, "scope"))) {
                continue;
            }
            out.add(tag(d, "artifactId"));
        }
        return out;
    }

    private static String tag(String xml, String name) {
        Matcher m = Pattern.compile("<" + name + ">([^<]*)</" + name + ">").matcher(xml);
        return m.find() ? m.group(1).trim() : null;
    }

    /** The packages holding Java sources under the module's {@code src/main/java}. */
    private static Set<String> packages(String module) throws IOException {
        Path main = ROOT.resolve(module).resolve("src/main/java");
        Set<String> out = new TreeSet<>();
        if (!Files.isDirectory(main)) {
            return out;
        }
        try (Stream<Path> files = Files.walk(main)) {
            files.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("module-info.java"))
                    .forEach(f -> out.add(main.relativize(f.getParent()).toString().replace('/', '.')));
        }
        return out;
    }
}
