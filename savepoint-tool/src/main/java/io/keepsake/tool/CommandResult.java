package io.keepsake.tool;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * What a command computed, ready to be rendered by {@link ToolCommand#render}: as text on stdout,
 * or as the fields of its {@code --json} document. A result only describes; it reads no storage and
 * decides nothing while it is printed.
 */
interface CommandResult {

    /** The exit code of the run. */
    int exitCode();

    /** Lines for stderr, printed before the output in either form. */
    default List<String> warnings() {
        return List.of();
    }

    /**
     * The error the run ends with after its output, or null: with {@code --json} it replaces the
     * document (the error document is printed instead), in text it is thrown after the text.
     */
    default Exception failure() {
        return null;
    }

    /** Adds this result's fields to the command's JSON document, in schema order. */
    void putJson(Map<String, Object> doc);

    /** Prints this result as text. */
    void printText(PrintWriter out);
}
