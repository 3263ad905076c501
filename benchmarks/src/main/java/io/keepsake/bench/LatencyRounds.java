package io.keepsake.bench;

import io.keepsake.bench.ObjectStoreSection.Cell;
import io.keepsake.bench.ObjectStoreSection.Measure;

import java.time.Duration;
import java.util.Map;

import static io.keepsake.bench.ObjectStoreSection.LATENCY;

/**
 * The interleaved rounds of the object-store rows on one store behind a {@link LatencyProxy}:
 * every round runs at both latencies (0 ms and {@link ObjectStoreSection#LATENCY}, the one first
 * that went second the round before), and every row times its two sides one after the other
 * (Keepsake first in even rounds), each call with an empty proxy log, waiting for what it left
 * running in the background.
 *
 * <p>Not thread-safe: the rounds run on the calling thread.
 */
final class LatencyRounds {

    private static final Duration QUIET = Duration.ofMillis(150);

    private final LatencyProxy proxy;
    private final String name;
    private final long started = System.nanoTime();

    /**
     * Rounds through {@code proxy}.
     *
     * @param proxy the proxy both sides use as their endpoint
     * @param name  the store, as the progress lines and errors name it
     */
    LatencyRounds(LatencyProxy proxy, String name) {
        this.proxy = proxy;
        this.name = name;
    }

    /** One timed call; returns its nanoseconds. */
    @FunctionalInterface
    interface Timed {
        long run() throws Exception;
    }

    /** One call whose time its caller takes. */
    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /** The rows of one round at one latency. */
    @FunctionalInterface
    interface Round {
        /**
         * Measures every row once.
         *
         * @param cells         the rows' cells at this latency
         * @param index         the measured round, negative in a warm-up round
         * @param keepsakeFirst whether Keepsake's side goes first in this round
         */
        void run(Map<String, Cell> cells, int index, boolean keepsakeFirst) throws Exception;
    }

    /** Times {@code call} from its start to its return. */
    static Timed nanos(Call call) {
        return () -> {
            long start = System.nanoTime();
            call.run();
            return System.nanoTime() - start;
        };
    }

    /** Runs {@code warmup} discarded and {@code rounds} measured rounds, each at both latencies. */
    void run(int warmup, int rounds, Map<String, Cell> zero, Map<String, Cell> twenty, Round round)
            throws Exception {
        for (int r = 0; r < warmup + rounds; r++) {
            boolean keepsakeFirst = r % 2 == 0;
            for (int l = 0; l < 2; l++) {
                boolean delayed = (l == 1) == keepsakeFirst; // the latencies alternate too
                proxy.timeToFirstByte(delayed ? LATENCY : Duration.ZERO);
                round.run(delayed ? twenty : zero, r - warmup, keepsakeFirst);
                progress("round " + (r + 1) + " of " + (warmup + rounds) + ", " + (delayed ? "20" : "0")
                        + " ms done");
            }
        }
    }

    /** Times both sides of a row, in the round's order, and keeps their times and last logs in a measured round. */
    void both(Cell cell, int index, boolean keepsakeFirst, Timed keepsake, Timed other) throws Exception {
        Measure km = keepsakeFirst ? timed(keepsake) : null;
        Measure om = timed(other);
        km = keepsakeFirst ? km : timed(keepsake);
        if (index >= 0) {
            cell.keepsake[index] = km.nanos();
            cell.seatunnel[index] = om.nanos();
            cell.keepsakeLast = km;
            cell.seatunnelLast = om;
        }
    }

    /** Runs one call with an empty log, waits for what it left running, and reads the log. */
    Measure timed(Timed call) throws Exception {
        awaitQuiet();
        proxy.clearLog();
        long nanos = call.run();
        long returnedAt = System.nanoTime();
        if (!proxy.awaitQuiet(QUIET, Duration.ofMinutes(2))) {
            throw new IllegalStateException("Cannot measure on " + name + ": requests still in flight 2 minutes after"
                    + " the call");
        }
        return Measure.of(nanos, proxy.requests(), returnedAt);
    }

    /** Runs {@code cleanUp} untimed at 0 ms, waits until it is done, and restores the latency. */
    void untimed(Call cleanUp) throws Exception {
        Duration latency = proxy.timeToFirstByte();
        proxy.timeToFirstByte(Duration.ZERO);
        cleanUp.run();
        awaitQuiet();
        proxy.timeToFirstByte(latency);
    }

    /** Waits until no request has been in flight for a while (at most a minute). */
    void awaitQuiet() {
        proxy.awaitQuiet(QUIET, Duration.ofMinutes(1));
    }

    /** Prints how far the run is, on the error stream. */
    void progress(String what) {
        System.err.println("[objectstore " + name + "] " + (System.nanoTime() - started) / 1_000_000 + " ms: " + what);
    }
}
