package io.keepsake.storage.internal;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The id of one attempt at a savepoint: the savepoint id and 16 lowercase hex digits drawn per
 * attempt, written {@code <savepointId>.<16 hex>} (format spec, sections 3.2, 3.4 and 3.6). The
 * protocol passes this value; the names of the attempt's files are made here and read back here,
 * and nowhere else:
 *
 * <pre>
 * .staging/&lt;attemptId&gt;/                       its work folder (publication by directory rename)
 * .staging/&lt;attemptId&gt;.lease                  its lease
 * .staging/&lt;attemptId&gt;.outcome[.tmp-&lt;hex&gt;]    its decision (publication by create-if-absent)
 * &lt;savepointId&gt;/pipeline-&lt;pid&gt;.&lt;attemptId&gt;.wire  its payloads
 * </pre>
 *
 * Immutable.
 *
 * @param savepointId the savepoint the attempt is for
 * @param nonce       the 16 lowercase hex digits that tell attempts at one savepoint id apart
 */
record AttemptId(String savepointId, String nonce) implements Comparable<AttemptId> {

    /** The suffix of an attempt's lease file in the staging folder. */
    static final String LEASE_SUFFIX = ".lease";

    /** The suffix of an attempt's outcome file in the staging folder. */
    static final String OUTCOME_SUFFIX = ".outcome";

    /** What a temporary outcome file carries after the outcome name, before its 16 hex digits. */
    static final String TEMP_MARK = StagedFiles.TEMP_MARK;

    private static final String PAYLOAD_PREFIX = "pipeline-";
    private static final String PAYLOAD_SUFFIX = ".wire";
    private static final int NONCE_LENGTH = 16;

    /** The text of an attempt id; {@code .} does not match a line terminator, nor may the savepoint id hold one. */
    private static final Pattern TEXT = Pattern.compile("(.+)\\.([0-9a-f]{16})");

    AttemptId {
        if (savepointId == null || savepointId.isEmpty() || nonce == null || nonce.length() != NONCE_LENGTH
                || !isHex(nonce, 0, NONCE_LENGTH)) {
            throw new IllegalArgumentException("Cannot make attempt id: it takes a savepoint id and 16 lowercase hex"
                    + " digits (" + savepointId + ", " + nonce + ")");
        }
    }

    /** A new attempt at {@code savepointId}, its digits drawn by {@link RandomNames#hex()}. */
    static AttemptId next(String savepointId) {
        return new AttemptId(savepointId, RandomNames.hex());
    }

    /** Reads {@code <savepointId>.<16 hex>}; empty for any other text. */
    static Optional<AttemptId> parse(String text) {
        Matcher m = TEXT.matcher(text);
        return m.matches() ? Optional.of(new AttemptId(m.group(1), m.group(2))) : Optional.empty();
    }

    /** {@code <savepointId>.<16 hex>}: the name of the attempt's work folder, and the id in its other names. */
    @Override
    public String toString() {
        return savepointId + "." + nonce;
    }

    /** Orders attempts by their text. */
    @Override
    public int compareTo(AttemptId other) {
        return toString().compareTo(other.toString());
    }

    /** The name of the attempt's lease file in the staging folder. */
    String leaseName() {
        return this + LEASE_SUFFIX;
    }

    /** The attempt whose lease file has this name; empty for other names. */
    static Optional<AttemptId> ofLeaseName(String name) {
        return withoutSuffix(name, LEASE_SUFFIX).flatMap(AttemptId::parse);
    }

    /** The name of the attempt's outcome file in the staging folder. */
    String outcomeName() {
        return this + OUTCOME_SUFFIX;
    }

    /** The attempt whose outcome file, or temporary outcome file, has this name; empty for other names. */
    static Optional<AttemptId> ofOutcomeName(String name) {
        int temp = name.lastIndexOf(OUTCOME_SUFFIX + TEMP_MARK);
        int digits = temp + OUTCOME_SUFFIX.length() + TEMP_MARK.length();
        if (temp > 0 && name.length() == digits + NONCE_LENGTH && isHex(name, digits, name.length())) {
            return parse(name.substring(0, temp));
        }
        return withoutSuffix(name, OUTCOME_SUFFIX).flatMap(AttemptId::parse);
    }

    /** True for a temporary outcome file's name. */
    static boolean isTemporaryOutcomeName(String name) {
        return name.contains(OUTCOME_SUFFIX + TEMP_MARK);
    }

    /** The name of the attempt's payload of pipeline {@code pipelineId}: {@code pipeline-<pid>.<attemptId>.wire}. */
    String payloadName(int pipelineId) {
        return payloadName(pipelineId, toString());
    }

    /** A payload name with any text in the attempt's place (for templates and names made by hand). */
    static String payloadName(int pipelineId, String attempt) {
        return PAYLOAD_PREFIX + pipelineId + "." + attempt + PAYLOAD_SUFFIX;
    }

    /**
     * The attempt that wrote {@code name} into the savepoint folder {@code folder}, when the name is
     * {@code pipeline-<pid>.<folder>.<16 hex>.wire}; empty for any other name, an attempt at
     * another savepoint id included. Scanned by hand: every name of a listed folder goes through it.
     */
    static Optional<AttemptId> ofPayloadName(String folder, String name) {
        if (!name.startsWith(PAYLOAD_PREFIX) || !name.endsWith(PAYLOAD_SUFFIX)) {
            return Optional.empty();
        }
        int i = PAYLOAD_PREFIX.length();
        if (i < name.length() && name.charAt(i) == '-') {
            i++;
        }
        int digits = i;
        while (i < name.length() && name.charAt(i) >= '0' && name.charAt(i) <= '9') {
            i++;
        }
        int attemptStart = i + 1;
        int nonceStart = attemptStart + folder.length() + 1;
        int attemptEnd = name.length() - PAYLOAD_SUFFIX.length();
        if (i == digits || i >= name.length() || name.charAt(i) != '.' || attemptEnd - nonceStart != NONCE_LENGTH
                || !name.startsWith(folder, attemptStart) || name.charAt(nonceStart - 1) != '.'
                || !isHex(name, nonceStart, attemptEnd) || folder.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new AttemptId(folder, name.substring(nonceStart, attemptEnd)));
    }

    private static Optional<String> withoutSuffix(String name, String suffix) {
        return name.endsWith(suffix) ? Optional.of(name.substring(0, name.length() - suffix.length())) : Optional.empty();
    }

    private static boolean isHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }
}
