package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.wire.CheckpointWireCodec;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs {@link CodecBenchmark}, {@link SaveBenchmark} and {@link RestoreBenchmark} through the JMH
 * runner with short settings (one fork, {@value #WARMUP_ITERATIONS} warm-up iterations of
 * {@value #WARMUP_MILLIS} ms, {@value #MEASUREMENT_ITERATIONS} measured iterations of
 * {@value #MEASUREMENT_MILLIS} ms; about three minutes in all) and writes a Markdown report: one row
 * per benchmark and parameter with score, error, unit and the data rate it implies, the machine,
 * and what each benchmark is measured against.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar io.keepsake.bench.JmhReport [report.md]}.
 * Without an argument the report goes to {@code benchmark-report.md} in the {@code target}
 * directory the classes were loaded from (else the working directory). The report is also printed.
 */
public final class JmhReport {

    static final int WARMUP_ITERATIONS = 4;
    static final int WARMUP_MILLIS = 1000;
    static final int MEASUREMENT_ITERATIONS = 8;
    static final int MEASUREMENT_MILLIS = 1000;
    private static final String FORK_HEAP = "-Xmx1g";

    private static final double MIB = 1024.0 * 1024.0;

    /** Report order: the classes, and within each the Keepsake method before its baselines. */
    private static final List<String> ROW_ORDER = List.of(CodecBenchmark.class.getName(),
            SaveBenchmark.class.getName(), RestoreBenchmark.class.getName(),
            "encodeWireV1", "encodeLegacyV0", "decodeWireV1", "decodeLegacyV0",
            "keepsakeSavepoint", "legacyStoreCheckpoint", "rawLegacyWrite",
            "keepsakeRestoreById", "legacyLatestCheckpoint");

    private JmhReport() {
    }

    /**
     * Runs the benchmarks and writes the report.
     *
     * @param args optionally the report file
     * @throws RunnerException when a benchmark fails
     * @throws IOException     when the report cannot be written
     */
    public static void main(String[] args) throws RunnerException, IOException {
        Path report = args.length > 0 ? Path.of(args[0]).toAbsolutePath()
                : BenchFiles.buildDirectory().orElse(Path.of("").toAbsolutePath()).resolve("jmh-report.md");
        Path dataDirectory = BenchFiles.baseDirectory();
        Files.createDirectories(dataDirectory);

        String loadBefore = loadAverage();
        Instant started = Instant.now();
        Options options = new OptionsBuilder()
                .include(only(CodecBenchmark.class))
                .include(only(SaveBenchmark.class))
                .include(only(RestoreBenchmark.class))
                .forks(1)
                .warmupIterations(WARMUP_ITERATIONS)
                .warmupTime(TimeValue.milliseconds(WARMUP_MILLIS))
                .measurementIterations(MEASUREMENT_ITERATIONS)
                .measurementTime(TimeValue.milliseconds(MEASUREMENT_MILLIS))
                .jvmArgsAppend(FORK_HEAP, "-D" + BenchFiles.DIRECTORY_PROPERTY + "=" + dataDirectory)
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        Duration took = Duration.between(started, Instant.now()).truncatedTo(ChronoUnit.SECONDS);

        String markdown = render(results, dataDirectory, took, loadBefore, loadAverage());
        Files.createDirectories(report.getParent());
        Files.writeString(report, markdown, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(markdown);
        System.out.println("Report written to " + report);
    }

    private static String only(Class<?> benchmark) {
        return "^" + Pattern.quote(benchmark.getName() + ".");
    }

    // About 63 lines: the report's Markdown in the order it prints, one append per line of output.
    /** Renders the results as the Markdown report. */
    static String render(Collection<RunResult> results, Path dataDirectory, Duration took, String loadBefore,
                         String loadAfter) {
        Sizes sizes = Sizes.compute();
        StringBuilder md = new StringBuilder();
        md.append("# Keepsake benchmark report\n\n");
        md.append("- Machine: ").append(machine()).append('\n');
        md.append("- Disk benchmarks write to `").append(dataDirectory).append("` (").append(fileStoreType(dataDirectory))
                .append(")\n");
        md.append("- Load average (1, 5, 15 min) before the run: ").append(loadBefore).append("; after: ")
                .append(loadAfter).append('\n');
        md.append("- JMH ").append(jmhVersion()).append(": 1 fork (").append(FORK_HEAP).append("), ")
                .append(WARMUP_ITERATIONS).append(" warm-up x ").append(WARMUP_MILLIS).append(" ms, ")
                .append(MEASUREMENT_ITERATIONS).append(" measured x ").append(MEASUREMENT_MILLIS)
                .append(" ms per benchmark; the error is JMH's 99.9% confidence half-width over the measured")
                .append(" iterations; the whole run took ").append(took.toSeconds()).append(" s\n\n");

        md.append("| benchmark | params | score | ± error | unit | ≈ MiB/s |\n");
        md.append("| --- | --- | ---: | ---: | --- | ---: |\n");
        for (RunResult r : sorted(results)) {
            BenchmarkParams params = r.getParams();
            Result<?> primary = r.getPrimaryResult();
            String method = className(params).substring(className(params).lastIndexOf('.') + 1) + "."
                    + methodName(params);
            List<String> keyValues = new ArrayList<>();
            for (String key : params.getParamsKeys()) {
                keyValues.add(key + "=" + params.getParam(key));
            }
            String paramText = keyValues.isEmpty() ? "4 pipelines x 1 MiB" : String.join(", ", keyValues);
            md.append("| ").append(method)
                    .append(" | ").append(paramText)
                    .append(" | ").append(number(primary.getScore()))
                    .append(" | ").append(Double.isNaN(primary.getScoreError()) ? "n/a"
                            : number(primary.getScoreError(), primary.getScore()))
                    .append(" | ").append(primary.getScoreUnit())
                    .append(" | ").append(rate(sizes, params, primary))
                    .append(" |\n");
        }

        md.append("\nWhat each is measured against:\n\n");
        md.append("- CodecBenchmark: Keepsake's engine-wire-v1 (`encodeWireV1`, `decodeWireV1`, validation included)")
                .append(" vs the baseline legacy v0 layout that SeaTunnel 2.3.x writes today (`encodeLegacyV0`,")
                .append(" `decodeLegacyV0`), one pipeline's CompletedCheckpoint in memory. Encoded sizes: small ")
                .append(sizes.smallWire).append(" B v1 / ").append(sizes.smallLegacy).append(" B v0; large ")
                .append(sizes.largeWire).append(" B v1 / ").append(sizes.largeLegacy)
                .append(" B v0. MiB/s = ops/s x the encoded size of the row's format.\n");
        md.append("- SaveBenchmark: a full Keepsake savepoint of 4 pipelines through SavepointSaveSession")
                .append(" (`keepsakeSavepoint`: v1 encoding, staged, SHA-256 while written, files and directories")
                .append(" fsynced, atomic rename, `_metadata.ser`) vs the same 4 pipelines stored the SeaTunnel way")
                .append(" through the legacy `storeCheckPoint` SPI (`legacyStoreCheckpoint`: v0 encoding; Keepsake's")
                .append(" implementation also writes a temporary file, fsyncs and renames) and vs a raw baseline")
                .append(" (`rawLegacyWrite`: the v0 file bytes written with `Files.write`, no fsync, no rename, which")
                .append(" is what SeaTunnel's own `localfile` plugin does with commons-io `writeByteArrayToFile`).")
                .append(" Encoding is included on every side; what a save wrote is deleted after it, untimed.")
                .append(" Bytes per save: ").append(sizes.savepointWire).append(" B of v1 payloads / ")
                .append(sizes.savepointLegacyFiles).append(" B of v0 files.\n");
        md.append("- RestoreBenchmark: Keepsake `SavepointRestorer.restoreSavepoint` (`keepsakeRestoreById`: read metadata,")
                .append(" check each payload's length and SHA-256, decode v1) vs the legacy path")
                .append(" (`legacyLatestCheckpoint`: `getLatestCheckpoint` + `LegacyCheckpointCodec.decodeCheckpoint`,")
                .append(" nothing verified). Both read files written once at set-up, so from the page cache.\n");
        md.append("\nSave and restore rows' MiB/s count the bytes of the row's format per second (v1 payloads or")
                .append(" v0 files). With one fork on a shared machine, read the error column before comparing.\n");
        return md.toString();
    }

    /** Rows by benchmark class, then small before large, then Keepsake before its baselines. */
    private static List<RunResult> sorted(Collection<RunResult> results) {
        return results.stream().sorted(Comparator
                .comparingInt((RunResult r) -> ROW_ORDER.indexOf(className(r.getParams())))
                .thenComparingInt(r -> BenchStates.LARGE.equals(sizeParam(r.getParams())) ? 1 : 0)
                .thenComparingInt(r -> ROW_ORDER.indexOf(methodName(r.getParams())))).toList();
    }

    private static String className(BenchmarkParams p) {
        String name = p.getBenchmark();
        return name.substring(0, name.lastIndexOf('.'));
    }

    private static String methodName(BenchmarkParams p) {
        String name = p.getBenchmark();
        return name.substring(name.lastIndexOf('.') + 1);
    }

    private static String sizeParam(BenchmarkParams p) {
        return p.getParamsKeys().contains("size") ? p.getParam("size") : "";
    }

    /** The data rate a row implies, from its score and the encoded size of what it moves. */
    private static String rate(Sizes sizes, BenchmarkParams params, Result<?> primary) {
        String method = methodName(params);
        boolean wire = method.contains("WireV1") || method.startsWith("keepsake");
        long bytes;
        if (className(params).equals(CodecBenchmark.class.getName())) {
            boolean large = BenchStates.LARGE.equals(params.getParam("size"));
            bytes = wire ? (large ? sizes.largeWire : sizes.smallWire) : (large ? sizes.largeLegacy : sizes.smallLegacy);
        } else {
            bytes = wire ? sizes.savepointWire : sizes.savepointLegacyFiles;
        }
        double opsPerSecond = switch (primary.getScoreUnit()) {
            case "ops/s" -> primary.getScore();
            case "ms/op" -> 1000.0 / primary.getScore();
            case "us/op" -> 1_000_000.0 / primary.getScore();
            default -> Double.NaN;
        };
        return Double.isNaN(opsPerSecond) ? "n/a" : number(opsPerSecond * bytes / MIB);
    }

    private static String number(double value) {
        return number(value, value);
    }

    /** Formats {@code value} with as many decimals as suit the magnitude of {@code reference}. */
    private static String number(double value, double reference) {
        double magnitude = Math.abs(reference);
        String pattern = magnitude >= 1000 ? "%,.0f" : magnitude >= 100 ? "%.1f" : magnitude >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, pattern, value);
    }

    private static String machine() {
        int cores = Runtime.getRuntime().availableProcessors();
        String cpu = cpuModel();
        long memory = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            memory = os.getTotalMemorySize();
        }
        return cores + " cores" + (cpu.isEmpty() ? "" : " (" + cpu + ")")
                + (memory > 0 ? ", " + Math.round(memory / MIB / 1024.0) + " GiB RAM" : "")
                + "; JVM " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vm.vendor") + ")"
                + "; OS " + System.getProperty("os.name") + " " + System.getProperty("os.version")
                + " " + System.getProperty("os.arch");
    }

    /** The CPU model from {@code /proc/cpuinfo}, or empty where it cannot be read. */
    static String cpuModel() {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(cpuinfo)) {
            return "";
        }
        try (Stream<String> lines = Files.lines(cpuinfo)) {
            return lines.filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("");
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    private static String loadAverage() {
        Path loadavg = Path.of("/proc/loadavg");
        try {
            String[] fields = Files.readString(loadavg).trim().split("\\s+");
            return fields.length >= 3 ? fields[0] + ", " + fields[1] + ", " + fields[2] : "n/a";
        } catch (IOException | RuntimeException e) {
            double one = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return one < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", one);
        }
    }

    private static String fileStoreType(Path directory) {
        try {
            return "file system " + Files.getFileStore(directory).type();
        } catch (IOException e) {
            return "file system unknown";
        }
    }

    private static String jmhVersion() {
        Package p = Runner.class.getPackage();
        String version = p == null ? null : p.getImplementationVersion();
        return version == null ? "1.37" : version;
    }

    /** Encoded sizes of the benchmark states, for the data rates and the notes. */
    private record Sizes(long smallWire, long smallLegacy, long largeWire, long largeLegacy, long savepointWire,
                         long savepointLegacyFiles) {

        static Sizes compute() {
            long wire = 0;
            long legacy = 0;
            CheckpointWireCodec codec = new CheckpointWireCodec();
            for (CompletedCheckpoint c : BenchStates.savepointPipelines()) {
                wire += codec.encode(c).length;
                legacy += LegacyCheckpointCodec.encodeFile(c).length;
            }
            return new Sizes(CodecBenchmark.encodedSize(BenchStates.SMALL, CodecBenchmark.WIRE_V1),
                    CodecBenchmark.encodedSize(BenchStates.SMALL, CodecBenchmark.LEGACY_V0),
                    CodecBenchmark.encodedSize(BenchStates.LARGE, CodecBenchmark.WIRE_V1),
                    CodecBenchmark.encodedSize(BenchStates.LARGE, CodecBenchmark.LEGACY_V0), wire, legacy);
        }
    }
}
