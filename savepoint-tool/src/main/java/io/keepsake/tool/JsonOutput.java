package io.keepsake.tool;

import io.keepsake.tool.internal.Json;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

import java.util.Arrays;
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
        ParseResult last = parseResult;
        while (last.subcommand() != null) {
            last = last.subcommand();
        }
        return last.hasMatchedOption("--json");
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
