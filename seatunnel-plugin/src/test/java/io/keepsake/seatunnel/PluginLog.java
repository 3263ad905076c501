package io.keepsake.seatunnel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The plugin's own log lines, written by the engine's log4j binding (see log4j2-test.properties). */
final class PluginLog {

    static final Path FILE = Path.of(System.getProperty("keepsake.plugin.log", "target/keepsake-plugin.log"));

    private PluginLog() {
    }

    static String text() {
        return read(FILE);
    }

    /** What a log file of this JVM or a child holds so far; empty before its first line. */
    static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
