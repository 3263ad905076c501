package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import org.apache.seatunnel.engine.checkpoint.storage.exception.CheckpointStorageException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Without an engine: after a savepoint of a pipeline could not be kept, the pipeline's later
 * checkpoints are refused (so SeaTunnel 2.3.x fails the job instead of leaving it in
 * DOING_SAVEPOINT), and what ends the refusal. The engine-side behaviour is in {@link FailedSavepointTest}.
 */
class FailedSavepointRefusalTest extends OnPluginStorage {

    private static final String JOB = "978";

    private Path blocker;

    @BeforeEach
    void failASavepoint() throws Exception {
        storage.storeCheckPoint(state(1, 1, CheckpointType.CHECKPOINT_TYPE));
        blocker = ns.root().resolve("savepoint").resolve(JOB);
        Files.createDirectories(blocker.getParent());
        Files.writeString(blocker, "a file where the job's savepoint folder goes");
        assertThatThrownBy(() -> storage.storeCheckPoint(state(1, 2, CheckpointType.SAVEPOINT_TYPE)))
                .isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("Cannot keep savepoint " + KeepsakeCheckpointStorage.savepointId(2, 1));
    }

    private static PipelineState state(int pipeline, long checkpointId, CheckpointType type) {
        return EngineStates.of(JOB, pipeline, checkpointId, type);
    }

    @Test
    void laterCheckpointsOfThePipelineAreRefusedAndNothingIsWritten() throws Exception {
        assertThatThrownBy(() -> storage.storeCheckPoint(state(1, 3, CheckpointType.CHECKPOINT_TYPE)))
                .isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("Cannot store checkpoint 3 of job 978 pipeline 1")
                .hasMessageContaining("failed at checkpoint 2 (savepoint " + KeepsakeCheckpointStorage.savepointId(2, 1))
                .hasMessageContaining("DOING_SAVEPOINT")
                .hasMessageContaining("seatunnel.sh -r 978");
        storage.storeCheckPoint(state(2, 3, CheckpointType.CHECKPOINT_TYPE));
        assertThat(ns.checkpoints(978)).extracting(f -> f.pipelineId() + "/" + f.checkpointId())
                .as("no file of the failed savepoint or the refused checkpoint; the other pipeline stores")
                .containsExactly("1/1", "2/3");
    }

    @Test
    void theFailedSavepointLeavesNoStagedCheckpointFile() throws Exception {
        // its .ser was staged while the bundle committed; the failed commit removed it, hidden name and all
        try (Stream<Path> files = Files.list(ns.root().resolve(JOB))) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).singleElement().asString()
                    .endsWith("-1-1.ser");
        }
    }

    @Test
    void restoringTheJobEndsTheRefusal() throws Exception {
        Files.delete(blocker);
        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").getCheckpointId()).isEqualTo(1);
        storage.storeCheckPoint(state(1, 3, CheckpointType.CHECKPOINT_TYPE));
        assertThat(ns.maxCheckpointId(978, 1)).isEqualTo(3);
    }

    @Test
    void aSavepointIsTriedAgainAndOnceKeptEndsTheRefusal() throws Exception {
        assertThatThrownBy(() -> storage.storeCheckPoint(state(1, 3, CheckpointType.SAVEPOINT_TYPE)))
                .hasMessageContaining("Cannot keep savepoint " + KeepsakeCheckpointStorage.savepointId(3, 1));
        Files.delete(blocker);
        storage.storeCheckPoint(state(1, 4, CheckpointType.SAVEPOINT_TYPE));
        storage.storeCheckPoint(state(1, 5, CheckpointType.CHECKPOINT_TYPE));
        assertThat(Savepoints.local(ns).list(978)).hasSize(1);
        assertThat(ns.checkpoints(978)).extracting(Namespace.CheckpointFile::checkpointId).containsExactly(1L, 4L, 5L);
    }

    @Test
    void theJobsTerminalCleanupEndsTheRefusal() throws Exception {
        storage.deleteCheckpoint(JOB);
        storage.storeCheckPoint(state(1, 3, CheckpointType.CHECKPOINT_TYPE));
        assertThat(ns.maxCheckpointId(978, 1)).isEqualTo(3);
    }
}
