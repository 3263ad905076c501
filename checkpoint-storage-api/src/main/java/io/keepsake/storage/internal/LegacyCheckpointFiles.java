package io.keepsake.storage.internal;

import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names of legacy checkpoint files, as SeaTunnel 2.3.x writes them:
 * {@code <millis>-<random 0..999>-<pipelineId>-<checkpointId>.ser}.
 */
public final class LegacyCheckpointFiles {

    private static final Pattern NAME = Pattern.compile("(\\d+)-(\\d+)-(-?\\d+)-(-?\\d+)\\.ser");

    /** A parsed file name. */
    public record Name(String fileName, long timestamp, int pipelineId, long checkpointId) {
    }

    private LegacyCheckpointFiles() {
    }

    /** A fresh name for a checkpoint file. */
    public static String newFileName(int pipelineId, long checkpointId) {
        return System.currentTimeMillis() + "-" + ThreadLocalRandom.current().nextInt(1000) + "-" + pipelineId + "-"
                + checkpointId + ".ser";
    }

    /** The hidden name a checkpoint file is written under before it is renamed into place. */
    public static String tempName(String fileName) {
        return "." + fileName + ".tmp";
    }

    /** True for a hidden temporary name {@link #tempName} makes. */
    public static boolean isTempName(String name) {
        return name.startsWith(".") && name.endsWith(".tmp")
                && parse(name.substring(1, name.length() - ".tmp".length())).isPresent();
    }

    /** Parses a checkpoint file name; empty for any other file (temporary files start with a dot). */
    public static Optional<Name> parse(String fileName) {
        Matcher m = NAME.matcher(fileName);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Name(fileName, Long.parseLong(m.group(1)), Integer.parseInt(m.group(3)),
                    Long.parseLong(m.group(4))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
