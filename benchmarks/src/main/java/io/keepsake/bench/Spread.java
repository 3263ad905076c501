package io.keepsake.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * The median, the inter-quartile range and the extremes of one figure measured over the
 * interleaved rounds of a single run. Quartiles interpolate linearly between the sorted samples.
 *
 * @param median the middle sample
 * @param q1     the 25th percentile
 * @param q3     the 75th percentile
 * @param min    the smallest sample
 * @param max    the largest sample
 * @param n      how many samples
 */
public record Spread(double median, double q1, double q3, double min, double max, int n) {

    /**
     * Summarises the samples.
     *
     * @throws IllegalArgumentException when there are none
     */
    public static Spread of(double[] samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("Cannot summarise samples: there are none");
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        return new Spread(quantile(sorted, 0.5), quantile(sorted, 0.25), quantile(sorted, 0.75), sorted[0],
                sorted[sorted.length - 1], sorted.length);
    }

    /** Returns {@code a[i] / b[i]} for each round. */
    public static double[] ratios(double[] a, double[] b) {
        double[] r = new double[Math.min(a.length, b.length)];
        for (int i = 0; i < r.length; i++) {
            r[i] = a[i] / b[i];
        }
        return r;
    }

    private static double quantile(double[] sorted, double q) {
        double position = q * (sorted.length - 1);
        int low = (int) Math.floor(position);
        int high = (int) Math.ceil(position);
        return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
    }

    /** The median as a ratio, such as {@code 0.93x}. */
    public String medianRatio() {
        return ratio(median) + "x";
    }

    /** The spread of a ratio, such as {@code IQR 0.90-0.97, min-max 0.85-1.02, 9 rounds}. */
    public String ratioSpread() {
        return "IQR " + ratio(q1) + "-" + ratio(q3) + ", min-max " + ratio(min) + "-" + ratio(max) + ", " + n
                + (n == 1 ? " round" : " rounds");
    }

    /** The median in milliseconds, from nanosecond samples. */
    public String medianMillis() {
        return millis(median) + " ms";
    }

    /** The spread of nanosecond samples, in milliseconds. */
    public String millisSpread() {
        return "IQR " + millis(q1) + "-" + millis(q3) + " ms, min-max " + millis(min) + "-" + millis(max) + " ms, "
                + n + (n == 1 ? " round" : " rounds");
    }

    /**
     * The median times of the named contenders' nanosecond samples, in that order, such as
     * {@code 1.35 ms / 0.744 ms}.
     */
    public static String medianTimes(java.util.Map<String, double[]> samples, String... names) {
        java.util.List<String> parts = new java.util.ArrayList<>();
        for (String name : names) {
            parts.add(of(samples.get(name)).medianMillis());
        }
        return String.join(" / ", parts);
    }

    /** Formats a ratio with two decimals (three below 0.1). */
    public static String ratio(double value) {
        return String.format(Locale.ROOT, Math.abs(value) < 0.1 ? "%.3f" : "%.2f", value);
    }

    /** Formats nanoseconds as milliseconds with a precision that suits the magnitude. */
    public static String millis(double nanos) {
        double ms = nanos / 1e6;
        return String.format(Locale.ROOT, ms >= 100 ? "%.0f" : ms >= 10 ? "%.1f" : ms >= 1 ? "%.2f" : "%.3f", ms);
    }
}
