package io.keepsake.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The goals report: every row of its goals table measured in one run, Keepsake
 * beside the released SeaTunnel 2.3.8 path and the raw disk, interleaved round by round, each
 * row with its median ratio, its spread and whether it meets its goal; then how each section
 * measured, and the machine.
 *
 * <p>Usage: {@code java -Xmx3g -cp benchmarks/target/benchmarks.jar io.keepsake.bench.BenchmarkReport
 * [--quick] [--heap-gib N] [--no-hdfs] [--no-heap] [--no-s3] [--only disk,lookup,...] [--out FILE]}.
 * {@code --only} runs the named sections alone (a section's class name without "Section", lower
 * case: restore, disk, heap, lookup, smallsavepoint, codec, hdfs, s3, seatunnelstore,
 * objectstore). {@code --quick} is a smoke test
 * on small sizes (about a minute; its figures are not the goals'); the full run takes about ten
 * minutes. The report is printed and written to {@code benchmark-report.md} in the {@code target}
 * directory the classes were loaded from (else the working directory), or to {@code --out}.
 * The JMH benchmarks of this module are run separately ({@link JmhReport}, or
 * {@code java -jar benchmarks.jar}).
 */
public final class BenchmarkReport {

    /** The heap the full run needs: two 256 MiB states and a SeaTunnel restore's three copies. */
    static final long FULL_HEAP_BYTES = 2900L * ReportOptions.MIB;

    private BenchmarkReport() {
    }

    /**
     * The report's sections, in the order of the goals table. A further section (for example
     * an S3 benchmark) is added to this list; its rows follow the ones above it.
     */
    public static List<ReportSection> sections() {
        return List.of(
                new RestoreSection(),         // restore v2 vs the hash bound, SeaTunnel, v1; verify threads table
                new DiskSection(),            // save (v2) vs raw write + fsync and SeaTunnel
                new HeapSection(),            // extra heap: save, restore, keepsake verify -Xmx128m
                new LookupSection(),          // newest savepoint, 10 vs 10,000; 10,000 tied vs distinct
                new SmallSavepointSection(),  // 4 pipelines vs the fsynced legacy store
                new CodecSection(),           // engine-wire-v1 vs SeaTunnel's double protostuff path
                new HdfsSection(),            // NameNode calls per savepoint
                new S3Section(),              // S3 save and restore vs the raw SDK, requests
                new SeaTunnelStoreSection(),  // plugin stores in the engine vs one fsync (read from StoreCostTest)
                new ObjectStoreSection()      // S3 with latency: Keepsake vs SeaTunnel-on-S3A, requests, round trips
                // further sections here
        );
    }

    /**
     * Runs the report.
     *
     * @param args the options described in the class comment
     * @throws IOException when the report cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path data = BenchFiles.baseDirectory();
        ReportOptions options = ReportOptions.full(data);
        Path out = null;
        boolean hdfs = true;
        boolean heap = true;
        Integer heapGib = null;
        List<String> only = List.of();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> options = ReportOptions.quick(data);
                case "--no-hdfs" -> hdfs = false;
                case "--no-heap" -> heap = false;
                case "--no-s3" -> System.setProperty(S3Section.ENABLED, "false");
                case "--heap-gib" -> heapGib = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]).toAbsolutePath();
                case "--only" -> only = List.of(args[++i].toLowerCase(java.util.Locale.ROOT).split(","));
                default -> {
                    System.err.println("Cannot run report: unknown argument (" + args[i] + "); usage: BenchmarkReport"
                            + " [--quick] [--heap-gib N] [--no-hdfs] [--no-heap] [--no-s3] [--only disk,lookup,...] [--out FILE]");
                    System.exit(2);
                }
            }
        }
        options = options.withHdfs(options.hdfs() && hdfs).withHeap(options.heap() && heap);
        if (heapGib != null) {
            options = options.withHeapStateBytes(heapGib * 1024L * ReportOptions.MIB);
        }
        long needed = options.mode().equals("full") ? FULL_HEAP_BYTES : 0;
        if (Runtime.getRuntime().maxMemory() < needed) {
            System.err.println("Cannot run report: the full run needs a heap of about 3 GiB (run java -Xmx3g ...);"
                    + " this JVM has " + Runtime.getRuntime().maxMemory() / ReportOptions.MIB + " MiB");
            System.exit(2);
        }
        Path report = out != null ? out
                : BenchFiles.buildDirectory().orElse(Path.of("").toAbsolutePath()).resolve("benchmark-report.md");
        Files.createDirectories(data);
        List<String> chosen = only;
        List<ReportSection> sections = sections().stream().filter(s -> chosen.isEmpty() || chosen.contains(
                s.getClass().getSimpleName().replace("Section", "").toLowerCase(java.util.Locale.ROOT))).toList();
        String markdown = render(run(options, sections, System.err::println), options);
        Files.createDirectories(report.getParent());
        Files.writeString(report, markdown, StandardCharsets.UTF_8);
        System.out.println(markdown);
        System.out.println("Report written to " + report);
    }

    /**
     * What one run measured.
     *
     * @param sections     each section's title and result, in order
     * @param took         the whole run's duration
     * @param loadBefore   the load average before the run
     * @param loadAfter    the load average after it
     */
    public record Run(List<SectionRun> sections, Duration took, String loadBefore, String loadAfter) {

        /** Copies the list. */
        public Run {
            sections = List.copyOf(sections);
        }

        /** Every row of the goals table, in order. */
        public List<GoalRow> rows() {
            return sections.stream().flatMap(s -> s.result().rows().stream()).toList();
        }
    }

    /**
     * One section's outcome.
     *
     * @param title   the section's title
     * @param result  its rows and notes
     * @param seconds how long it took
     */
    public record SectionRun(String title, ReportSection.Result result, long seconds) {
    }

    /**
     * Runs the sections in order; a section that is switched off or throws gives its rows as not run.
     *
     * @param progress where a line per section goes while it runs
     */
    public static Run run(ReportOptions options, List<ReportSection> sections,
                          java.util.function.Consumer<String> progress) {
        String loadBefore = loadAverage();
        Instant started = Instant.now();
        List<SectionRun> runs = new ArrayList<>();
        for (ReportSection section : sections) {
            Instant sectionStart = Instant.now();
            progress.accept("[report] " + section.title() + " ...");
            ReportSection.Result result;
            if (section instanceof HeapSection && !options.heap()) {
                result = new ReportSection.Result(section.notRun("switched off (--no-heap)"), List.of());
            } else if (section instanceof HdfsSection && !options.hdfs()) {
                result = new ReportSection.Result(section.notRun("switched off (--no-hdfs, or the tiny mode)"),
                        List.of());
            } else {
                try {
                    result = section.run(options);
                } catch (Exception | OutOfMemoryError e) {
                    String why = "failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
                    progress.accept("[report] " + section.title() + " " + why);
                    result = new ReportSection.Result(section.notRun(why.replace('|', '/').replace('\n', ' ')),
                            List.of());
                }
            }
            long seconds = Duration.between(sectionStart, Instant.now()).toSeconds();
            progress.accept("[report] " + section.title() + " done in " + seconds + " s");
            runs.add(new SectionRun(section.title(), result, seconds));
        }
        return new Run(runs, Duration.between(started, Instant.now()).truncatedTo(ChronoUnit.SECONDS), loadBefore,
                loadAverage());
    }

    /** Renders a run as the Markdown report. */
    public static String render(Run run, ReportOptions options) {
        StringBuilder md = new StringBuilder();
        md.append("# Keepsake goals report\n\n");
        md.append("- Mode: ").append(options.mode()).append(options.mode().equals("full") ? ""
                : " (a smoke test on small sizes: its figures are not the goals')").append('\n');
        md.append("- Machine: ").append(machine()).append('\n');
        md.append("- JVM flags: ").append(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
                .append(preTouched() ? " (heap pre-touched)" : " (heap NOT pre-touched: the first pass through fresh heap"
                        + " pages faults them in and inflates the small sizes; run with -Xms3g -Xmx3g -XX:+AlwaysPreTouch)")
                .append('\n');
        md.append("- Disk: ").append(disk(options.dataDirectory())).append('\n');
        md.append("- Load average (1, 5, 15 min) before: ").append(run.loadBefore()).append("; after: ")
                .append(run.loadAfter()).append("; the run took ").append(run.took().toSeconds()).append(" s\n\n");
        md.append("| comparison | goal | measured (median) | spread | verdict |\n");
        md.append("| --- | --- | --- | --- | --- |\n");
        for (GoalRow row : run.rows()) {
            md.append("| ").append(cell(row.comparison())).append(" | ").append(cell(row.goal())).append(" | ")
                    .append(cell(row.measured())).append(" | ").append(cell(row.spread())).append(" | ")
                    .append(row.verdict().text()).append(" |\n");
        }
        for (SectionRun s : run.sections()) {
            for (String table : s.result().tables()) {
                md.append('\n').append(table);
            }
        }
        md.append("\nHow each section measured:\n\n");
        for (SectionRun s : run.sections()) {
            for (String note : s.result().notes()) {
                md.append("- ").append(note).append('\n');
            }
            md.append("- ").append(s.title()).append(": ").append(s.seconds()).append(" s.\n");
        }
        List<String> missed = run.rows().stream().filter(r -> r.verdict() == GoalRow.Verdict.NOT_MET)
                .map(GoalRow::comparison).toList();
        md.append("\nNot met in this run: ").append(missed.isEmpty() ? "none" : String.join("; ", missed)).append(".\n");
        return md.toString();
    }

    /** True when every heap page was touched at start-up, so no measured operation pays first-touch page faults. */
    static boolean preTouched() {
        List<String> flags = ManagementFactory.getRuntimeMXBean().getInputArguments();
        return flags.contains("-XX:+AlwaysPreTouch");
    }

    private static String cell(String text) {
        return text.replace('|', '/').replace('\n', ' ');
    }

    private static String machine() {
        int cores = Runtime.getRuntime().availableProcessors();
        String cpu = JmhReport.cpuModel();
        long memory = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            memory = os.getTotalMemorySize();
        }
        return cores + " cores" + (cpu.isEmpty() ? "" : " (" + cpu + ")")
                + (memory > 0 ? ", " + Math.round(memory / (double) ReportOptions.MIB / 1024.0) + " GiB RAM" : "")
                + "; JVM " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", max heap " + Runtime.getRuntime().maxMemory() / ReportOptions.MIB + " MiB"
                + "; OS " + System.getProperty("os.name") + " " + System.getProperty("os.version");
    }

    private static String disk(Path directory) {
        try {
            Files.createDirectories(directory);
            FileStore store = Files.getFileStore(directory);
            String device = store.name();
            String rotational = "";
            if (device.startsWith("/dev/")) {
                Path flag = Path.of("/sys/block", device.substring(5).replaceAll("p?\\d+$", ""), "queue", "rotational");
                if (Files.isReadable(flag)) {
                    rotational = Files.readString(flag).trim().equals("1") ? ", rotational" : ", non-rotational";
                }
            }
            return "`" + directory + "` on " + device + " (" + store.type() + rotational + ")";
        } catch (IOException | RuntimeException e) {
            return "`" + directory + "` (file system unknown)";
        }
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields.length >= 3 ? fields[0] + ", " + fields[1] + ", " + fields[2] : "n/a";
        } catch (IOException | RuntimeException e) {
            double one = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return one < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", one);
        }
    }
}
