/**
 * The goals report (Keepsake beside the released SeaTunnel path and the raw disk) and the JMH benchmarks.
 *
 * <p>{@link io.keepsake.bench.BenchmarkReport} runs its {@link io.keepsake.bench.ReportSection}s
 * (Keepsake beside the released SeaTunnel 2.3.8 path, {@link io.keepsake.bench.SeaTunnelPath},
 * and the raw disk, interleaved round by round by {@link io.keepsake.bench.Interleaved}) and
 * prints one {@link io.keepsake.bench.GoalRow} per goal. {@link io.keepsake.bench.JmhReport} runs
 * the JMH benchmarks ({@code CodecBenchmark}, {@code SaveBenchmark}, {@code RestoreBenchmark}),
 * which compare Keepsake with its own imitations of the legacy layout. The data is generated
 * deterministically by {@link io.keepsake.bench.BenchStates}; files go to
 * {@link io.keepsake.bench.BenchFiles#baseDirectory()} and are removed afterwards.
 */
package io.keepsake.bench;
