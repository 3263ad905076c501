/**
 * JMH benchmarks that compare Keepsake with what Apache SeaTunnel 2.3.x does today, and the
 * report command that runs them and writes a Markdown table.
 *
 * <p>Each benchmark class names its baseline in its documentation and in
 * {@link io.keepsake.bench.BenchmarkReport}. The data is generated deterministically by
 * {@link io.keepsake.bench.BenchStates}; files go to {@link io.keepsake.bench.BenchFiles#baseDirectory()}
 * and are removed by the benchmarks' tear-down methods.
 */
package io.keepsake.bench;
