package io.keepsake.storage;

import java.util.List;

/**
 * What {@link SavepointStorage#collectGarbage} removed and what it left.
 *
 * @param deleted paths removed: stale staging entries, abandoned attempts' files, never-completed
 *                savepoint directories and temporary files
 * @param kept    paths left on purpose, with the reason: a race the collection resolved safely (it
 *                was published, renewed or settled meanwhile) or entries Keepsake did not write
 * @param failed  paths the collection meant to remove and could not, with the reason
 */
public record GcReport(List<String> deleted, List<String> kept, List<String> failed) {

    /** Validates the components (and copies collections). */
    public GcReport {
        deleted = List.copyOf(deleted);
        kept = List.copyOf(kept);
        failed = List.copyOf(failed);
    }

    /** A report in which nothing failed. */
    public GcReport(List<String> deleted, List<String> kept) {
        this(deleted, kept, List.of());
    }
}
