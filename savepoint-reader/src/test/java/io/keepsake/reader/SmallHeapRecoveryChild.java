package io.keepsake.reader;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.localfile.LocalFileSystem;

/**
 * The child JVM of {@link SmallHeapRecoveryTest}, run with a small {@code -Xmx}: {@code NAMESPACE JOB}
 * runs {@code recoverLatest} with fallback past corrupted savepoints on and prints
 * {@code recovered <checkpoint id of pipeline 1> <warning count>} (exit 0) or
 * {@code failed <exception class> <message>} (exit 2).
 */
public final class SmallHeapRecoveryChild {

    private SmallHeapRecoveryChild() {
    }

    /** Runs one recovery and prints its outcome. */
    public static void main(String[] args) {
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(), args[0], null)) {
            RestoredState restored = new SavepointRestorer(storage).withFallbackPastCorrupted(true).recoverLatest(args[1]);
            System.out.println("recovered " + restored.checkpoints().get(1).checkpointId() + " "
                    + restored.warnings().size());
        } catch (RuntimeException e) {
            System.out.println("failed " + e.getClass().getName() + " " + e.getMessage());
            System.exit(2);
        }
    }
}
