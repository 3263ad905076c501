package io.keepsake.reader;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README's embedding quick-start shows the consumer project that the {@code quickstart} module
 * builds and runs with maven-invoker-plugin, file for file and byte for byte.
 */
class ReadmeQuickStartTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path PROJECT = ROOT.resolve("quickstart/src/it/embedding");

    private static String section() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int start = readme.indexOf("## Using it from an engine\n");
        assertThat(start).as("README's quick-start heading").isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    @Test
    void theReadmeShowsTheConsumerPomByteForByte() throws IOException {
        String pom = Files.readString(PROJECT.resolve("pom.xml"));
        assertThat(section()).contains("```xml\n" + pom + "```\n");
    }

    @Test
    void theReadmeShowsTheConsumerCodeByteForByte() throws IOException {
        String code = Files.readString(PROJECT.resolve("src/main/java/com/example/quickstart/QuickStart.java"));
        assertThat(section()).contains("```java\n" + code + "```\n");
    }

    @Test
    void theReadmeSaysToInstallKeepsakeAndRunTheProjectAsTheBuildDoes() throws IOException {
        assertThat(section()).contains("`mvn -B -q install -DskipTests`").contains("`mvn -q compile exec:exec`");
        String module = Files.readString(ROOT.resolve("quickstart/pom.xml"));
        assertThat(module).contains("<goal>compile</goal>\n            <goal>exec:exec</goal>");
    }
}
