package io.keepsake.bench;

import java.util.List;

/**
 * What every section of the report has besides its measurement: a title, the rows it promises
 * (what each compares and its goal, which are its rows as "not run" when it is switched off or
 * fails), and a sink for what its timed operations return.
 */
public abstract class AbstractSection implements ReportSection {

    private final String title;
    private final List<Planned> planned;

    /** What the timed operations returned, summed, so that none of them can be optimised away. */
    protected long sink;

    /**
     * A section.
     *
     * @param title   its title in the report
     * @param planned its rows, in the table's order, as they stand when it does not run
     */
    protected AbstractSection(String title, List<Planned> planned) {
        this.title = title;
        this.planned = List.copyOf(planned);
    }

    /** A section of one row, which compares {@code comparison} against {@code goal}. */
    protected AbstractSection(String title, String comparison, String goal) {
        this(title, List.of(new Planned(comparison, goal)));
    }

    /**
     * One row a section promises before it runs.
     *
     * @param comparison what the row compares
     * @param goal       its goal
     */
    public record Planned(String comparison, String goal) {

        /** The row when its section does not run, saying why. */
        public GoalRow notRun(String why) {
            return GoalRow.notRun(comparison, goal, why);
        }
    }

    @Override
    public final String title() {
        return title;
    }

    @Override
    public final List<GoalRow> notRun(String why) {
        return planned.stream().map(p -> p.notRun(why)).toList();
    }
}
