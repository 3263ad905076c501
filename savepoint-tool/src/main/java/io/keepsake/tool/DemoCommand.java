package io.keepsake.tool;

import io.keepsake.tool.internal.DemoScenario;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code keepsake demo [--work-dir DIR] [--keep]}: the guided run a new user starts with. It
 * simulates an engine job on the local-file backend in a fresh directory (a new temporary one by
 * default) through stop-with-savepoint, upgrade, restore, finish and terminal cleanup, shows the
 * savepoint surviving, and a corrupted copy being refused; see {@link DemoScenario}. It does not
 * take the storage options: the demo always makes its own storage. It prints where it wrote and
 * removes what it wrote when it ends (the directory itself too when the demo created it), unless
 * {@code --keep} is given. Exits 0 only when every check passed, 1 otherwise.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the savepoint lifecycle end to end on a local directory and check every step; the"
                + " directory is removed afterwards unless --keep.")
public final class DemoCommand extends ToolCommand {

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "A new or empty directory to work in (default: a new temporary directory).")
    Path workDir;

    @Option(names = "--keep", description = "Keep what the demo wrote, for a look around with the other commands.")
    boolean keep;

    @Mixin
    LoggingOptions logging = new LoggingOptions();

    /** Prepares the work directory, runs the demo and cleans up; returns 0 only if every check passed. */
    @Override
    public Integer call() throws IOException {
        boolean created = workDir == null || !Files.exists(workDir);
        Path dir = prepare(workDir);
        StringWriter narrative = new StringWriter();
        PrintWriter out = json ? new PrintWriter(narrative) : out();
        DemoScenario scenario = new DemoScenario(out, dir, DemoCommand::runInProcess);
        boolean ok = scenario.run();
        if (keep) {
            Path namespace = dir.resolve("checkpoints");
            out.println("Kept the demo's files in " + dir + "; try: " + ToolVersion.invocation() + " list --namespace "
                    + namespace);
            out.println("  and: keepsake migrate --namespace " + namespace + " " + DemoScenario.LEGACY_JOB
                    + " (that job's SeaTunnel 2.3.x checkpoints become a verified savepoint)");
        } else {
            removeTree(dir, created);
            out.println("Removed the demo's files from " + dir + " (give --keep to keep them)");
        }
        out.flush();
        if (json) {
            Map<String, Object> doc = document();
            doc.put("workDir", dir.toString());
            doc.put("kept", keep);
            doc.put("passed", scenario.passed());
            doc.put("failed", scenario.failed());
            doc.put("ok", ok);
            printJson(doc);
        }
        return ok ? ExitCodes.OK : ExitCodes.FAILURE;
    }

    private static DemoScenario.Result runInProcess(String[] args) {
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        CommandLine cli = KeepsakeCli.commandLine();
        cli.setOut(new PrintWriter(stdout, true));
        cli.setErr(new PrintWriter(stderr, true));
        int code = cli.execute(args);
        return new DemoScenario.Result(code, stdout.toString(), stderr.toString());
    }

    /** Deletes everything under {@code dir}, and {@code dir} itself when {@code self}. */
    private static void removeTree(Path dir, boolean self) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                if (self || !p.equals(dir)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static Path prepare(Path requested) throws IOException {
        if (requested == null) {
            return Files.createTempDirectory("keepsake-demo-").toAbsolutePath();
        }
        Path dir = requested.toAbsolutePath().normalize();
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                throw new ToolUsageException("Cannot run the demo in " + dir + ": it is not a directory");
            }
            try (Stream<Path> entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    throw new ToolUsageException("Cannot run the demo in " + dir + ": it is not empty; give a new or"
                            + " empty directory");
                }
            }
        }
        Files.createDirectories(dir);
        return dir;
    }
}
