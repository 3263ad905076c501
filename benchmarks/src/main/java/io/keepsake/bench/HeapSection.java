package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.localfile.LocalFileSystem;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Extra heap while saving, restoring and verifying, each in a forked JVM with a small heap:
 * <ul>
 *   <li>verify: the operator tool's {@code keepsake verify JOB SAVEPOINT} in a JVM with
 *       {@code -Xmx128m}, which must pass (exit 0);</li>
 *   <li>save and restore: {@link HeapProbe} in a JVM whose heap is the state size + 128 MiB
 *       (the 64 MiB goal + 64 MiB for the JVM's own objects and a fixed 32 MiB young generation,
 *       Parallel GC so that large state arrays waste no region space); the extra heap is the
 *       highest live heap after any collection during the operation minus the live heap
 *       before it (save: the state is held throughout) or after it (restore: the decoded objects
 *       are held after it), so it excludes the decoded objects.</li>
 * </ul>
 * "Live heap after a collection" misses short peaks between collections; the small heap makes
 * collections frequent, and the operation must also finish inside that heap.
 */
public final class HeapSection extends AbstractSection {

    private static final String JOB = "7700000000000007";
    private static final String GOAL = "<= 64 MiB at 1 GiB of state";
    private static final String VERIFY_GOAL = "`keepsake verify` of 1 GiB passes with -Xmx128m";
    private static final long ALLOWANCE = 64 * ReportOptions.MIB;
    private static final long TIMEOUT_MINUTES = 10;

    /** The section. */
    public HeapSection() {
        super("Extra heap", List.of(new Planned("extra heap while saving", GOAL),
                new Planned("extra heap while restoring", GOAL),
                new Planned("`keepsake verify` with -Xmx128m", VERIFY_GOAL)));
    }

    @Override
    public Result run(ReportOptions options) throws Exception {
        long bytes = options.heapStateBytes();
        String label = ReportOptions.size(bytes);
        Path trial = BenchFiles.newTrialDirectory("heap");
        try {
            String namespace = trial.resolve("checkpoints").toString();
            String savepoints = trial.resolve("savepoints").toString();
            java.nio.file.Files.createDirectories(trial.resolve("checkpoints"));
            try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(), namespace, savepoints)) {
                CompletedCheckpoint state = BenchStates.reportState(bytes, Long.parseLong(JOB), 1, 1, 5L);
                DiskSection.save(storage, JOB, "fixture", state);
            }
            long heapMiB = (bytes + ALLOWANCE + 64 * ReportOptions.MIB) / ReportOptions.MIB;
            List<String> probeFlags = List.of("-Xmx" + heapMiB + "m", "-Xmn32m", "-XX:+UseParallelGC");
            Probe save = probe(probeFlags, "save", namespace, savepoints, "saved", bytes);
            Probe restore = probe(probeFlags, "restore", namespace, savepoints, "fixture", bytes);
            List<String> verifyCommand = new ArrayList<>(javaCommand(List.of("-Xmx128m")));
            verifyCommand.addAll(List.of("io.keepsake.tool.KeepsakeCli", "verify", JOB, "fixture", "--backend",
                    "localfile", "--namespace", namespace, "--savepoint-path", savepoints, "--progress", "never"));
            Run verify = execute(verifyCommand);

