package io.keepsake.tool;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one JSON record of something {@code delete} or {@code gc} removed, kept or failed to remove
 * (schema {@code removal} in docs/keepsake-output.schema.json): {@code job}, {@code savepointId},
 * {@code path} and {@code reason}, each present and null when it does not apply or is not known.
 */
final class Removal {

    private Removal() {
    }

    /** A record of {@code path}; job, savepoint and reason may be null. */
    static Map<String, Object> record(String job, String savepointId, String path, String reason) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("job", job);
        r.put("savepointId", savepointId);
        r.put("path", path);
        r.put("reason", reason);
        return r;
    }

    /**
     * A record of one line of a garbage collection report, {@code "<path>: <reason>"}; the path ends
     * at the first {@code ": "} (Keepsake's names hold none), and a line without one is all path.
     */
    static Map<String, Object> parse(String line) {
        int colon = line.indexOf(": ");
        return colon < 0 ? record(null, null, line, null)
                : record(null, null, line.substring(0, colon), line.substring(colon + 2));
    }
}
