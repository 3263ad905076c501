package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.hdfs.HdfsFileSystem;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * NameNode calls per savepoint on an HDFS mini cluster (one NameNode, one DataNode, in this
 * JVM): savepoints of 1, 2, 4, ... pipelines (one payload file each, plus the metadata file),
 * the NameNode's per-method client call counters read before and after each, and a least-squares
 * line "calls = constant + per file x payload files" through the medians.
 */
public final class HdfsSection extends AbstractSection {

    private static final String JOB = "7700000000000008";
    private static final String COMPARISON = "HDFS savepoint on the mini cluster: NameNode calls per savepoint";
    private static final String GOAL = "NameNode calls = a constant + one per file; reported";

    /** The section. */
    public HdfsSection() {
        super("HDFS NameNode calls", COMPARISON, GOAL);
    }

    // About 67 lines: the cluster's settings, the trial and its rows share the cluster's lifetime.
    @Override
    public Result run(ReportOptions options) throws Exception {
        Path trial = BenchFiles.newTrialDirectory("hdfs");
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, trial.toString());
        conf.setInt("dfs.replication", 1);
        conf.setInt("dfs.namenode.file.close.num-committed-allowed", 1);
        conf.set("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", "5");
        // From 5 ms, Hadoop's 5 tries give up after about 155 ms, which a busy DataNode can exceed.
        conf.set("dfs.client.block.write.locateFollowingBlock.retries", "13");
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
        try {
            cluster.waitActive();
            Configuration client = new Configuration(cluster.getConfiguration(0));
            client.set("fs.defaultFS", cluster.getURI().toString());
            NameNodeCalls calls = new NameNodeCalls(cluster);
            String root = cluster.getURI().toString();
            List<String> notes = new ArrayList<>();
            double[] files = new double[options.hdfsPipelines().size()];
            double[] medians = new double[files.length];
            StringBuilder perCount = new StringBuilder();
            try (KeepsakeStorage storage = KeepsakeStorage.open(new HdfsFileSystem(client), root + "/checkpoints",
                    root + "/savepoints")) {
                int sequence = 0;
                for (int i = 0; i < files.length; i++) {
                    int pipelines = options.hdfsPipelines().get(i);
                    List<CompletedCheckpoint> states = new ArrayList<>();
                    for (int p = 1; p <= pipelines; p++) {
                        states.add(BenchStates.reportState(64 * 1024, Long.parseLong(JOB), p, 1, p));
                    }
                    save(storage, "warm-" + pipelines, states);
                    double[] counts = new double[options.hdfsRepeats()];
                    Map<String, Long> lastBreakdown = Map.of();
                    for (int r = 0; r < counts.length; r++) {
                        Map<String, Long> before = calls.snapshot();
                        save(storage, "sp-" + (++sequence), states);
                        lastBreakdown = NameNodeCalls.difference(before, calls.snapshot());
                        counts[r] = lastBreakdown.values().stream().mapToLong(Long::longValue).sum();
                    }
                    files[i] = pipelines;
                    medians[i] = Spread.of(counts).median();
                    perCount.append(perCount.length() == 0 ? "" : "; ").append(pipelines).append(" payload file(s): ")
                            .append(Spread.ratio(medians[i]).replaceAll("\\.00$", "")).append(" calls (min-max ")
                            .append((long) Spread.of(counts).min()).append("-").append((long) Spread.of(counts).max())
                            .append(")");
                    notes.add("HDFS, " + pipelines + " payload file(s), calls of the last savepoint by method: "
                            + new TreeMap<>(lastBreakdown) + ".");
                }
            }
            double[] fit = fit(files, medians);
            double worst = 0;
            for (int i = 0; i < files.length; i++) {
                worst = Math.max(worst, Math.abs(fit[0] + fit[1] * files[i] - medians[i]));
            }
            List<GoalRow> rows = List.of(new GoalRow(COMPARISON, GOAL,
                    Spread.ratio(fit[0]) + " + " + Spread.ratio(fit[1]) + " x payload files",
                    perCount + "; largest deviation from the line " + Spread.ratio(worst) + " calls",
                    GoalRow.Verdict.REPORTED));
            notes.add(0, "HDFS: MiniDFSCluster (Hadoop 3.4.1, 1 DataNode), savepoints of 64 KiB pipelines; NameNode"
                    + " client RPCs counted from the NameNode's per-method RPC metrics (DataNode heartbeats and block"
                    + " reports excluded); " + options.hdfsRepeats() + " savepoint(s) per pipeline count after one"
                    + " warm-up; each savepoint also writes one metadata file.");
            return new Result(rows, notes);
        } finally {
            cluster.shutdown(true);
            BenchFiles.deleteRecursively(trial);
        }
    }

    private static void save(KeepsakeStorage storage, String savepointId, List<CompletedCheckpoint> states) {
        List<Integer> ids = states.stream().map(CompletedCheckpoint::pipelineId).toList();
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, JOB, ids).savepointId(savepointId)
                .open()) {
            for (CompletedCheckpoint c : states) {
                session.report(c);
                session.pipelineSuspended(c.pipelineId());
            }
            session.commit();
        }
    }

    /** Least squares {@code y = a + b x}; returns {a, b}. */
    static double[] fit(double[] x, double[] y) {
        int n = x.length;
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        for (int i = 0; i < n; i++) {
            sx += x[i];
            sy += y[i];
            sxx += x[i] * x[i];
            sxy += x[i] * y[i];
        }
        double denominator = n * sxx - sx * sx;
        if (n < 2 || denominator == 0) {
            return new double[] {n == 0 ? 0 : sy / n, 0};
        }
        double b = (n * sxy - sx * sy) / denominator;
        return new double[] {(sy - b * sx) / n, b};
    }
}
