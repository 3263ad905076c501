package io.keepsake.bench;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.localfile.LocalFileSystem;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.file.Path;
import java.util.List;

/**
 * The trial of a JMH benchmark on the local disk: the four pipelines of
 * {@link BenchStates#savepointPipelines()}, a fresh trial directory and a storage in it, closed
 * and removed in the trial tear-down. One instance per benchmark thread.
 */
@State(Scope.Thread)
public abstract class LocalDiskTrial {

    private List<CompletedCheckpoint> checkpoints;
    private Path trialDirectory;
    private KeepsakeStorage storage;

    /** Generates the pipelines and opens a storage in a fresh trial directory named after {@code name}. */
    protected final void openTrial(String name) {
        checkpoints = BenchStates.savepointPipelines();
        trialDirectory = BenchFiles.newTrialDirectory(name);
        storage = KeepsakeStorage.open(new LocalFileSystem(), trialDirectory.resolve("checkpoints").toString(),
                trialDirectory.resolve("savepoints").toString());
    }

    /** Closes the storage and removes the trial directory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (storage != null) {
            storage.close();
        }
        BenchFiles.deleteRecursively(trialDirectory);
    }

    /** The pipelines' checkpoints. */
    List<CompletedCheckpoint> checkpoints() {
        return checkpoints;
    }

    /** The trial's storage. */
    KeepsakeStorage storage() {
        return storage;
    }

    /** This trial's directory. */
    Path trialDirectory() {
        return trialDirectory;
    }
}
