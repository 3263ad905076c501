package io.keepsake.tool.internal;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A one-line progress report for long work (verify, migrate) on stderr: bytes done of the total,
 * rate and estimated time left, redrawn in place with a carriage return at most every
 * {@link #INTERVAL_NANOS}. Small or quick work prints nothing: no line is drawn before
 * {@link #QUIET_NANOS} have passed, nor ever for a known total below {@link #QUIET_BYTES}. The
 * estimated time left is shown only once {@link #ETA_AFTER_NANOS} have passed and
 * {@link #ETA_AFTER_PERCENT} percent of the total is done; before that a rate says too little. A disabled report prints nothing at all, which is what the tool uses
 * when stderr is not a terminal or {@code --json} is given. Not thread-safe: one thread advances it.
 */
public final class Progress implements AutoCloseable {

    /** The shortest time between two redraws: a quarter of a second. */
    public static final long INTERVAL_NANOS = 250_000_000L;

    /** Work that ends within this time from the start (one second) prints nothing. */
    public static final long QUIET_NANOS = 1_000_000_000L;

    /** A known total below this (1 MiB) prints nothing, however long the work takes. */
    public static final long QUIET_BYTES = 1L << 20;

    /** The estimated time left is shown only after this long (two seconds)... */
    public static final long ETA_AFTER_NANOS = 2_000_000_000L;

    /** ...and once this share of the total (5%) is done. */
    public static final int ETA_AFTER_PERCENT = 5;

    private final PrintWriter err;
    private final boolean enabled;
    private final String label;
    private final long total;
    private final LongSupplier nanoClock;
    private final long start;
    private long done;
    private long lastDraw;
    private boolean drawn;
    private boolean closed;
    private int width;

    /**
     * A report on {@code err} for {@code totalBytes} (0 or less when unknown), timed by {@code nanoClock}.
     *
     * @param enabled false for a report that prints nothing
     */
    public Progress(PrintWriter err, boolean enabled, String label, long totalBytes, LongSupplier nanoClock) {
        this.err = err;
        this.enabled = enabled;
        this.label = label;
        this.total = totalBytes;
        this.nanoClock = nanoClock;
        this.start = nanoClock.getAsLong();
        this.lastDraw = start;
    }

    /** A report timed by {@link System#nanoTime()}. */
    public static Progress start(PrintWriter err, boolean enabled, String label, long totalBytes) {
        return new Progress(err, enabled, label, totalBytes, System::nanoTime);
    }

    /** A report that prints nothing. */
    public static Progress none() {
        return new Progress(null, false, "", 0, () -> 0L);
    }

    /** True when this report prints. */
    public boolean enabled() {
        return enabled;
    }

    /** The bytes counted so far. */
    public long done() {
        return done;
    }

    /** Counts {@code bytes} more and redraws when the last redraw is old enough. */
    public void advance(long bytes) {
        done += bytes;
        if (!enabled) {
            return;
        }
        if (smallTotal()) {
            return;
        }
        long now = nanoClock.getAsLong();
        if (now - start >= QUIET_NANOS && now - lastDraw >= INTERVAL_NANOS) {
            draw(now);
        }
    }

    /**
     * Draws the final figures and ends the line, when anything was counted and the work was neither
     * small nor quick (see the class comment); a second call does nothing.
     */
    @Override
    public void close() {
        if (!enabled || closed) {
            return;
        }
        closed = true;
        if (done == 0 && !drawn) {
            return;
        }
        long now = nanoClock.getAsLong();
        if (!drawn && (smallTotal() || now - start < QUIET_NANOS)) {
            return;
        }
        draw(now);
        err.println();
        err.flush();
    }

    private boolean smallTotal() {
        return total > 0 && total < QUIET_BYTES;
    }

    private void draw(long now) {
        lastDraw = now;
        String line = format(label, done, total, now - start);
        int pad = Math.max(0, width - line.length());
        width = line.length();
        err.print("\r" + line + " ".repeat(pad));
        err.flush();
        drawn = true;
    }

    /** True once a line was drawn. */
    boolean drawn() {
        return drawn;
    }

    /**
     * The progress line, such as {@code verify: 120.0 MiB of 300.0 MiB (40%), 25.3 MiB/s, ETA 7s};
     * without a known total it has bytes and rate only, before any time has passed no rate, and
     * before {@link #ETA_AFTER_NANOS} and {@link #ETA_AFTER_PERCENT} percent of the total no ETA.
     */
    public static String format(String label, long done, long total, long elapsedNanos) {
        StringBuilder b = new StringBuilder(label).append(": ").append(bytes(done));
        if (total > 0) {
            long percent = Math.min(100, done * 100 / total);
            b.append(" of ").append(bytes(total)).append(" (").append(percent).append("%)");
        }
        if (elapsedNanos > 0 && done > 0) {
            double perSecond = done * 1e9 / elapsedNanos;
            b.append(", ").append(bytes((long) perSecond)).append("/s");
            if (total > 0 && elapsedNanos >= ETA_AFTER_NANOS && done * 100 >= total * ETA_AFTER_PERCENT) {
                long left = Math.max(0, total - done);
                b.append(", ETA ").append(duration((long) Math.ceil(left / perSecond)));
            }
        }
        return b.toString();
    }

    /** A byte count for people: {@code 512 B}, {@code 1.5 KiB}, {@code 300.0 MiB}, {@code 2.0 GiB}. */
    public static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = n;
        int i = -1;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[i]);
    }

    /** Whole seconds for people: {@code 7s}, {@code 1m05s}, {@code 2h03m}. */
    public static String duration(long seconds) {
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, (seconds % 3600) / 60);
    }
}
