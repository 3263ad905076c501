package io.keepsake.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A checkpoint store and a savepoint store through the SeaTunnel plugin on a state
 * of about 170 KB the released 2.3.8 engine produced, against the same bytes written with one
 * fsync. The stores have to run beside the engine, so they are measured by the plugin's
 * {@code StoreCostTest}, which leaves every round's times in
 * {@code seatunnel-plugin/target/seatunnel-store-cost.tsv}; this section reads that file (path
 * from the system property {@value #FILE_PROPERTY}) and turns the rounds into ratios. Without the
 * file its rows say how to produce it. It measures nothing itself.
 */
public final class SeaTunnelStoreSection extends AbstractSection {

    /** The system property naming the rounds file. */
    public static final String FILE_PROPERTY = "keepsake.bench.store-cost";

    private static final String CHECKPOINT = "SeaTunnel plugin: checkpoint store vs the same .ser bytes written with"
            + " one fsync, ~170 KB engine state";
    private static final String CHECKPOINT_GOAL = "<= 1.5x (time)";
    private static final String SAVEPOINT = "SeaTunnel plugin: savepoint store (bundle + .ser) vs a checkpoint store,"
            + " same state";
    private static final String SAVEPOINT_GOAL = "<= 3x (time)";

    /** The section. */
    public SeaTunnelStoreSection() {
        super("SeaTunnel plugin stores", List.of(new Planned(CHECKPOINT, CHECKPOINT_GOAL),
                new Planned(SAVEPOINT, SAVEPOINT_GOAL)));
    }

    // About 54 lines: parsing the plugin's rounds file and the rows it yields, in the order of the file's columns.
    @Override
    public Result run(ReportOptions options) throws IOException {
        Path file = Path.of(System.getProperty(FILE_PROPERTY, "seatunnel-plugin/target/seatunnel-store-cost.tsv"));
        if (!Files.isRegularFile(file)) {
            return new Result(notRun("no rounds file " + file + "; run `mvn -B -o -pl seatunnel-plugin -am test"
                    + " -Dtest=StoreCostTest -Dsurefire.failIfNoSpecifiedTests=false` first"), List.of());
        }
        Map<String, String> facts = new HashMap<>();
        Map<String, double[]> rounds = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] cells = line.split("\t");
            if (line.startsWith("# ")) {
                facts.put(cells[0].substring(2), cells.length > 1 ? cells[1] : "");
            } else if (cells.length > 1) {
                double[] nanos = new double[cells.length - 1];
                for (int i = 1; i < cells.length; i++) {
                    nanos[i - 1] = Double.parseDouble(cells[i]);
                }
                rounds.put(cells[0], nanos);
            }
        }
        for (String needed : List.of("floor", "rename-floor", "checkpoint", "savepoint", "localfile")) {
            if (!rounds.containsKey(needed)) {
                return new Result(notRun("the rounds file " + file + " has no '" + needed + "' line"), List.of());
            }
        }
        Spread checkpoint = Spread.of(Spread.ratios(rounds.get("checkpoint"), rounds.get("floor")));
        Spread savepoint = Spread.of(Spread.ratios(rounds.get("savepoint"), rounds.get("checkpoint")));
        Spread protocol = Spread.of(Spread.ratios(rounds.get("rename-floor"), rounds.get("floor")));
        String where = "; " + facts.getOrDefault("state-bytes", "?") + " B .ser, measured in the 2.3.8 engine's JVM by"
                + " StoreCostTest at " + facts.getOrDefault("measured", "?");
        List<GoalRow> rows = List.of(
                GoalRow.ratio(CHECKPOINT, CHECKPOINT_GOAL, checkpoint, where,
                        GoalRow.Verdict.of(checkpoint.median() <= 1.5)),
                GoalRow.ratio(SAVEPOINT, SAVEPOINT_GOAL, savepoint, where,
                        GoalRow.Verdict.of(savepoint.median() <= 3)));
        List<String> notes = new ArrayList<>();
        notes.add("SeaTunnel plugin stores: ratio = time / baseline time of the same round. Median times floor (write"
                + " + one fsync) / temp write + fsync + rename + directory fsync / Keepsake checkpoint / Keepsake"
                + " savepoint / SeaTunnel localfile (no fsync): "
                + Spread.of(rounds.get("floor")).medianMillis() + " / "
                + Spread.of(rounds.get("rename-floor")).medianMillis() + " / "
                + Spread.of(rounds.get("checkpoint")).medianMillis() + " / "
                + Spread.of(rounds.get("savepoint")).medianMillis() + " / "
                + Spread.of(rounds.get("localfile")).medianMillis() + "; publication by rename alone costs "
                + protocol.medianRatio() + " of the floor (" + protocol.ratioSpread() + "). Machine: "
                + facts.getOrDefault("machine", "?") + ".");
        if (rounds.containsKey("savepoint-sequential")) {
            Spread staged = Spread.of(Spread.ratios(rounds.get("savepoint"), rounds.get("savepoint-sequential")));
            notes.add("SeaTunnel plugin stores: a savepoint store with its .ser staged while the bundle commits vs the"
                    + " .ser written after the bundle commits (one after the other): " + staged.medianRatio() + " ("
                    + staged.ratioSpread() + ").");
        }
        return new Result(rows, notes);
    }
}
