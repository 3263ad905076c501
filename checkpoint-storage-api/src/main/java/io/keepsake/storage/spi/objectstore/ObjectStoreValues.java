package io.keepsake.storage.spi.objectstore;

import io.keepsake.storage.ChunkDigests;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How object-store backends read the values of their settings: sizes, durations, the
 * conditional-writes switch, and the block (part) size rounded to whole savepoint chunks. Each
 * parser throws {@link IllegalArgumentException} for text it does not take, so that a
 * {@link io.keepsake.storage.ConfigOption} refuses it naming the key. Stateless.
 */
public final class ObjectStoreValues {

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]?)b?", Pattern.CASE_INSENSITIVE);
    private static final Pattern TIME = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?", Pattern.CASE_INSENSITIVE);

    private ObjectStoreValues() {
    }

    /** A size in bytes: a number with an optional k, m or g (binary), and an optional b. */
    public static long size(String value) {
        Matcher m = SIZE.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException(value);
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> n << 10;
            case "m" -> n << 20;
            case "g" -> n << 30;
            default -> n;
        };
    }

    /** A duration: milliseconds, or a number with ms, s, m or h. */
    public static Duration duration(String value) {
        Matcher m = TIME.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException(value);
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2).toLowerCase(Locale.ROOT);
        return Duration.ofMillis(switch (unit) {
            case "s" -> n * 1000;
            case "m" -> n * 60_000;
            case "h" -> n * 3_600_000;
            default -> n;
        });
    }

    /** True for {@code required}, false for {@code unsupported}, ignoring case. */
    public static boolean conditionalWrites(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "required" -> true;
            case "unsupported" -> false;
            default -> throw new IllegalArgumentException(value);
        };
    }

    /**
     * A configured block size rounded up to a whole multiple of the savepoint chunk size (within an
     * int), so that every block of a payload holds whole chunks.
     */
    public static int chunkAligned(long configured) {
        long chunk = ChunkDigests.CHUNK_SIZE;
        long largest = (Integer.MAX_VALUE - 8) / chunk * chunk;
        return (int) Math.min(largest, (configured + chunk - 1) / chunk * chunk);
    }
}
