package io.keepsake.tool;

import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.tool.internal.CapturedRun;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;

/**
 * The {@code keepsake} operator tool: list, inspect, verify, delete and garbage-collect
 * savepoints, migrate legacy checkpoints into a savepoint, and run the demo. Output for people
 * goes to stdout; errors go to stderr as one line with the typed exception's message, and with
 * {@code --json} also to stdout as {@code {"schemaVersion":3,"command":...,"error":{...}}}; the
 * exit code tells the error type apart (see {@link ExitCodes}). {@link #commandLine()} builds the
 * configured command line, so tests run the tool in-process exactly as {@link #main} does.
 */
@Command(name = "keepsake", mixinStandardHelpOptions = true,
        versionProvider = ToolVersion.class,
        description = "Operate Keepsake checkpoint and savepoint storage.",
        subcommands = {ListCommand.class, InspectCommand.class, VerifyCommand.class, DeleteCommand.class,
                GcCommand.class, MigrateCommand.class, PrepareRestoreCommand.class, DemoCommand.class, CompletionCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Exit codes: 0 ok, 1 failure, 2 usage or invalid argument, 3 not found, 4 corrupted,"
                + " 5 incompatible, 6 resources exhausted (docs/tool.md has the table per command)."})
public final class KeepsakeCli implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "With --help or --version, print them as one JSON document; each command"
            + " takes its own --json after its name (keepsake list --json), and --json before a command is refused.")
    boolean json;

    /**
     * Without a subcommand: one line naming every command to stderr (with --json, an error document
     * saying the same) and exit {@link ExitCodes#USAGE}; {@code keepsake --help} prints the whole usage.
     */
    @Override
    public Integer call() {
        String message = "Cannot run keepsake: name a command (" + String.join(", ", commandNames())
                + "); keepsake --help describes them";
        if (json) {
            JsonOutput.printError(spec.commandLine(), ExitCodes.USAGE, "usage error", ToolUsageException.class.getSimpleName(),
                    message, null);
        } else {
            spec.commandLine().getErr().println(message);
        }
        return ExitCodes.USAGE;
    }

    /** The names of the tool's commands, as picocli knows them (aliases and the help command left out). */
    private java.util.List<String> commandNames() {
        return spec.subcommands().entrySet().stream()
                .filter(e -> e.getKey().equals(e.getValue().getCommandName()) && !e.getKey().equals("help"))
                .map(java.util.Map.Entry::getKey).toList();
    }

    /** Builds the tool's command line with its error handling; set its out and err to capture output. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new KeepsakeCli());
        // Every command has -V (mixinStandardHelpOptions): each prints the tool's version, not an empty line.
        cl.getSubcommands().values().forEach(sub -> sub.getCommandSpec().versionProvider(new ToolVersion()));
        cl.setExecutionExceptionHandler(KeepsakeCli::handleExecutionError);
        cl.setParameterExceptionHandler(KeepsakeCli::handleParameterError);
        cl.setExecutionStrategy(JsonOutput::execute);
        return cl;
    }

    /** Runs {@code keepsake args...} in this JVM on a fresh command line and returns what it printed and returned. */
    public static CapturedRun runCaptured(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new CapturedRun(code, out.toString(), err.toString());
    }

    /** Runs the tool and exits the JVM with its exit code. */
    public static void main(String[] args) {
        for (String arg : args) {
            if ("--".equals(arg)) {
                break;
            }
            if ("-v".equals(arg) || "--verbose".equals(arg)) {
                LoggingOptions.enableInfoLogging();
            }
        }
        System.exit(commandLine().execute(args));
    }

    private static int handleExecutionError(Exception error, CommandLine cmd, ParseResult parseResult) {
        PrintWriter err = cmd.getErr();
        String message = error.getMessage() != null ? error.getMessage() : error.toString();
        err.println(cmd.getCommandSpec().qualifiedName() + ": " + ExitCodes.label(error) + ": " + message);
        if (verbose(parseResult)) {
            error.printStackTrace(err);
        }
        err.flush();
        int code = ExitCodes.of(error);
        if (JsonOutput.json(parseResult)) {
            JsonOutput.printError(cmd, code, ExitCodes.label(error), error.getClass().getSimpleName(), message,
                    error instanceof SavepointCorruptedException c ? c.file() : null);
        }
        return code;
    }

    private static int handleParameterError(CommandLine.ParameterException error, String[] args) {
        CommandLine cmd = error.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(cmd.getCommandSpec().qualifiedName() + ": invalid argument: " + error.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(error, err);
        err.println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for usage.");
        err.flush();
        if (JsonOutput.requested(args)) {
            JsonOutput.printError(cmd, ExitCodes.USAGE, "invalid argument", error.getClass().getSimpleName(),
                    error.getMessage(), null);
        }
        return ExitCodes.USAGE;
    }

    private static boolean verbose(ParseResult parseResult) {
        for (ParseResult r = parseResult; r != null; r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }
}
