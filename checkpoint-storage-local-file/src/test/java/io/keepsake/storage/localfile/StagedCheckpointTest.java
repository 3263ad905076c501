package io.keepsake.storage.localfile;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.StagedCheckpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A staged checkpoint is invisible until published, visible after, and leaves nothing when closed unpublished. */
class StagedCheckpointTest {

    private static final String JOB = "4242";

    @Test
    void stagedCheckpointIsHiddenUntilPublished(@TempDir Path dir) throws Exception {
        try (CheckpointStorage storage = new LocalFileStorageFactory().create(Map.of("namespace", dir.toString()))) {
            PipelineState state = new PipelineState(JOB, 1, 7, new byte[] {1, 2, 3});
            try (StagedCheckpoint staged = storage.stageCheckPoint(state)) {
                assertThat(storage.getAllCheckpoints(JOB)).isEmpty();
                assertThat(names(dir.resolve(JOB))).singleElement().asString().startsWith(".");
                String name = staged.publish();
                assertThat(names(dir.resolve(JOB))).containsExactly(name);
                assertThatThrownBy(staged::publish).isInstanceOf(IllegalStateException.class);
            }
            assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").states()).containsExactly(1, 2, 3);
        }
    }

    @Test
    void closingUnpublishedLeavesNoTrace(@TempDir Path dir) throws Exception {
        try (CheckpointStorage storage = new LocalFileStorageFactory().create(Map.of("namespace", dir.toString()))) {
            storage.stageCheckPoint(new PipelineState(JOB, 1, 7, new byte[] {1})).close();
            assertThat(names(dir.resolve(JOB))).isEmpty();
            assertThat(storage.getAllCheckpoints(JOB)).isEmpty();
        }
    }

    /** A gc in another process may take the staged file once it is older than the lease timeout. */
    @Test
    void aStagedFileRemovedBeforeThePublishIsWrittenAgain(@TempDir Path dir) throws Exception {
        try (CheckpointStorage storage = new LocalFileStorageFactory().create(Map.of("namespace", dir.toString()))) {
            try (StagedCheckpoint staged = storage.stageCheckPoint(new PipelineState(JOB, 1, 7, new byte[] {4, 5}))) {
                Path temp = dir.resolve(JOB).resolve(names(dir.resolve(JOB)).get(0));
                Files.delete(temp);
                String name = staged.publish();
                assertThat(names(dir.resolve(JOB))).containsExactly(name);
            }
            assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").states()).containsExactly(4, 5);
        }
    }

    private static List<String> names(Path jobDir) throws Exception {
        try (Stream<Path> files = Files.list(jobDir)) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }
}
