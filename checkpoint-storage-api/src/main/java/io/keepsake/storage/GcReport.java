package io.keepsake.storage;

import java.util.List;

/**
 * What {@link SavepointStorage#collectGarbage} removed and what it left.
 *
 * @param deleted paths removed: stale staging attempts and never-completed savepoint directories
 * @param kept    stale candidates that could not be removed, with the reason
 */
public record GcReport(List<String> deleted, List<String> kept) {

    /** Validates the components (and copies collections). */
    public GcReport {
        deleted = List.copyOf(deleted);
        kept = List.copyOf(kept);
    }
}
