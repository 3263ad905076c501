package io.keepsake.seatunnel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Appends measured figures to {@code target/seatunnel-figures.txt} (and stdout) for the closing note. */
final class Figures {

    private static final Path FILE = Path.of("target", "seatunnel-figures.txt");

    private Figures() {
    }

    static synchronized void record(String what, Object value) {
        String line = what + ": " + value + System.lineSeparator();
        System.out.print("FIGURE " + line);
        try {
            Files.writeString(FILE, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
