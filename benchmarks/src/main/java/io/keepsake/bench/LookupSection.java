package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.localfile.LocalFileSystem;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Finding and restoring the newest savepoint of a job ({@link SavepointRestorer#recoverLatest},
 * what an engine calls after a crash) in a job with few savepoints against a job with many, on
 * the local disk from the page cache, interleaved per round; and how many {@code _metadata.ser}
 * files one lookup opens in each. The savepoints hold one tiny pipeline each, so the time is the
 * lookup's. The fixtures are built through a file system that skips fsync, to build 10,000
 * savepoints in seconds; the timed lookups use the plain local file system.
 */
public final class LookupSection implements ReportSection {

    private static final String FEW_JOB = "7700000000000005";
    private static final String MANY_JOB = "7700000000000006";
    private static final String GOAL = "<= 2x; metadata files read independent of the count";

    private long sink;

    @Override
    public String title() {
        return "Newest savepoint lookup";
    }

    @Override
    public List<GoalRow> notRun(String why) {
        return List.of(GoalRow.notRun("newest savepoint of a job with few vs many savepoints", GOAL, why));
    }

    @Override
    public Result run(ReportOptions options) throws Exception {
        Path trial = BenchFiles.newTrialDirectory("lookup");
        try {
            String checkpoints = trial.resolve("checkpoints").toString();
            String savepoints = trial.resolve("savepoints").toString();
            long built = System.nanoTime();
            try (KeepsakeStorage fixtures = KeepsakeStorage.open(new CountingFileSystem(new LocalFileSystem(), false),
                    checkpoints, savepoints)) {
                fill(fixtures, FEW_JOB, options.lookupFew());
                fill(fixtures, MANY_JOB, options.lookupMany());
            }
            long buildMillis = (System.nanoTime() - built) / 1_000_000;
            CountingFileSystem counting = new CountingFileSystem(new LocalFileSystem(), true);
            try (KeepsakeStorage storage = KeepsakeStorage.open(counting, checkpoints, savepoints)) {
                SavepointRestorer restorer = new SavepointRestorer(storage);
                long[] reads = new long[2];
                long[] lists = new long[2];
                String[] jobs = {FEW_JOB, MANY_JOB};
                int[] counts = {options.lookupFew(), options.lookupMany()};
                for (int i = 0; i < 2; i++) {
                    long before = counting.metadataReads();
                    long listedBefore = counting.listings();
                    RestoredState state = restorer.recoverLatest(jobs[i]);
                    reads[i] = counting.metadataReads() - before;
                    lists[i] = counting.listings() - listedBefore;
                    long newest = state.checkpoints().get(1).checkpointId();
                    if (newest != counts[i]) {
                        throw new IllegalStateException("Cannot measure lookup: job " + jobs[i]
                                + " restored checkpoint " + newest + ", not the newest (" + counts[i] + ")");
                    }
                }
                Map<String, double[]> samples = Interleaved.run(options.lookupRounds(), options.lookupRounds(), List.of(
                        Interleaved.Contender.of("few", () -> sink += restorer.recoverLatest(FEW_JOB)
                                .nextCheckpointId()),
                        Interleaved.Contender.of("many", () -> sink += restorer.recoverLatest(MANY_JOB)
                                .nextCheckpointId())));
                Spread ratio = Spread.of(Spread.ratios(samples.get("many"), samples.get("few")));
                boolean flat = reads[0] == reads[1];
                List<GoalRow> rows = List.of(new GoalRow("newest savepoint of a job with " + options.lookupFew()
                        + " vs " + String.format("%,d", options.lookupMany()) + " savepoints (time; metadata files read)",
                        GOAL, ratio.medianRatio() + "; " + reads[0] + " vs " + reads[1] + " metadata files",
                        ratio.ratioSpread() + "; directory listings " + lists[0] + " vs " + lists[1],
                        GoalRow.Verdict.of(ratio.median() <= 2.0 && flat)));
                List<String> notes = List.of("Lookup: `SavepointRestorer.recoverLatest` (find the newest state and"
                        + " restore it, one pipeline of 64 bytes); ratio = time with " + options.lookupMany()
                        + " savepoints / time with " + options.lookupFew() + " in the same round, after " + options.lookupRounds()
                        + " discarded warm-up rounds; median times "
                        + Spread.of(samples.get("few")).medianMillis() + " / "
                        + Spread.of(samples.get("many")).medianMillis() + "; metadata files and listings counted by a"
                        + " wrapper around the file system. Building the fixtures (no fsync) took " + buildMillis
                        + " ms.");
                return new Result(rows, notes);
            }
        } finally {
            BenchFiles.deleteRecursively(trial);
        }
    }

    /**
     * Saves {@code count} savepoints with checkpoint ids 1..count, one after the other (a job
     * takes one savepoint at a time).
     */
    private static void fill(KeepsakeStorage storage, String job, int count) {
        for (int i = 1; i <= count; i++) {
            CompletedCheckpoint state = BenchStates.reportState(64, Long.parseLong(job), 1, i, i);
            try (SavepointSaveSession session = SavepointSaveSession.builder(storage, job, List.of(1)).open()) {
                session.report(state);
                session.pipelineSuspended(1);
                session.commit();
            }
        }
    }
}
