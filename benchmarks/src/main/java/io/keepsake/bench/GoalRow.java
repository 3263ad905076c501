package io.keepsake.bench;

/**
 * One row of the report's goals table: what is compared, the goal, what was measured and whether it meets the goal.
 *
 * @param comparison what is compared with what, and at which size
 * @param goal       the goal, as the report states it
 * @param measured   the measured figure (usually the median ratio)
 * @param spread     its spread over the interleaved rounds, or how it was obtained
 * @param verdict    met, not met, only reported, or not run
 */
public record GoalRow(String comparison, String goal, String measured, String spread, Verdict verdict) {

    /** Whether a row's figure meets its goal. */
    public enum Verdict {
        /** The measured figure meets the goal. */
        MET("met"),
        /** The measured figure misses the goal. */
        NOT_MET("**not met**"),
        /** The row has no goal of its own: the figure is reported for context. */
        REPORTED("reported"),
        /** The section did not run (switched off, or it failed: the spread column says why). */
        NOT_RUN("not run");

        private final String text;

        Verdict(String text) {
            this.text = text;
        }

        /** The verdict as the table prints it. */
        public String text() {
            return text;
        }

        /** {@link #MET} when {@code met}, else {@link #NOT_MET}. */
        public static Verdict of(boolean met) {
            return met ? MET : NOT_MET;
        }
    }

    /**
     * A row whose figure is the median of a ratio over the rounds and whose spread is the ratio's
     * spread.
     */
    public static GoalRow ratio(String comparison, String goal, Spread ratio, Verdict verdict) {
        return ratio(comparison, goal, ratio, "", verdict);
    }

    /**
     * A row whose figure is the median of a ratio over the rounds and whose spread is the ratio's
     * spread followed by {@code more}.
     */
    public static GoalRow ratio(String comparison, String goal, Spread ratio, String more, Verdict verdict) {
        return new GoalRow(comparison, goal, ratio.medianRatio(), ratio.ratioSpread() + more, verdict);
    }

    /** A row for a section that did not run, saying why. */
    public static GoalRow notRun(String comparison, String goal, String why) {
        return new GoalRow(comparison, goal, "-", why, Verdict.NOT_RUN);
    }
}
