package io.keepsake.reader;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.RetainedCheckpoints;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rows of docs/guarantees.md that hold for every kind of savepoint, proven per kind. */
class SavepointKindsGuaranteesTest extends OnLocalStorage {

    private static final String JOB = "21";


    /** Checkpoints 1 to 3 of pipelines 1 and 2, then a savepoint of {@code kind} holding checkpoint 3. */
    private SavepointHandle savepointOfKind(SavepointKind kind) throws Exception {
        for (long c = 1; c <= 3; c++) {
            for (int p = 1; p <= 2; p++) {
                CompletedCheckpoint cp = TestCheckpoints.of(21, p, c, CheckpointType.CHECKPOINT_TYPE);
                storage.storeCheckPoint(new PipelineState(JOB, p, c, LegacyCheckpointCodec.encodeCheckpoint(cp)));
            }
        }
        if (kind == SavepointKind.RETAINED_CHECKPOINT) {
            return RetainedCheckpoints.retainLatest(storage, storage, JOB);
        }
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, JOB, List.of(1, 2)).kind(kind).open()) {
            for (int p = 1; p <= 2; p++) {
                session.report(TestCheckpoints.of(21, p, 3, CheckpointType.SAVEPOINT_TYPE));
                session.pipelineSuspended(p);
            }
            return session.commit();
        }
    }

    private static Map<String, byte[]> snapshot(Path dir) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                files.put(dir.relativize(f).toString(), Files.readAllBytes(f));
            }
        }
        return files;
    }

    @ParameterizedTest
    @EnumSource(SavepointKind.class)
    void survivesCheckpointRotationAndTerminalCleanupByteForByte(SavepointKind kind) throws Exception {
        SavepointHandle h = savepointOfKind(kind);
        assertThat(h.meta().kind()).isEqualTo(kind);
        Map<String, byte[]> before = snapshot(Path.of(h.location()));
        Map<Integer, CompletedCheckpoint> state = new SavepointRestorer(storage).restoreSavepoint(JOB, h.savepointId())
                .checkpoints();

        storage.deleteCheckpoint(JOB, "1", List.of("1", "2"));   // rotation
        storage.deleteCheckpoint(JOB, "2", List.of("1", "2"));
        storage.deleteCheckpoint(JOB);                            // terminal cleanup

        assertThat(storage.getAllCheckpoints(JOB)).isEmpty();
        assertThat(snapshot(Path.of(h.location()))).containsExactlyEntriesOf(before);
        assertThat(new SavepointRestorer(storage).recoverLatest(JOB).checkpoints()).isEqualTo(state);
    }

    @ParameterizedTest
    @EnumSource(SavepointKind.class)
    void restoresFromACopyElsewhereAndACopyWithOneFlippedBitIsRefused(SavepointKind kind) throws Exception {
        SavepointHandle h = savepointOfKind(kind);
        SavepointRestorer restorer = new SavepointRestorer(storage);
        Map<Integer, CompletedCheckpoint> state = restorer.restoreSavepoint(JOB, h.savepointId()).checkpoints();

        Path copy = temp.resolve("moved").resolve(JOB).resolve(h.savepointId());
        SaveSessionAndRestoreTest.copyTree(Path.of(h.location()), copy);
        assertThat(restorer.restoreSavepointAt(copy.toString()).checkpoints()).isEqualTo(state);

        Path payload = copy.resolve(h.meta().manifest().get(1).file());
        byte[] bytes = Files.readAllBytes(payload);
        bytes[bytes.length / 3] ^= 0x01;
        Files.write(payload, bytes);
        assertThatThrownBy(() -> restorer.restoreSavepointAt(copy.toString()))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining(payload.getFileName().toString());
    }
}
