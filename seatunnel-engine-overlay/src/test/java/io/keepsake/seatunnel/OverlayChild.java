package io.keepsake.seatunnel;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
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
    /** How long a child engine may take to start. */
    private static final Duration STARTUP = Duration.ofSeconds(90);

    private final Process process;
    private final BlockingQueue<String> lines;
    private final List<String> seen = new ArrayList<>();

    private OverlayChild(Process process) {
        this.process = process;
        this.lines = ChildEngines.lines(process, "overlay-child-stdout");
    }

    /**
     * Starts a child engine and waits for its {@code ENGINE-CLASS} line, which must name this module's
     * classes exactly when {@code withOverlay}; {@code withOverlay} false leaves them off its class path.
     */
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
        OverlayChild child = new OverlayChild(pb.start());
        String engineClass = child.await("ENGINE-CLASS ", STARTUP);
        if (engineClass.contains(OVERLAY_CLASSES.toString()) != withOverlay) {
            child.close();
            throw new AssertionError("The child engine " + name + (withOverlay ? " with" : " without")
                    + " the overlay printed " + engineClass + " (the overlay's classes: " + OVERLAY_CLASSES + ")");
        }
        return child;
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

    /** Waits for the child's {@code JOB <id>} line; returns the id of the job it runs. */
    long awaitJob(Duration timeout) throws InterruptedException {
        return Long.parseLong(await("JOB ", timeout).substring(4).trim());
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
        ChildEngines.kill(process);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
