package io.keepsake.tool.internal;

import picocli.CommandLine;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the durations operators type: ISO-8601 ({@code PT1H}, {@code P7D}) or a whole number
 * with a unit ({@code 90s}, {@code 30m}, {@code 2h}, {@code 7d}, {@code 500ms}); a bare
 * {@code 0} is zero, the only number that needs no unit. Negative durations, and durations longer
 * than {@link #MAX} (which no clock can subtract in milliseconds without overflow, and no savepoint
 * can be older than), are refused, and so are fractions of a millisecond (the tool reports ages in
 * whole milliseconds). Used as a picocli converter, so a bad value is a usage error.
 */
public final class Durations implements CommandLine.ITypeConverter<Duration> {

    /** The longest accepted duration: 10,000 years. */
    public static final Duration MAX = Duration.ofDays(10_000L * 366);

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    /** Parses a duration for picocli; a bad value becomes a usage error that shows the accepted forms. */
    @Override
    public Duration convert(String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /**
     * Parses {@code value} as an ISO-8601 duration or a number with a unit.
     *
     * @throws IllegalArgumentException when it is neither, negative or longer than {@link #MAX}
     */
    public static Duration parse(String value) {
        String v = value == null ? "" : value.trim();
        Duration d;
        if (v.equals("0")) {
            return Duration.ZERO;
        }
        if (v.startsWith("P") || v.startsWith("p") || v.startsWith("-P") || v.startsWith("-p")) {
            try {
                d = Duration.parse(v.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException | ArithmeticException e) {
                throw invalid(value);
            }
        } else {
            Matcher m = SIMPLE.matcher(v.toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw invalid(value);
            }
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException("Cannot use duration: it is negative (" + value + ")");
        }
        if (d.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException("Cannot use duration: it is finer than a millisecond (" + value + ")");
        }
        if (d.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("Cannot use duration: it is longer than 10000 years (" + value + ")");
        }
        return d;
    }

    private static IllegalArgumentException invalid(String value) {
        return new IllegalArgumentException("Cannot parse duration: use ISO-8601 such as PT1H or P7D, or a number with"
                + " ms, s, m, h or d such as 30m (" + value + ")");
    }
}
