package io.keepsake.tool;

import io.keepsake.tool.internal.CapturedRun;
import io.keepsake.tool.internal.DemoScenario;
import io.keepsake.tool.internal.DemoScenario.Check;
import io.keepsake.tool.internal.DemoScenario.Event;
import io.keepsake.tool.internal.DemoScenario.Info;
import io.keepsake.tool.internal.DemoScenario.Started;
import io.keepsake.tool.internal.DemoScenario.Step;
import io.keepsake.tool.internal.DemoScenario.Stopped;
import io.keepsake.tool.internal.DemoScenario.ToolCall;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
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

    /** Prepares the work directory, runs the demo, cleans up and renders what happened. */
    @Override
    public Integer call() throws Exception {
        boolean created = workDir == null || !Files.exists(workDir);
        Path dir = prepare(workDir);
        DemoScenario scenario = new DemoScenario(dir, KeepsakeCli::runCaptured);
        boolean ok = scenario.run();
        IOException removal = null;
        if (!keep) {
            try {
                removeTree(dir, created);
            } catch (IOException e) {
                removal = e;
            }
        }
        return render(new DemoRun(dir, keep, scenario.events(), scenario.passed(), scenario.failed(), ok, removal));
    }

    /**
     * What a demo did and checked, in order, and what became of its files: kept, removed, or
     * {@code removal} is why they could not be removed (the run's error after its story).
     */
    private record DemoRun(Path dir, boolean kept, List<Event> events, int passed, int failed, boolean ok,
                           IOException removal) implements CommandResult {

        @Override
        public int exitCode() {
            return ok ? ExitCodes.OK : ExitCodes.FAILURE;
        }

        @Override
        public Exception failure() {
            return removal;
        }

        @Override
        public void putJson(Map<String, Object> doc) {
            doc.put("workDir", dir.toString());
            doc.put("kept", kept);
            doc.put("passed", passed);
            doc.put("failed", failed);
            doc.put("ok", ok);
        }

        @Override
        public void printText(PrintWriter out) {
            events.forEach(event -> print(event, out));
            out.println();
            out.println(failed == 0 ? "Result: all " + passed + " checks passed"
                    : "Result: " + failed + " of " + (passed + failed) + " checks FAILED");
            if (kept) {
                Path namespace = dir.resolve("checkpoints");
                out.println("Kept the demo's files in " + dir + "; try: " + ToolVersion.invocation() + " list --namespace "
                        + namespace);
                out.println("  and: keepsake migrate --namespace " + namespace + " " + DemoScenario.LEGACY_JOB
                        + " (that job's SeaTunnel 2.3.x checkpoints become a verified savepoint)");
            } else if (removal == null) {
                out.println("Removed the demo's files from " + dir + " (give --keep to keep them)");
            }
        }

        private static void print(Event event, PrintWriter out) {
            if (event instanceof Started s) {
                out.println("Keepsake demo: job " + s.job() + " with pipelines " + s.pipelines() + " on the " + s.backend()
                        + " backend");
                out.println("Work directory: " + s.workDir());
            } else if (event instanceof Step s) {
                out.println();
                out.println("[" + s.number() + "/" + s.of() + "] " + s.title());
            } else if (event instanceof Info i) {
                out.println("      " + i.line());
            } else if (event instanceof Check c) {
                out.println((c.ok() ? "  PASS  " : "  FAIL  ") + c.what());
            } else if (event instanceof ToolCall call) {
                out.println("      $ keepsake " + String.join(" ", call.args()));
                CapturedRun result = call.result();
                for (String line : (result.stdout() + result.stderr()).split("\\R")) {
                    if (!line.isBlank()) {
                        out.println("      | " + line);
                    }
                }
                out.println("      (exit code " + result.exitCode() + ")");
            } else if (event instanceof Stopped s) {
                out.println("  FAIL  step " + s.step() + " stopped by " + s.error().getClass().getSimpleName() + ": "
                        + s.error().getMessage());
            }
        }
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
