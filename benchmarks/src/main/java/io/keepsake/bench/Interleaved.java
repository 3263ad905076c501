package io.keepsake.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Times several contenders round by round, each once per round, in an order that rotates from
 * round to round, so that noise on a shared machine (another build, the disk's write-back) hits
 * every contender alike and each goes first as often as the others. Clean-up after each
 * operation is not timed. Warm-up rounds run the same way and are discarded.
 *
 * <p>Not thread-safe; contenders run on the calling thread.
 */
public final class Interleaved {

    /** One timed operation. */
    @FunctionalInterface
    public interface Op {
        /** Runs the operation once; its result must be consumed by the operation itself. */
        void run() throws Exception;
    }

    /**
     * A named operation and what to do, untimed, after each run of it.
     *
     * @param name    the contender's name, the key of its samples
     * @param op      the timed operation
     * @param cleanup runs after every timed run, untimed
     */
    public record Contender(String name, Op op, Op cleanup) {

        /** A contender with nothing to clean up. */
        public static Contender of(String name, Op op) {
            return new Contender(name, op, () -> { });
        }
    }

    private Interleaved() {
    }

    /**
     * Runs {@code warmup} discarded rounds and then {@code rounds} measured ones.
     *
     * @return per contender name, its nanoseconds per measured round, in round order
     * @throws Exception whatever an operation or clean-up throws
     */
    public static Map<String, double[]> run(int warmup, int rounds, List<Contender> contenders) throws Exception {
        Map<String, double[]> samples = new LinkedHashMap<>();
        for (Contender c : contenders) {
            samples.put(c.name(), new double[rounds]);
        }
        for (int round = 0; round < warmup + rounds; round++) {
            List<Contender> order = new ArrayList<>(contenders);
            java.util.Collections.rotate(order, -(round % contenders.size()));
            for (Contender c : order) {
                long start = System.nanoTime();
                c.op().run();
                long took = System.nanoTime() - start;
                c.cleanup().run();
                if (round >= warmup) {
                    samples.get(c.name())[round - warmup] = took;
                }
            }
        }
        return samples;
    }
}
