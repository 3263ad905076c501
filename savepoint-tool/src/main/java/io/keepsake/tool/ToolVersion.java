package io.keepsake.tool;

import io.keepsake.storage.Versions;
import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What {@code keepsake --version} prints: the project version the tool was built as (from
 * {@value #RESOURCE}, which the build fills in from the pom), and the savepoint format version it
 * writes, such as {@code keepsake 0.1.0-SNAPSHOT (savepoint format version 1)}. The project
 * version is not {@link Versions#PRODUCER_VERSION}, which is the string recorded in metadata.
 */
public final class ToolVersion implements IVersionProvider {

    /** The class-path resource the build writes the version into. */
    static final String RESOURCE = "keepsake-version.properties";

    /** The version line. */
    @Override
    public String[] getVersion() {
        return new String[] {"keepsake " + projectVersion() + " (savepoint format version "
                + Versions.CURRENT_FORMAT_VERSION + ")"};
    }

    /**
     * The project version from the build, such as {@code 0.1.0-SNAPSHOT}.
     *
     * @throws IllegalStateException when the resource is missing or was not filled in (a build that skipped resources)
     */
    static String projectVersion() {
        Properties p = new Properties();
        try (InputStream in = ToolVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("Cannot tell the keepsake version: " + RESOURCE + " is not on the"
                        + " class path next to " + ToolVersion.class.getName() + "; rebuild the tool with Maven");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + RESOURCE, e);
        }
        String version = p.getProperty("version", "");
        if (version.isBlank() || version.contains("${")) {
            throw new IllegalStateException("Cannot tell the keepsake version: " + RESOURCE + " was not filtered by"
                    + " the build (" + version + "); rebuild the tool with Maven");
        }
        return version.trim();
    }

    /**
     * How to run this tool again, for hints it prints: {@code java -jar <the jar>} when it runs from
     * a jar (the build puts none on the PATH), else {@code keepsake}.
     */
    static String invocation() {
        try {
            java.security.CodeSource source = ToolVersion.class.getProtectionDomain().getCodeSource();
            if (source != null) {
                java.nio.file.Path where = java.nio.file.Path.of(source.getLocation().toURI());
                if (where.getFileName() != null && where.getFileName().toString().endsWith(".jar")) {
                    return "java -jar " + where;
                }
            }
        } catch (java.net.URISyntaxException | IllegalArgumentException | SecurityException e) {
            // not a file location: fall back to the command's name
        }
        return "keepsake";
    }
}
