package io.keepsake.reader;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.fixtures.Fixtures;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.PipelineStateCodec;
import io.keepsake.storage.internal.LegacyCheckpointFiles;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checkpoint directories written by the released SeaTunnel 2.3.8 jars, placed in a
 * namespace: the local backend lists and reads every file, "latest" is the highest checkpoint id
 * per pipeline, the restore facade falls back to them with a warning, and checkpoints Keepsake
 * writes are byte-identical to SeaTunnel's, so SeaTunnel could read ours.
 */
class SeaTunnelLegacyRestoreTest {

    @TempDir
    Path temp;

    @Test
    void everyLegacyJobIsListedReadAndRestored() throws Exception {
        Path namespace = temp.resolve("ns");
        assertThat(Fixtures.legacyV0Jobs()).hasSize(3);
        try (KeepsakeStorage storage = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), namespace.toString(), null)) {
            SavepointRestorer restorer = new SavepointRestorer(storage, storage);
            for (String job : Fixtures.legacyV0Jobs()) {
                Fixtures.copyLegacyJob(job, namespace);
                Map<Integer, String> latestFile = new TreeMap<>();
                Map<Integer, Long> latestId = new TreeMap<>();
                for (String file : Fixtures.legacyV0Files(job)) {
                    LegacyCheckpointFiles.Name n = LegacyCheckpointFiles.parse(file).orElseThrow();
                    if (n.checkpointId() >= latestId.getOrDefault(n.pipelineId(), Long.MIN_VALUE)) {
                        latestId.put(n.pipelineId(), n.checkpointId());
                        latestFile.put(n.pipelineId(), file);
                    }
                }
                assertThat(storage.getAllCheckpoints(job)).hasSize(Fixtures.legacyV0Files(job).size());
                assertThat(storage.getLatestCheckpoint(job)).extracting(PipelineState::checkpointId)
                        .containsExactlyInAnyOrderElementsOf(latestId.values());

                RestoredState restored = restorer.recoverLatest(job);
                assertThat(restored.source()).isEqualTo(RestoredState.Source.LEGACY_CHECKPOINTS);
                assertThat(restored.warnings()).singleElement().asString().contains(job).contains("legacy");
                for (Map.Entry<Integer, String> e : latestFile.entrySet()) {
                    CompletedCheckpoint expected = LegacyCheckpointCodec.decodeFile(Fixtures.legacyV0File(job, e.getValue()), e.getValue());
                    assertThat(restored.checkpoints().get(e.getKey())).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void checkpointsWeStoreAreTheBytesSeaTunnelWrites() throws Exception {
        Path namespace = temp.resolve("ns");
        try (KeepsakeStorage storage = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), namespace.toString(), null)) {
            for (String job : Fixtures.legacyV0Jobs()) {
                for (String file : Fixtures.legacyV0Files(job)) {
                    byte[] original = Fixtures.legacyV0File(job, file);
                    String stored = storage.storeCheckPoint(PipelineStateCodec.decode(original, file));
                    assertThat(Files.readAllBytes(namespace.resolve(job).resolve(stored)))
                            .as(file).isEqualTo(original);
                }
            }
        }
    }
}
