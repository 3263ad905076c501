package io.keepsake.tool;

import io.keepsake.tool.internal.DemoScenario;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code keepsake demo [--work-dir DIR]}: the guided run a new user starts with. It simulates an
 * engine job on the local-file backend in a fresh directory (a new temporary one by default)
 * through stop-with-savepoint, upgrade, restore, finish and terminal cleanup, shows the
 * savepoint surviving, and a corrupted copy being refused; see {@link DemoScenario}. It does not
 * take the storage options: the demo always makes its own storage. Exits 0 only when every check
 * passed, 1 otherwise; the directory is left in place for a look around.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the savepoint lifecycle end to end on a local directory and check every step.")
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "A new or empty directory to work in (default: a new temporary directory).")
    Path workDir;

    @Mixin
    LoggingOptions logging = new LoggingOptions();

    @Spec
    CommandSpec spec;

    /** Prepares the work directory and runs the demo; returns 0 only if every check passed. */
    @Override
    public Integer call() throws IOException {
        Path dir = prepare(workDir);
        PrintWriter out = spec.commandLine().getOut();
        boolean ok = new DemoScenario(out, dir, DemoCommand::runInProcess).run();
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
