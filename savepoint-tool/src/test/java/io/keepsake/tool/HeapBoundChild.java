package io.keepsake.tool;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The child JVM of {@link HeapBoundTest}, run with a small {@code -Xmx}: {@code save NAMESPACE SEED MIB}
 * builds a checkpoint of 4 actions x 16 subtasks holding MIB MiB of random state objects and commits it
 * as a savepoint of job SEED, printing {@code saved <savepointId>}; {@code restore NAMESPACE JOB
 * SAVEPOINT} restores it and prints {@code restored <state bytes>}.
 */
public final class HeapBoundChild {

    /** One state object: 256 KiB, below the size at which G1 places an array in regions of its own. */
    static final int OBJECT_BYTES = 256 * 1024;

    private HeapBoundChild() {
    }

    /** 4 actions x 16 subtasks, each a list of random {@value #OBJECT_BYTES}-byte objects, {@code bytes} in all. */
    static CompletedCheckpoint state(long seed, long bytes) {
        SplittableRandom random = new SplittableRandom(seed);
        long perSubtask = bytes / 64;
        Map<ActionStateKey, ActionState> actions = new LinkedHashMap<>();
        for (int a = 0; a < 4; a++) {
            ActionStateKey key = new ActionStateKey("action-" + a);
            List<ActionSubtaskState> slots = new ArrayList<>();
            for (int s = 0; s < 16; s++) {
                List<byte[]> objects = new ArrayList<>();
                for (long left = perSubtask; left > 0; left -= OBJECT_BYTES) {
                    byte[] object = new byte[(int) Math.min(OBJECT_BYTES, left)];
                    random.nextBytes(object);
                    objects.add(object);
                }
                slots.add(new ActionSubtaskState(key, s, objects));
            }
            actions.put(key, new ActionState(key, slots, null, 16));
        }
        return new CompletedCheckpoint(seed, 1, 7, 1_700_000_000_000L, CheckpointType.SAVEPOINT_TYPE,
                1_700_000_000_100L, actions, Map.of());
    }

    /** Runs one mode; exits non-zero on any failure (an OutOfMemoryError included). */
    public static void main(String[] args) throws Exception {
        try (KeepsakeStorage storage = (KeepsakeStorage) CheckpointStorageFactories.find("localfile")
                .create(Map.of("namespace", args[1]))) {
            if (args[0].equals("save")) {
                long seed = Long.parseLong(args[2]);
                CompletedCheckpoint cp = state(seed, Long.parseLong(args[3]) * 1024 * 1024);
                try (SavepointSaveSession session = SavepointSaveSession.builder(storage, Long.toString(seed),
                        List.of(cp.pipelineId())).open()) {
                    session.report(cp);
                    session.pipelineSuspended(cp.pipelineId());
                    SavepointHandle handle = session.commit();
                    System.out.println("saved " + handle.savepointId());
                }
            } else {
                RestoredState restored = new SavepointRestorer(storage).restoreSavepoint(args[2], args[3]);
                long bytes = 0;
                for (CompletedCheckpoint cp : restored.checkpoints().values()) {
                    bytes += cp.taskStates().values().stream().flatMap(a -> a.subtaskStates().stream())
                            .filter(s -> s != null).flatMap(s -> s.state().stream()).mapToLong(b -> b.length).sum();
                }
                System.out.println("restored " + bytes);
            }
        }
    }
}
