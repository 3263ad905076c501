package io.keepsake.tool.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table for the tool's human-readable output: a header row, then rows, columns
 * left-aligned and separated by two spaces; the last column is never padded so long messages
 * (a corruption reason, a path) do not widen the whole table. Not thread-safe.
 */
public final class TextTable {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    /** A table with the given column headings. */
    public TextTable(String... header) {
        this.header = List.of(header);
    }

    /** Adds a row; a null cell prints as {@code -}. */
    public TextTable row(Object... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException("Cannot add table row: it has " + cells.length + " cells but the table has "
                    + header.size() + " columns (" + Arrays.toString(cells) + ")");
        }
        List<String> row = new ArrayList<>();
        for (Object c : cells) {
            row.add(c == null ? "-" : c.toString());
        }
        rows.add(row);
        return this;
    }

    /** True when no row was added. */
    public boolean isEmpty() {
        return rows.isEmpty();
    }

    /** Prints the header and the rows, each line indented by {@code indent}. */
    public void print(PrintWriter out, String indent) {
        print(out, indent, true);
    }

    /** Prints the rows only, as aligned key-value lines, each indented by {@code indent}. */
    public void printRows(PrintWriter out, String indent) {
        print(out, indent, false);
    }

    private void print(PrintWriter out, String indent, boolean withHeader) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = withHeader ? header.get(i).length() : 0;
        }
        for (List<String> row : rows) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        if (withHeader) {
            printRow(out, indent, header, widths);
        }
        for (List<String> row : rows) {
            printRow(out, indent, row, widths);
        }
    }

    private static void printRow(PrintWriter out, String indent, List<String> cells, int[] widths) {
        StringBuilder b = new StringBuilder(indent);
        for (int i = 0; i < cells.size(); i++) {
            String cell = cells.get(i);
            b.append(cell);
            if (i < cells.size() - 1) {
                b.append(" ".repeat(widths[i] - cell.length() + 2));
            }
        }
        out.println(b.toString().stripTrailing());
    }
}
