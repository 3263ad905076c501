package io.keepsake.reader;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.tck.ChildRun;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Crash recovery with fallback past corrupted savepoints on, in a child JVM whose heap
 * ({@value #XMX_MIB} MiB) cannot hold the newest savepoint's one {@value #STATE_MIB} MiB state
 * object: the sound savepoint fails the recovery with {@link SavepointResourcesExhaustedException}
 * instead of being skipped for checkpoint 5, while the same savepoint with a flipped byte is
 * still skipped as corrupted in that heap.
 */
class SmallHeapRecoveryTest {

    private static final int STATE_MIB = 64;
    private static final int XMX_MIB = 48;
    private static final long JOB = 31;

    @TempDir
    Path temp;

    /** Checkpoint file 5 and a newer savepoint of checkpoint 6 holding one large state object, for pipeline 1. */
    private SavepointHandle olderCheckpointAndLargeSavepoint(Path namespace) throws Exception {
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(), namespace.toString(), null)) {
            CompletedCheckpoint older = TestCheckpoints.of(JOB, 1, 5, CheckpointType.CHECKPOINT_TYPE);
            storage.storeCheckPoint(new PipelineState(Long.toString(JOB), 1, 5, LegacyCheckpointCodec.encodeCheckpoint(older)));
            byte[] state = new byte[STATE_MIB * 1024 * 1024];
            new SplittableRandom(JOB).nextBytes(state);
            ActionStateKey key = ActionStateKey.of("large");
            ActionState action = new ActionState(key, List.of(new ActionSubtaskState(key, 0, List.of(state))), null, 1);
            CompletedCheckpoint newer = new CompletedCheckpoint(JOB, 1, 6, 1_700_000_000_000L,
                    CheckpointType.SAVEPOINT_TYPE, 1_700_000_000_100L, Map.of(key, action), Map.of());
            try (SavepointSaveSession session = SavepointSaveSession.builder(storage, Long.toString(JOB), List.of(1))
                    .open()) {
                session.report(newer);
                session.pipelineSuspended(1);
                return session.commit();
            }
        }
    }

    @Test
    void aSoundSavepointTooLargeForTheHeapFailsRecoveryTypedInsteadOfFallingBack() throws Exception {
        Path namespace = temp.resolve("ns");
        SavepointHandle large = olderCheckpointAndLargeSavepoint(namespace);

        ChildRun run = recoverInChild(namespace, "sound");

        assertThat(run.exit()).as(run.toString()).isEqualTo(2);
        assertThat(run.out()).as(run.toString())
                .startsWith("failed " + SavepointResourcesExhaustedException.class.getName())
                .contains(large.savepointId(), "job " + JOB, "OutOfMemoryError", "-Xmx")
                .doesNotContain("orrupted");
    }

    @Test
    void aFlippedByteInTheSameSavepointIsStillSkippedAsCorruptedInThatHeap() throws Exception {
        Path namespace = temp.resolve("ns");
        SavepointHandle large = olderCheckpointAndLargeSavepoint(namespace);
        Path payload = Path.of(large.location(), large.meta().manifest().get(0).file());
        try (RandomAccessFile f = new RandomAccessFile(payload.toFile(), "rw")) {
            f.seek(100); // in the first chunk, which is checked before the decoder sees any of it
            int b = f.read();
            f.seek(100);
            f.write(b ^ 0x01);
        }

        ChildRun run = recoverInChild(namespace, "flipped");

        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.out().strip()).as(run.toString()).isEqualTo("recovered 5 1");
    }

    private ChildRun recoverInChild(Path namespace, String name) throws IOException, InterruptedException {
        return ChildRun.withHeap(temp, name, XMX_MIB, SmallHeapRecoveryChild.class, namespace.toString(), Long.toString(JOB));
    }
}
