package io.keepsake.tool;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a build that depends on Keepsake gets: for every library module a jar with its
 * Automatic-Module-Name, LICENSE and NOTICE, a sources jar and a javadoc jar without the
 * implementation packages, both with LICENSE and NOTICE too; for each self-contained jar (the two
 * CLI jars and the SeaTunnel plugin jar) a sources jar with the source of every Keepsake class it
 * holds; and a BOM that lists every library module at the project's version. Runs after the
 * library modules and the plugin are packaged (the tool depends on every library module and comes
 * after the plugin in the reactor).
 */
class ArtifactsIT {

    private static final Path ROOT = Path.of(System.getProperty("keepsake.cli.dir", "target")).toAbsolutePath()
            .getParent().getParent();
    private static final List<String> LIBRARIES = List.of("checkpoint-storage-api", "checkpoint-storage-local-file",
            "checkpoint-storage-hdfs", "checkpoint-storage-s3", "engine-wire", "savepoint-reader", "src-test-fixtures");

    private static String version() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        Matcher m = Pattern.compile("<artifactId>keepsake-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(parent);
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    @ParameterizedTest
    @CsvSource({
            "checkpoint-storage-api, io.keepsake.storage",
            "checkpoint-storage-local-file, io.keepsake.storage.localfile",
            "checkpoint-storage-hdfs, io.keepsake.storage.hdfs",
            "checkpoint-storage-s3, io.keepsake.storage.s3",
            "engine-wire, io.keepsake.engine",
            "savepoint-reader, io.keepsake.reader",
            "src-test-fixtures, io.keepsake.fixtures",
            "savepoint-tool, io.keepsake.tool"})
    void everyJarHasItsModuleNameLicenseNoticeSourcesAndJavadoc(String module, String moduleName) throws Exception {
        Path target = ROOT.resolve(module).resolve("target");
        String base = module + "-" + version();
        try (JarFile jar = new JarFile(target.resolve(base + ".jar").toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name")).isEqualTo(moduleName);
            assertThat(jar.getEntry("META-INF/LICENSE")).isNotNull();
            assertThat(jar.getEntry("META-INF/NOTICE")).isNotNull();
        }
        try (JarFile sources = new JarFile(target.resolve(base + "-sources.jar").toFile())) {
            assertThat(sources.stream().map(ZipEntry::getName)).anyMatch(n -> n.endsWith(".java"));
            assertThat(sources.getEntry("META-INF/LICENSE")).as(base + "-sources.jar").isNotNull();
            assertThat(sources.getEntry("META-INF/NOTICE")).as(base + "-sources.jar").isNotNull();
        }
        try (JarFile javadoc = new JarFile(target.resolve(base + "-javadoc.jar").toFile())) {
            List<String> names = javadoc.stream().map(ZipEntry::getName).toList();
            assertThat(names).contains("index.html");
            assertThat(names).noneMatch(n -> n.contains("/internal/"));
            assertThat(names).as(base + "-javadoc.jar").contains("META-INF/LICENSE", "META-INF/NOTICE");
        }
    }

    @ParameterizedTest
    @CsvSource({
            "savepoint-tool, keepsake, io.keepsake.tool",
            "savepoint-tool, keepsake-local, io.keepsake.tool",
            "seatunnel-plugin, keepsake-seatunnel, io.keepsake.seatunnel"})
    void theSelfContainedJarsCarryAModuleNameTheLicenseAndASourcesJarForEveryKeepsakeClass(String module, String name,
                                                                                           String moduleName) throws Exception {
        Path target = ROOT.resolve(module).resolve("target");
        List<String> keepsakeClasses;
        try (JarFile jar = new JarFile(target.resolve(name + ".jar").toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name")).isEqualTo(moduleName);
            assertThat(jar.getEntry("META-INF/NOTICE")).as(name).isNotNull();
            assertThat(jar.getEntry("META-INF/LICENSE")).as(name).isNotNull();
            keepsakeClasses = jar.stream().map(ZipEntry::getName)
                    .filter(n -> n.startsWith("io/keepsake/") && !n.startsWith("io/keepsake/shaded/")
                            && n.endsWith(".class") && !n.contains("$"))
                    .toList();
        }
        assertThat(keepsakeClasses).hasSizeGreaterThan(20);
        try (JarFile sources = new JarFile(target.resolve(name + "-sources.jar").toFile())) {
            List<String> names = sources.stream().map(ZipEntry::getName).toList();
            assertThat(names).as(name + "-sources.jar").contains("META-INF/LICENSE", "META-INF/NOTICE");
            assertThat(names).as(name + "-sources.jar")
                    .containsAll(keepsakeClasses.stream().map(c -> c.replaceFirst("\\.class$", ".java")).toList());
        }
    }

    @Test
    void theBomListsEveryLibraryModuleAtTheProjectsVersionAndNothingElse() throws Exception {
        String bom = Files.readString(ROOT.resolve("keepsake-bom/pom.xml"));
        String version = version();
        assertThat(bom).contains("<artifactId>keepsake-bom</artifactId>\n  <version>" + version + "</version>");
        assertThat(bom).doesNotContain("<parent>");
        for (String library : LIBRARIES) {
            assertThat(bom).contains("<artifactId>" + library + "</artifactId>\n        <version>" + version + "</version>");
        }
        Matcher groups = Pattern.compile("<groupId>([^<]+)</groupId>").matcher(bom);
        while (groups.find()) {
            assertThat(groups.group(1)).isEqualTo("io.keepsake");
        }
    }
}
