package io.keepsake.tool;

import io.keepsake.tool.internal.Json;
import io.keepsake.tool.internal.Progress;
import io.keepsake.tool.internal.StderrTerminal;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * Base of every {@code keepsake} command: the {@code --json} flag (one document on stdout in the
 * schema of docs/tool.md, errors included, which {@link KeepsakeCli} prints) and where output and
 * warnings go.
 */
public abstract class ToolCommand implements Callable<Integer> {

    /** When a progress line is drawn on stderr. */
    public enum ProgressMode {
        /** When stderr is a terminal ({@link StderrTerminal}) and {@code --json} is not given. */
        auto,
        /** Always, even when piped or with {@code --json} (stdout stays clean either way). */
        always,
        /** Never. */
        never;

        /** True when a progress line is drawn: always, never, or without {@code --json} when stderr is a terminal. */
        public boolean shown(boolean json, BooleanSupplier stderrIsTerminal) {
            return switch (this) {
                case always -> true;
                case never -> false;
                case auto -> !json && stderrIsTerminal.getAsBoolean();
            };
        }
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON document (schemaVersion " + Json.SCHEMA_VERSION
            + ", docs/keepsake-output.schema.json) instead of text, errors included.")
    boolean json;

    /** Where the command's own output goes (stdout, or what a test set). */
    protected PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** Where warnings and progress for the operator go (stderr, or what a test set). */
    protected PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** A new JSON document for this command. */
    protected Map<String, Object> document() {
        return Json.document(spec.name());
    }

    /** Prints a JSON document on stdout. */
    protected void printJson(Map<String, Object> doc) {
        out().println(Json.write(doc));
        out().flush();
    }

    /**
     * Prints what a command computed, as one JSON document with {@code --json}, else as text, after
     * its warnings on stderr; throws its failure (see {@link CommandResult#failure}), else returns
     * its exit code. Every command's output goes through here.
     */
    final int render(CommandResult result) throws Exception {
        if (!result.warnings().isEmpty()) {
            result.warnings().forEach(err()::println);
            err().flush();
        }
        Exception failure = result.failure();
        if (json && failure != null) {
            throw failure;
        }
        if (json) {
            Map<String, Object> doc = document();
            result.putJson(doc);
            printJson(doc);
        } else {
            result.printText(out());
            out().flush();
        }
        if (failure != null) {
            throw failure;
        }
        return result.exitCode();
    }

    /** Starts a progress line for {@code totalBytes} on stderr, drawn or not as {@code mode} and {@code --json} say. */
    protected Progress progress(ProgressMode mode, String label, long totalBytes) {
        return Progress.start(err(), progressShown(mode), label, totalBytes);
    }

    /** True when a progress line is drawn in {@code mode}: always, never, or when stderr is a terminal without {@code --json}. */
    protected boolean progressShown(ProgressMode mode) {
        return mode.shown(json, StderrTerminal::detect);
    }
}
