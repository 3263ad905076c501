package io.keepsake.tool;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The tool's main code uses the storage and reader modules through their public API only. */
class PublicApiOnlyTest {

    private static final Pattern FOREIGN_INTERNAL =
            Pattern.compile("io\\.keepsake\\.(?!tool\\.)[a-z.]*\\binternal\\.");

    @Test
    void mainCodeImportsNoOtherModulesInternals() throws IOException {
        Path main = Path.of("src/main/java");
        List<String> offending;
        try (Stream<Path> files = Files.walk(main)) {
            offending = files.filter(p -> p.toString().endsWith(".java"))
                    .flatMap(p -> lines(p).stream().filter(l -> FOREIGN_INTERNAL.matcher(l).find())
                            .map(l -> main.relativize(p) + ": " + l.trim()))
                    .toList();
        }
        assertThat(offending).isEmpty();
    }

    private static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + p, e);
        }
    }
}
