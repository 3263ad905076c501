package io.keepsake.bench;

import java.util.List;

/**
 * One section of {@link BenchmarkReport}: it measures what it compares, in one run, and returns
 * its rows of the goals table plus notes on how it measured them. A section that cannot run
 * returns its rows as {@link GoalRow#notRun}, so that the table always has the same rows.
 */
public interface ReportSection {

    /** The section's title in the report. */
    String title();

    /**
     * Measures and returns the section's result.
     *
     * @throws Exception when a measurement fails; the report then marks the section's rows as not run
     */
    Result run(ReportOptions options) throws Exception;

    /** The rows the section returns when it does not run, with the reason in their spread column. */
    List<GoalRow> notRun(String why);

    /**
     * What a section measured.
     *
     * @param rows   its rows of the goals table
     * @param notes  how it measured them, one Markdown bullet each
     * @param tables further tables, printed after the goals table: each a Markdown block (a line
     *               saying what it shows, then the table)
     */
    record Result(List<GoalRow> rows, List<String> notes, List<String> tables) {

        /** Copies the lists. */
        public Result {
            rows = List.copyOf(rows);
            notes = List.copyOf(notes);
            tables = List.copyOf(tables);
        }

        /** A result with rows and notes only. */
        public Result(List<GoalRow> rows, List<String> notes) {
            this(rows, notes, List.of());
        }
    }
}