            List<GoalRow> rows = new ArrayList<>();
            rows.add(heapRow("extra heap while saving " + label + " (beyond the state)", save, probeFlags));
            rows.add(heapRow("extra heap while restoring " + label + " (beyond the decoded objects)", restore,
                    probeFlags));
            rows.add(new GoalRow("`keepsake verify` of " + label + " with -Xmx128m", VERIFY_GOAL,
                    verify.exitCode() == 0 ? "passes" : "fails (exit " + verify.exitCode() + ")",
                    "forked JVM, exit " + verify.exitCode() + (verify.exitCode() == 0 ? "" : ": " + lastLine(verify.output())),
                    bytes >= 1024 * ReportOptions.MIB ? GoalRow.Verdict.of(verify.exitCode() == 0)
                            : verify.exitCode() == 0 ? GoalRow.Verdict.REPORTED : GoalRow.Verdict.NOT_MET));
            List<String> notes = List.of("Extra heap: forked JVMs (" + String.join(" ", probeFlags) + ") run one save"
                    + " and one restore of a " + label + " one-pipeline savepoint; figures are live heap after"
                    + " collections (see HeapSection). The goal is stated at 1 GiB; at a smaller size a row that meets"
                    + " its figure is marked met only when the measured size is at least 1 GiB, else reported"
                    + " (`--heap-gib 1` measures 1 GiB). Save: " + save.describe() + ". Restore: "
                    + restore.describe() + ".");
            return new Result(rows, notes);
        } finally {
            BenchFiles.deleteRecursively(trial);
        }
    }

    private static GoalRow heapRow(String comparison, Probe probe, List<String> flags) {
        if (!probe.completed()) {
            return new GoalRow(comparison, GOAL, "OutOfMemoryError or failure", "exit " + probe.run().exitCode()
                    + " with " + String.join(" ", flags) + ": " + lastLine(probe.run().output()), GoalRow.Verdict.NOT_MET);
        }
        long extra = probe.extraBytes();
        boolean met = extra <= ALLOWANCE;
        GoalRow.Verdict verdict = !met ? GoalRow.Verdict.NOT_MET
                : probe.stateBytes() >= 1024 * ReportOptions.MIB ? GoalRow.Verdict.MET : GoalRow.Verdict.REPORTED;
        return new GoalRow(comparison, GOAL, mib(extra) + " MiB", "one run; " + probe.collections()
                + " collections; " + mib(probe.allocated()) + " MiB allocated in all; completed with "
                + String.join(" ", flags), verdict);
    }

    private Probe probe(List<String> flags, String mode, String namespace, String savepoints, String savepointId,
                        long bytes) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(javaCommand(flags));
        command.addAll(List.of(HeapProbe.class.getName(), mode, namespace, savepoints, JOB, savepointId,
                Long.toString(bytes)));
        Run run = execute(command);
        long base = -1;
        long peak = -1;
        long after = -1;
        int gcs = -1;
        long allocated = -1;
        for (String line : run.output().split("\n")) {
            if (line.startsWith(HeapProbe.PREFIX + " base=")) {
                for (String field : line.split(" ")) {
                    String[] kv = field.split("=", 2);
                    switch (kv[0]) {
                        case "base" -> base = Long.parseLong(kv[1]);
                        case "peak" -> peak = Long.parseLong(kv[1]);
                        case "after" -> after = Long.parseLong(kv[1]);
                        case "gcs" -> gcs = Integer.parseInt(kv[1]);
                        case "allocated" -> allocated = Long.parseLong(kv[1]);
                        default -> { }
                    }
                }
            }
        }
        boolean completed = run.exitCode() == 0 && base >= 0;
        long extra = !completed ? -1 : mode.equals("save") ? peak - Math.max(base, after) : peak - after;
        return new Probe(mode, run, completed, Math.max(0, extra), gcs, bytes, base, peak, after, allocated);
    }

    private static List<String> javaCommand(List<String> flags) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        return command;
    }

    private static Run execute(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IOException("Cannot run heap probe: it did not finish in " + TIMEOUT_MINUTES + " minutes ("
                    + String.join(" ", command.subList(command.size() - 7, command.size())) + ")");
        }
        return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    /** The line of a child's output that says why it failed: an OutOfMemoryError, else the first error line. */
    private static String lastLine(String output) {
        String[] lines = output.strip().split("\n");
        for (String marker : List.of("OutOfMemoryError", HeapProbe.PREFIX + " oom", "Exception", "keepsake ")) {
            for (String line : lines) {
                if (line.contains(marker)) {
                    return line.strip().replace('|', '/');
                }
            }
        }
        return lines.length == 0 ? "" : lines[lines.length - 1].strip().replace('|', '/');
    }

    private static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f", bytes / (double) ReportOptions.MIB);
    }

    /** A forked JVM's exit code and output. */
    private record Run(int exitCode, String output) {
    }

    /** What one probe saw. */
    private record Probe(String mode, Run run, boolean completed, long extraBytes, int collections, long stateBytes,
                         long base, long peak, long after, long allocated) {

        String describe() {
            if (!completed) {
                return "failed, exit " + run.exitCode() + " (" + lastLine(run.output()) + ")";
            }
            return "live before " + mib(base) + " MiB, highest after a collection " + mib(peak) + " MiB, after "
                    + mib(after) + " MiB, " + collections + " collections, " + mib(allocated)
                    + " MiB allocated during the operation";
        }
    }
}
