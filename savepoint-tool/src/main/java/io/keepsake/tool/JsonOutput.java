package io.keepsake.tool;

import io.keepsake.tool.internal.Json;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

import java.util.List;
import java.util.Map;

/**
 * What makes {@code --json} hold for the output picocli prints itself: {@code --help} and
 * {@code --version} (a document with {@code usage} or {@code version}) and the error document of a
 * usage error, so that a script asking for JSON gets one JSON document on stdout whatever it typed.
 * Stateless.
 */
final class JsonOutput {

    private JsonOutput() {
    }

    /** Runs a parsed command line: help or version as a JSON document when {@code --json} was given, else as picocli does. */
    static int execute(ParseResult parseResult) {
        if (parseResult.subcommand() != null && parseResult.hasMatchedOption("--json")) {
            return jsonBeforeCommand(parseResult);
        }
        ParseResult last = last(parseResult);
        if (last.commandSpec().userObject() instanceof CommandLine.HelpCommand
                && requested(last.originalArgs().toArray(new String[0]))) {
            return helpAsJson(last);
        }
        if (json(parseResult)) {
            for (ParseResult r = parseResult; r != null; r = r.subcommand()) {
                CommandLine cmd = r.commandSpec().commandLine();
                if (r.isUsageHelpRequested()) {
                    Map<String, Object> doc = Json.document(r.commandSpec().name());
                    doc.put("usage", cmd.getUsageMessage(CommandLine.Help.Ansi.OFF));
                    return print(cmd, doc, ExitCodes.OK);
                }
                if (r.isVersionHelpRequested()) {
                    Map<String, Object> doc = Json.document(r.commandSpec().name());
                    doc.put("version", String.join("\n", r.commandSpec().version()));
                    return print(cmd, doc, ExitCodes.OK);
                }
            }
        }
        return new CommandLine.RunLast().execute(parseResult);
    }

    /**
     * True when the command that runs (the last on the line) was given {@code --json}; the top-level
     * {@code keepsake --json} counts only when no command follows it.
     */
    static boolean json(ParseResult parseResult) {
        return last(parseResult).hasMatchedOption("--json");
    }

    private static ParseResult last(ParseResult parseResult) {
        ParseResult last = parseResult;
        while (last.subcommand() != null) {
            last = last.subcommand();
        }
        return last;
    }

    /**
     * {@code keepsake --json COMMAND ...}: refused (exit 2, with an error document, since JSON was
     * asked for), because the top-level {@code --json} only shapes {@code --help} and
     * {@code --version}; the message says where {@code --json} goes.
     */
    private static int jsonBeforeCommand(ParseResult parseResult) {
        CommandLine top = parseResult.commandSpec().commandLine();
        String command = parseResult.subcommand().commandSpec().name();
        String message = "Cannot use --json before the command: each command takes its own --json; put it after the"
                + " command name (keepsake " + command + " --json ...)";
        top.getErr().println(top.getCommandSpec().qualifiedName() + ": usage error: " + message);
        top.getErr().flush();
        printError(top, ExitCodes.USAGE, "usage error", ToolUsageException.class.getSimpleName(), message, null);
        return ExitCodes.USAGE;
    }

    /**
     * {@code keepsake help [COMMAND] --json}: the same help document as {@code COMMAND --help --json};
     * an unknown COMMAND is a usage error document (exit 2).
     */
    private static int helpAsJson(ParseResult help) {
        CommandLine parent = help.commandSpec().parent().commandLine();
        List<String> args = help.originalArgs();
        int at = args.indexOf(help.commandSpec().name());
        String named = null;
        for (int i = at + 1; i < args.size(); i++) {
            String a = args.get(i);
            if ("--".equals(a)) {
                break;
            }
            if (!a.startsWith("-")) {
                named = a;
                break;
            }
        }
        CommandLine target = named == null ? parent : parent.getSubcommands().get(named);
        if (target == null) {
            String message = "Cannot show help for '" + named + "': there is no such command ("
                    + String.join(", ", parent.getSubcommands().keySet()) + ")";
            parent.getErr().println(parent.getCommandSpec().qualifiedName() + " help: usage error: " + message);
            parent.getErr().flush();
            printError(help.commandSpec().commandLine(), ExitCodes.USAGE, "usage error",
                    ToolUsageException.class.getSimpleName(), message, null);
            return ExitCodes.USAGE;
        }
        Map<String, Object> doc = Json.document(target.getCommandSpec().name());
        doc.put("usage", target.getUsageMessage(CommandLine.Help.Ansi.OFF));
        return print(help.commandSpec().commandLine(), doc, ExitCodes.OK);
    }

    /** True when the raw arguments ask for JSON (before {@code --}), for errors found before parsing succeeded. */
    static boolean requested(String[] args) {
        for (String arg : args) {
            if ("--".equals(arg)) {
                return false;
            }
            if ("--json".equals(arg)) {
                return true;
            }
        }
        return false;
    }

    /** Prints an error document on the command's stdout. */
    static void printError(CommandLine cmd, int code, String type, String exception, String message, String file) {
        print(cmd, Json.errorDocument(cmd.getCommandSpec().name(), code, type, exception, message, file), code);
    }

    private static int print(CommandLine cmd, Map<String, Object> doc, int code) {
        cmd.getOut().println(Json.write(doc));
        cmd.getOut().flush();
        return code;
    }
}
