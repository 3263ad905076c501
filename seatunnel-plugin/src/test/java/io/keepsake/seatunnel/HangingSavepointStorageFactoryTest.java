package io.keepsake.seatunnel;

import io.keepsake.engine.CheckpointType;
import io.keepsake.storage.internal.NewestMarkers;
import org.apache.seatunnel.engine.checkpoint.storage.api.CheckpointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test storage {@link HangingSavepointStorageFactory} once its one hang is claimed (the marker
 * file exists): every call reaches Keepsake's plugin, savepoints included.
 */
class HangingSavepointStorageFactoryTest {

    private static final String JOB = "5150";

    @Test
    void onceTheHangIsClaimedEveryCallReachesThePlugin(@TempDir Path dir) throws Exception {
        Path marker = Files.writeString(dir.resolve("hang"), "claimed elsewhere");
        Namespace ns = new Namespace(dir.resolve("ns"));
        CheckpointStorage storage = new HangingSavepointStorageFactory().create(Map.of("namespace", ns.root().toString(),
                HangingSavepointStorageFactory.MARKER, marker.toString()));

        storage.storeCheckPoint(EngineStates.of(JOB, 1, 1, CheckpointType.CHECKPOINT_TYPE));
        storage.asyncStoreCheckPoint(EngineStates.of(JOB, 1, 2, CheckpointType.SAVEPOINT_TYPE));
        storage.storeCheckPoint(EngineStates.of(JOB, 1, 3, CheckpointType.CHECKPOINT_TYPE));
        storage.deleteCheckpoint(JOB, "1", "3");

        assertThat(storage.getAllCheckpoints(JOB)).extracting(s -> s.getCheckpointId()).containsExactlyInAnyOrder(1L, 2L);
        assertThat(storage.getLatestCheckpointByJobIdAndPipelineId(JOB, "1").getCheckpointId()).isEqualTo(2);
        assertThat(Savepoints.local(ns).list(Long.parseLong(JOB))).extracting(h -> h.savepointId())
                .containsExactly(KeepsakeCheckpointStorage.savepointId(2, 1));
        assertThat(Files.readString(marker)).isEqualTo("claimed elsewhere");

        // the plugin's storage is never closed: the folder goes once the commit's background tidying is done
        Path staging = ns.root().resolve("savepoint").resolve(JOB).resolve(".staging");
        EmbeddedEngine.await("the savepoint's staging to be tidied", Duration.ofSeconds(30),
                () -> !Files.isDirectory(staging) || staging.toFile().list().length == 0);
        NewestMarkers.awaitTidied();
    }
}
