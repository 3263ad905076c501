package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.faults.CountingFileSystem;
import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.localfile.LocalFileSystem;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Finding and restoring the newest savepoint of a job ({@link SavepointRestorer#recoverLatest},
 * what an engine calls after a crash) in a job with few savepoints against a job with many, and
 * in a job with as many savepoints that all tie on one checkpoint id (periodic savepoints of an
 * idle job) against the one with distinct ids, on the local disk from the page cache, the three
 * interleaved per round; and how many {@code _metadata.ser} files one lookup opens in each. The
 * savepoints hold one tiny pipeline each, so the time is the lookup's. The fixtures are built
 * through a file system that skips fsync, to build 10,000 savepoints in seconds; the timed
 * lookups use the plain local file system.
 */
public final class LookupSection extends AbstractSection {

    private static final String FEW_JOB = "7700000000000005";
    private static final String MANY_JOB = "7700000000000006";
    private static final String TIED_JOB = "7700000000000007";
    private static final String GOAL = "<= 2x; metadata files read independent of the count";
    private static final String TIED_GOAL = "<= 1.0x (time)";

    /** The section. */
    public LookupSection() {
        super("Newest savepoint lookup", List.of(
                new Planned("newest savepoint of a job with few vs many savepoints", GOAL),
                new Planned(tiedComparison("many"), TIED_GOAL)));
    }

    // About 69 lines: one trial (seeded jobs, counted lookups, goal rows), read top to bottom.
    @Override
    public Result run(ReportOptions options) throws Exception {
        Path trial = BenchFiles.newTrialDirectory("lookup");
        try {
            String checkpoints = trial.resolve("checkpoints").toString();
            String savepoints = trial.resolve("savepoints").toString();
            int many = options.lookupMany();
            long built = System.nanoTime();
            try (KeepsakeStorage fixtures = KeepsakeStorage.open(new CountingFileSystem(new LocalFileSystem(), false),
                    checkpoints, savepoints)) {
                fill(fixtures, FEW_JOB, options.lookupFew(), false);
                fill(fixtures, MANY_JOB, many, false);
                fill(fixtures, TIED_JOB, many, true);
            }
            long buildMillis = (System.nanoTime() - built) / 1_000_000;
            CountingFileSystem counting = new CountingFileSystem(new LocalFileSystem(), true);
            try (KeepsakeStorage storage = KeepsakeStorage.open(counting, checkpoints, savepoints)) {
                SavepointRestorer restorer = new SavepointRestorer(storage);
                String[] jobs = {FEW_JOB, MANY_JOB, TIED_JOB};
                long[] newest = {options.lookupFew(), many, many};
                long[] reads = new long[jobs.length];
                long[] lists = new long[jobs.length];
                for (int i = 0; i < jobs.length; i++) {
                    long before = counting.metadataReads();
                    long listedBefore = counting.listings();
                    RestoredState state = restorer.recoverLatest(jobs[i]);
                    reads[i] = counting.metadataReads() - before;
                    lists[i] = counting.listings() - listedBefore;
                    long restored = state.checkpoints().get(1).checkpointId();
                    if (restored != newest[i]) {
                        throw new IllegalStateException("Cannot measure lookup: job " + jobs[i]
                                + " restored checkpoint " + restored + ", not the newest (" + newest[i] + ")");
                    }
                }
                Map<String, double[]> samples = Interleaved.run(options.lookupRounds(), options.lookupRounds(), List.of(
                        Interleaved.Contender.of("few", () -> sink += restorer.recoverLatest(FEW_JOB)
                                .nextCheckpointId()),
                        Interleaved.Contender.of("many", () -> sink += restorer.recoverLatest(MANY_JOB)
                                .nextCheckpointId()),
                        Interleaved.Contender.of("tied", () -> sink += restorer.recoverLatest(TIED_JOB)
                                .nextCheckpointId())));
                Spread ratio = Spread.of(Spread.ratios(samples.get("many"), samples.get("few")));
                Spread tied = Spread.of(Spread.ratios(samples.get("tied"), samples.get("many")));
                boolean flat = reads[0] == reads[1];
                String manyText = String.format("%,d", many);
                List<GoalRow> rows = List.of(new GoalRow("newest savepoint of a job with " + options.lookupFew()
                        + " vs " + manyText + " savepoints (time; metadata files read)",
                        GOAL, ratio.medianRatio() + "; " + reads[0] + " vs " + reads[1] + " metadata files",
                        ratio.ratioSpread() + "; directory listings " + lists[0] + " vs " + lists[1],
                        GoalRow.Verdict.of(ratio.median() <= 2.0 && flat)),
                        GoalRow.ratio(tiedComparison(manyText), TIED_GOAL, tied, "; metadata files read " + reads[2]
                                + " vs " + reads[1] + ", directory listings " + lists[2] + " vs " + lists[1],
                                GoalRow.Verdict.of(tied.median() <= 1.0)));
                List<String> notes = List.of("Lookup: `SavepointRestorer.recoverLatest` (find the newest state and"
                        + " restore it, one pipeline of 64 bytes); ratio = time with " + many
                        + " savepoints / time with " + options.lookupFew() + " in the same round, and time with "
                        + many + " savepoints all at checkpoint id " + many + " / time with " + many
                        + " at ids 1.." + many + " in the same round, after " + options.lookupRounds()
                        + " discarded warm-up rounds; median times "
                        + Spread.of(samples.get("few")).medianMillis() + " / "
                        + Spread.of(samples.get("many")).medianMillis() + " / "
                        + Spread.of(samples.get("tied")).medianMillis() + " (few / distinct ids / tied);"
                        + " metadata files and listings counted by a wrapper around the file system. Building the"
                        + " fixtures (no fsync) took " + buildMillis + " ms.");
                return new Result(rows, notes);
            }
        } finally {
            BenchFiles.deleteRecursively(trial);
        }
    }

    private static String tiedComparison(String many) {
        return "recoverLatest, " + many + " savepoints tying on one checkpoint id vs " + many + " distinct ids (time)";
    }

    /**
     * Saves {@code count} savepoints one after the other (a job takes one savepoint at a time),
     * with checkpoint ids 1..count, or with {@code tied} all at checkpoint id {@code count}.
     */
    private static void fill(KeepsakeStorage storage, String job, int count, boolean tied) {
        for (int i = 1; i <= count; i++) {
            long checkpointId = tied ? count : i;
            CompletedCheckpoint state = BenchStates.reportState(64, Long.parseLong(job), 1, checkpointId, i);
            try (SavepointSaveSession session = SavepointSaveSession.builder(storage, job, List.of(1)).open()) {
                session.report(state);
                session.pipelineSuspended(1);
                session.commit();
            }
        }
    }
}
