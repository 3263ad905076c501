package io.keepsake.bench;

import io.keepsake.storage.localfile.LocalFileSystem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Optional;

/**
 * Where the disk benchmarks write, and how they clean up.
 *
 * <p>The base directory is the system property {@value #DIRECTORY_PROPERTY} when set; otherwise
 * {@code bench-data} inside the Maven {@code target} directory the benchmark classes were loaded
 * from (so {@code java -jar benchmarks/target/benchmarks.jar} writes to
 * {@code benchmarks/target/bench-data}); otherwise {@code java.io.tmpdir}. It matters which: a
 * tmpfs makes fsync free. Each trial gets a fresh directory below it, removed at tear-down.
 *
 * <p>Stateless and thread-safe.
 */
public final class BenchFiles {

    /** The local backend's own primitives, whose recursive delete this reuses. */
    private static final LocalFileSystem LOCAL = new LocalFileSystem();

    /** The system property that sets the base directory of the disk benchmarks. */
    public static final String DIRECTORY_PROPERTY = "keepsake.bench.dir";

    private BenchFiles() {
    }

    /** Returns the directory the disk benchmarks write below (it may not exist yet). */
    public static Path baseDirectory() {
        String configured = System.getProperty(DIRECTORY_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath();
        }
        return buildDirectory().map(target -> target.resolve("bench-data"))
                .orElse(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
    }

    /**
     * Returns the Maven {@code target} directory these classes were loaded from, when they were
     * loaded from {@code target/classes} or from a jar directly inside {@code target}.
     */
    public static Optional<Path> buildDirectory() {
        try {
            CodeSource source = BenchFiles.class.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                return Optional.empty();
            }
            Path location = Path.of(source.getLocation().toURI()).toAbsolutePath();
            // target/classes (a directory) and target/benchmarks.jar (a file) both sit directly in target.
            Path parent = location.getParent();
            if (parent != null && parent.getFileName() != null && parent.getFileName().toString().equals("target")) {
                return Optional.of(parent);
            }
            return Optional.empty();
        } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Creates a fresh, empty directory for one trial below {@link #baseDirectory()}.
     *
     * @throws UncheckedIOException when it cannot be created
     */
    public static Path newTrialDirectory(String prefix) {
        try {
            Path base = Files.createDirectories(baseDirectory());
            return Files.createTempDirectory(base, "keepsake-" + prefix + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create benchmark directory below " + baseDirectory(), e);
        }
    }

    /**
     * Deletes a file or a directory tree; a path that does not exist is not an error.
     *
     * @throws UncheckedIOException when something cannot be deleted
     */
    public static void deleteRecursively(Path path) {
        if (path == null) {
            return;
        }
        try {
            LOCAL.delete(path.toString(), true);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete benchmark files (" + path + ")", e);
        }
    }

    /**
     * Deletes every entry inside a directory but keeps the directory; a missing directory is not an error.
     *
     * @throws UncheckedIOException when something cannot be deleted
     */
    public static void emptyDirectory(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (var entries = Files.list(dir)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                deleteRecursively(entry);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot empty benchmark directory (" + dir + ")", e);
        }
    }
}
