package io.keepsake.storage;

import java.util.List;

/**
 * What {@link KeepsakeStorage#deleteSavepointReporting} or
 * {@link KeepsakeStorage#deleteSavepointsReporting} removed and what it left, each path once.
 *
 * @param deleted paths removed: metadata, payloads, index markers, staging entries and emptied folders
 * @param kept    paths left on purpose, as {@code "<path>: <reason>"}: entries Keepsake did not write,
 *                an attempt writing into the folder, a folder still holding what was kept, a race
 *                the delete resolved safely
 * @param failed  paths the delete meant to remove and could not, as {@code "<path>: <reason>"}
 */
public record DeletionReport(List<String> deleted, List<String> kept, List<String> failed) {

    /** Validates the components (and copies collections). */
    public DeletionReport {
        deleted = List.copyOf(deleted);
        kept = List.copyOf(kept);
        failed = List.copyOf(failed);
    }
}
