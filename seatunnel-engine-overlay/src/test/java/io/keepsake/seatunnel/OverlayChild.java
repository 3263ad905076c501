package io.keepsake.seatunnel;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A child JVM running {@link OverlayChildMain}, with the overlay (this module's classes ahead of the
 * engine, as in the test JVM) or without it (the same class path minus this module's classes: the
 * engine's own {@code CheckpointManager} and the plugin alone).
 */
final class OverlayChild implements AutoCloseable {

    /** This module's compiled classes: the patched engine classes and the glue. */
    static final Path OVERLAY_CLASSES = Path.of(System.getProperty("keepsake.overlay.classes", "target/classes"))
            .toAbsolutePath().normalize();

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    private OverlayChild(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (java.io.IOException ignored) {
                // the child was killed
            }
        }, "overlay-child-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a child engine; {@code withOverlay} false leaves this module's classes off its class path. */
    static OverlayChild start(Path dir, String name, boolean withOverlay, String action, Path conf, String storageType,
                              Map<String, String> pairs) throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> withOverlay || !Path.of(e).toAbsolutePath().normalize().equals(OVERLAY_CLASSES))
                .collect(Collectors.joining(File.pathSeparator));
        if (!withOverlay && classPath.equals(System.getProperty("java.class.path"))) {
            throw new AssertionError("The overlay's classes " + OVERLAY_CLASSES + " are not on the test class path");
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m",
                "-Dkeepsake.plugin.log=" + Path.of("target", "overlay-child-" + name + ".log").toAbsolutePath(),
                "-Dkeepsake.engine.log=" + Path.of("target", "overlay-child-" + name + "-engine.log").toAbsolutePath(),
                "-cp", classPath, OverlayChildMain.class.getName(), action, conf.toString(), storageType));
        pairs.forEach((k, v) -> command.add(k + "=" + v));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(dir.resolve("child-" + name + ".err").toFile());
        return new OverlayChild(pb.start());
    }

    /** The child's log file of Keepsake's lines. */
    static Path log(String name) {
        return Path.of("target", "overlay-child-" + name + ".log").toAbsolutePath();
    }

    /** Waits for a line starting with {@code prefix}; returns it. */
    String await(String prefix, Duration timeout) throws InterruptedException {
        for (String line : seen) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
                if (line.startsWith(prefix)) {
                    return line;
                }
            } else if (!process.isAlive() && lines.isEmpty()) {
                throw new AssertionError("The child engine exited with " + process.exitValue() + " before printing "
                        + prefix + " (it printed " + seen + ")");
            }
        }
        throw new AssertionError("The child engine did not print " + prefix + " within " + timeout + " (it printed "
                + seen + ")");
    }

    /** Waits for the child to exit on its own; returns its exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("The child engine did not exit within " + timeout);
        }
        return process.exitValue();
    }

    /** SIGKILL, and waits for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("The child engine did not die after SIGKILL");
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
