package io.keepsake.reader;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.localfile.LocalFileSystem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The golden savepoint bundle of format version 2, committed under
 * {@code src-test-fixtures/src/main/resources/io/keepsake/fixtures/savepoint-v2/} and restored by
 * {@link GoldenV2BundleTest} forever; that test also writes the same input again and requires the
 * same bytes. {@link #main} wrote it once with the default writer of its build ({@link #CHUNK_SIZE}); run it
 * only to add a bundle for a NEW format version (with a new directory), never to regenerate this
 * one. The expected content below is frozen: do not change it.
 *
 * <p>Pipelines 1 and 2 hold the small checkpoints of {@link TestCheckpoints} (one chunk each);
 * pipeline 3 adds an action with 2.5 MiB of state, so its payload has three chunks (a first, a
 * middle and a last, shorter one). That state is a repeating pattern, so git and the fixtures jar
 * store it compressed.
 */
public final class GoldenV2Bundle {

    static final String RESOURCE_DIR = "io/keepsake/fixtures/savepoint-v2/";
    static final String JOB = "700000000000000902";
    static final String SAVEPOINT = "sp-golden-v2";
    static final List<Integer> PIPELINES = List.of(1, 2, 3);
    static final long CHECKPOINT_ID = 12;
    /**
     * The chunk size the bundle was written with, which its manifest records: 1 MiB, the default
     * of the build that wrote it. Writing it again takes this size, whatever the default is now.
     */
    static final int CHUNK_SIZE = 1 << 20;
    /** When the bundle was triggered and committed, as its metadata records (fixed, so the bytes can be written again). */
    static final long TRIGGERED = 1_796_100_000_000L;
    static final long COMPLETED = 1_796_100_001_234L;
    static final int LARGE_STATE_BYTES = 5 << 19;

    private GoldenV2Bundle() {
    }

    static Map<Integer, CompletedCheckpoint> expected() {
        Map<Integer, CompletedCheckpoint> m = new TreeMap<>();
        for (int p : PIPELINES) {
            CompletedCheckpoint cp = TestCheckpoints.savepointOf(Long.parseLong(JOB), p, CHECKPOINT_ID);
            m.put(p, p == 3 ? withLargeState(cp) : cp);
        }
        return m;
    }

    private static CompletedCheckpoint withLargeState(CompletedCheckpoint cp) {
        byte[] state = new byte[LARGE_STATE_BYTES];
        for (int i = 0; i < state.length; i++) {
            state[i] = (byte) (i % 251);
        }
        ActionStateKey key = ActionStateKey.of("pipeline-3-large-state");
        Map<ActionStateKey, ActionState> states = new LinkedHashMap<>(cp.taskStates());
        states.put(key, new ActionState(key, List.of(new ActionSubtaskState(key, 0, List.of(state))), null, 1));
        return new CompletedCheckpoint(cp.jobId(), cp.pipelineId(), cp.checkpointId(), cp.triggerTimestamp(),
                cp.checkpointType(), cp.completedTimestamp(), states, cp.taskStatistics());
    }

    /**
     * Writes the bundle under {@code args[0]} (the fixtures' resource root): into a temporary
     * savepoint root first, from which only the bundle's own files are copied, then its index.
     */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]).toAbsolutePath().resolve(RESOURCE_DIR);
        if (Files.exists(root)) {
            throw new IllegalStateException("Refusing to regenerate a golden fixture: " + root);
        }
        Path work = Files.createTempDirectory("golden");
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(),
                StorageOptions.of(work.resolve("ns").toString(), work.resolve("savepoints").toString(), 0))) {
            SavepointHandle h = GoldenBundles.write(storage, JOB, SAVEPOINT, expected(), TRIGGERED, COMPLETED,
                    Map.of("pipelines", PIPELINES.toString()));
            if (h.meta().formatVersion() != 2) {
                throw new IllegalStateException("This build did not write format version 2: " + h.meta());
            }
            Path bundle = root.resolve(JOB).resolve(SAVEPOINT);
            Files.createDirectories(bundle);
            for (String file : GoldenBundles.files(Path.of(h.location()))) {
                Files.copy(Path.of(h.location()).resolve(file), bundle.resolve(file));
            }
            Files.write(root.resolve("index.txt"), GoldenBundles.files(root));
        }
    }
}
