package io.keepsake.seatunnel;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server that another module's tests run (a mini HDFS, S3Proxy), started in a child JVM by that
 * module's test main so that its dependencies stay off this module's class path, which holds the
 * engine's. The child runs in the module's folder on the class path the module's build wrote
 * ({@code <module>/target/<classPathFile>}, by its generate-test-resources phase) with the module's
 * test and main classes; its standard error goes to {@code <module>/target/<mainClass>-child.err}.
 * It is ready once it printed a line that starts with the prefix it was started with, and serves
 * until {@link #close()} ends its standard input.
 *
 * @param process   the child JVM
 * @param readyLine the line that said it is ready
 */
record ModuleServerProcess(Process process, String readyLine) implements AutoCloseable {

    /** Starts {@code mainClass} of {@code module} and waits for its line that starts with {@code readyPrefix}. */
    static ModuleServerProcess start(String module, String classPathFile, String mainClass, String readyPrefix,
                                     List<String> jvmOptions) throws IOException {
        Path moduleDir = Path.of("..", module).toAbsolutePath().normalize();
        Path target = moduleDir.resolve("target");
        Path listed = target.resolve(classPathFile);
        if (!Files.isRegularFile(listed)) {
            throw new IllegalStateException("No " + listed + ": build " + module + " first"
                    + " (its generate-test-resources phase writes it)");
        }
        String classPath = String.join(File.pathSeparator, target.resolve("test-classes").toString(),
                target.resolve("classes").toString(), Files.readString(listed, StandardCharsets.UTF_8).trim());
        Path err = target.resolve(mainClass.substring(mainClass.lastIndexOf('.') + 1) + "-child.err");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, mainClass));
        Process p = new ProcessBuilder(command).directory(moduleDir.toFile()).redirectError(err.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith(readyPrefix)) {
            // the server's own start-up lines, if any, come before the one that says it is ready
        }
        if (line == null) {
            p.destroyForcibly();
            throw new IllegalStateException("The child JVM of " + mainClass + " ended before printing " + readyPrefix
                    .trim() + " (exit " + exitCode(p) + "); see " + err);
        }
        return new ModuleServerProcess(p, line);
    }

    /** The words of the ready line after its prefix. */
    String[] readyWords() {
        return readyLine.substring(readyLine.indexOf(' ') + 1).trim().split(" ");
    }

    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException alreadyGone) {
            // the child ended on its own: nothing to tell it
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static int exitCode(Process p) {
        try {
            return p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
