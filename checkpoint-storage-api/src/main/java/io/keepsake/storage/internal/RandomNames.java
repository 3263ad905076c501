package io.keepsake.storage.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The random 16-hex-digit parts of the names the protocol makes (attempt ids, temporary outcome
 * files, directories set aside). Contract: {@link #hex()} is random unless the test-only system
 * property {@link #DETERMINISTIC_PROPERTY} is {@code true}; then each thread draws a fixed sequence
 * derived from its name, so that a schedule explorer that runs each actor on a fresh, named thread
 * sees the same names, in the same order, every time it replays a schedule.
 */
public final class RandomNames {

    /** The test-only switch to names derived from the thread's name and a per-thread count. */
    public static final String DETERMINISTIC_PROPERTY = "keepsake.test.deterministic-names";

    private static final ThreadLocal<long[]> DRAWN = ThreadLocal.withInitial(() -> new long[1]);

    private RandomNames() {
    }

    /** Sixteen lowercase hex digits, random (or, under the test switch, fixed per thread and draw). */
    public static String hex() {
        if (Boolean.getBoolean(DETERMINISTIC_PROPERTY)) {
            long z = Thread.currentThread().getName().hashCode() * 0x9E3779B97F4A7C15L + DRAWN.get()[0]++;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return String.format("%016x", z ^ (z >>> 31));
        }
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }
}
