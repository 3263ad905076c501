package io.keepsake.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * How much {@link BenchmarkReport} measures: sizes, rounds and which sections run.
 *
 * @param mode             {@code full}, {@code quick} or {@code tiny} (the unit test's)
 * @param dataDirectory    where the disk sections write (below it, one fresh directory per section)
 * @param diskSizes        the state sizes of the restore and the save sections, in bytes (one pipeline each)
 * @param diskWarmup       discarded rounds per size
 * @param diskRounds       measured rounds per size, in the order of {@code diskSizes}
 * @param smallPipelineBytes the state of each of the 4 pipelines of the small-savepoint section
 * @param smallRounds      measured rounds of the small-savepoint section
 * @param codecBytes       the state size of the codec section
 * @param codecRounds      measured rounds of the codec section (each times {@code codecBatch} encode+decode)
 * @param codecBatch       encode+decode pairs per timed sample
 * @param lookupFew        savepoints of the small job of the lookup section
 * @param lookupMany       savepoints of the large job of the lookup section
 * @param lookupRounds     measured rounds of the lookup section
 * @param heapStateBytes   the savepoint size of the heap section
 * @param heap             whether the heap section (forked JVMs) runs
 * @param hdfs             whether the HDFS section (a mini cluster) runs
 * @param hdfsPipelines    the pipeline counts the HDFS section saves, one payload file each
 * @param hdfsRepeats      measured savepoints per pipeline count
 */
public record ReportOptions(String mode, Path dataDirectory, List<Long> diskSizes, int diskWarmup,
                            List<Integer> diskRounds, int smallPipelineBytes, int smallRounds, int codecBytes,
                            int codecRounds, int codecBatch, int lookupFew, int lookupMany, int lookupRounds,
                            long heapStateBytes, boolean heap, boolean hdfs, List<Integer> hdfsPipelines,
                            int hdfsRepeats) {

    /** One mebibyte. */
    public static final long MIB = 1024L * 1024L;

    /** Copies the lists. */
    public ReportOptions {
        diskSizes = List.copyOf(diskSizes);
        diskRounds = List.copyOf(diskRounds);
        hdfsPipelines = List.copyOf(hdfsPipelines);
    }

    /** The full report: 1 MiB and 256 MiB, 10 vs 10,000 savepoints, a 256 MiB heap check; about 10 minutes. */
    public static ReportOptions full(Path dataDirectory) {
        return new ReportOptions("full", dataDirectory, List.of(MIB, 256 * MIB), 2, List.of(31, 7), (int) MIB, 41,
                (int) MIB, 15, 20, 10, 10_000, 15, 256 * MIB, true, true, List.of(1, 2, 4, 8), 3);
    }

    /** A smoke test of every section on small sizes, about a minute: the figures are not the goals'. */
    public static ReportOptions quick(Path dataDirectory) {
        return new ReportOptions("quick", dataDirectory, List.of(MIB, 8 * MIB), 1, List.of(5, 3), (int) MIB, 5,
                (int) MIB, 5, 5, 10, 200, 5, 16 * MIB, true, true, List.of(1, 2, 4), 1);
    }

    /** The unit test's plumbing run: tiny sizes, no mini cluster. */
    public static ReportOptions tiny(Path dataDirectory) {
        return new ReportOptions("tiny", dataDirectory, List.of(64 * 1024L, 256 * 1024L), 0, List.of(2, 2), 64 * 1024,
                2, 64 * 1024, 2, 2, 3, 12, 2, 4 * MIB, true, false, List.of(1, 2), 1);
    }

    /** A copy with the heap section's savepoint size set. */
    public ReportOptions withHeapStateBytes(long bytes) {
        return new ReportOptions(mode, dataDirectory, diskSizes, diskWarmup, diskRounds, smallPipelineBytes,
                smallRounds, codecBytes, codecRounds, codecBatch, lookupFew, lookupMany, lookupRounds, bytes, heap,
                hdfs, hdfsPipelines, hdfsRepeats);
    }

    /** A copy with the HDFS section on or off. */
    public ReportOptions withHdfs(boolean on) {
        return new ReportOptions(mode, dataDirectory, diskSizes, diskWarmup, diskRounds, smallPipelineBytes,
                smallRounds, codecBytes, codecRounds, codecBatch, lookupFew, lookupMany, lookupRounds, heapStateBytes,
                heap, on, hdfsPipelines, hdfsRepeats);
    }

    /** A copy with the heap section on or off. */
    public ReportOptions withHeap(boolean on) {
        return new ReportOptions(mode, dataDirectory, diskSizes, diskWarmup, diskRounds, smallPipelineBytes,
                smallRounds, codecBytes, codecRounds, codecBatch, lookupFew, lookupMany, lookupRounds, heapStateBytes,
                on, hdfs, hdfsPipelines, hdfsRepeats);
    }

    /** A size as the report prints it: {@code 256 MiB}, {@code 64 KiB} or bytes. */
    public static String size(long bytes) {
        if (bytes >= MIB && bytes % MIB == 0) {
            return bytes / MIB + " MiB";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return bytes / 1024 + " KiB";
        }
        return bytes + " B";
    }
}
