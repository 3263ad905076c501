package io.keepsake.reader;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.GcReport;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageListener;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StorageListenerTest extends OnLocalStorage {

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<Duration> durations = new CopyOnWriteArrayList<>();

    /** One event, and how long it took. */
    private void record(String event, Duration duration) {
        events.add(event);
        durations.add(duration);
    }

    /** Records every call as one line; durations are kept apart because their values vary. */
    private final StorageListener recorder = new StorageListener() {
        @Override
        public void onCommit(String jobId, String savepointId, long bytes, Duration duration) {
            record("commit " + jobId + " " + savepointId + " " + bytes, duration);
        }

        @Override
        public void onAbort(String jobId, String savepointId, Duration duration) {
            record("abort " + jobId + " " + savepointId, duration);
        }

        @Override
        public void onRestore(String jobId, String savepointId, long bytes, Duration duration) {
            record("restore " + jobId + " " + savepointId + " " + bytes, duration);
        }

        @Override
        public void onVerifyFailure(String jobId, String savepointId, SavepointCorruptedException failure) {
            events.add("verify-failure " + jobId + " " + savepointId + " " + failure.file());
        }

        @Override
        public void onGc(GcReport report, Duration duration) {
            record("gc " + report.deleted().size() + " " + report.kept().size(), duration);
        }
    };

    @BeforeEach
    void setUp() {
        storage.addListener(recorder);
    }

    private SavepointHandle save(long checkpointId) {
        return save(checkpointId, 1);
    }

    private SavepointHandle save(long checkpointId, Integer... pipelines) {
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, "5", List.of(pipelines))
                .kind(SavepointKind.MANUAL).open()) {
            for (int p : pipelines) {
                session.report(TestCheckpoints.savepointOf(5, p, checkpointId));
                session.pipelineSuspended(p);
            }
            return session.commit();
        }
    }

    private void checkpointFile(int pipeline, long checkpointId) throws Exception {
        storage.storeCheckPoint(new PipelineState("5", pipeline, checkpointId, LegacyCheckpointCodec
                .encodeCheckpoint(TestCheckpoints.of(5, pipeline, checkpointId, CheckpointType.CHECKPOINT_TYPE))));
    }

    private static long bytes(SavepointHandle h) {
        return h.meta().manifest().stream().mapToLong(e -> e.length()).sum();
    }

    /** A mixed recovery names the savepoint that contributed, not null. */
    @Test
    void aRecoveryFromACheckpointFileAndASavepointReportsTheSavepoint() throws Exception {
        SavepointHandle sp = save(4, 1, 2);
        checkpointFile(1, 5);   // pipeline 1 moved on; pipeline 2 still comes from the savepoint

        RestoredState recovered = new SavepointRestorer(storage).recoverLatest("5");

        assertThat(recovered.source()).isEqualTo(RestoredState.Source.MIXED);
        assertThat(events).last().isEqualTo("restore 5 " + sp.savepointId() + " " + bytes(sp));
    }

    @Test
    void aRecoveryFromTwoSavepointsReportsTheOneThatGaveTheNewestState() throws Exception {
        SavepointHandle older = save(4, 1, 2);
        SavepointHandle newer = save(5, 1);

        RestoredState recovered = new SavepointRestorer(storage).recoverLatest("5");

        assertThat(recovered.source()).isEqualTo(RestoredState.Source.MIXED);
        assertThat(recovered.origins().get(2).savepointId()).contains(older.savepointId());
        assertThat(events).last().isEqualTo("restore 5 " + newer.savepointId() + " "
                + (bytes(older) + bytes(newer)));
    }

    @Test
    void aRecoveryFromCheckpointFilesOnlyReportsNoSavepoint() throws Exception {
        checkpointFile(1, 2);

        new SavepointRestorer(storage).recoverLatest("5");

        assertThat(events).containsExactly("restore 5 null 0");
    }

    @Test
    void commitRestoreVerifyFailureAbortAndGcAreEachReportedOnce() throws Exception {
        SavepointHandle h = save(3);
        long bytes = h.meta().manifest().get(0).length();
        assertThat(bytes).isPositive();
        assertThat(events).containsExactly("commit 5 " + h.savepointId() + " " + bytes);

        SavepointRestorer restorer = new SavepointRestorer(storage);
        restorer.restoreSavepoint("5", h.savepointId());
        restorer.recoverLatest("5");
        assertThat(events).endsWith("restore 5 " + h.savepointId() + " " + bytes,
                "restore 5 " + h.savepointId() + " " + bytes);

        Path payload = Path.of(h.location(), h.meta().manifest().get(0).file());
        byte[] content = Files.readAllBytes(payload);
        content[content.length / 2] ^= 0x01;
        Files.write(payload, content);
        assertThatThrownBy(() -> restorer.restoreSavepoint("5", h.savepointId()))
                .isInstanceOf(SavepointCorruptedException.class);
        assertThat(events).last().isEqualTo("verify-failure 5 " + h.savepointId() + " " + payload);

        try (SavepointWriter writer = storage.beginSavepoint(new SavepointRequest("5", "sp-aborted",
                SavepointKind.MANUAL, "test", "engine-wire-v1", 1L, Map.of()))) {
            try (OutputStream out = writer.openPayload(1, 4)) {
                out.write(new byte[] {1, 2, 3});
            }
        }
        assertThat(events).last().isEqualTo("abort 5 sp-aborted");

        storage.collectGarbage(Duration.ofHours(1));
        assertThat(events).last().isEqualTo("gc 0 0");
        assertThat(events).hasSize(6);
        assertThat(durations).hasSize(5).allSatisfy(d -> assertThat(d.isNegative()).isFalse());
    }

    @Test
    void aListenerThatThrowsNeverFailsTheOperation() {
        storage.addListener(new StorageListener() {
            @Override
            public void onCommit(String jobId, String savepointId, long bytes, Duration duration) {
                throw new IllegalStateException("listener bug");
            }
        });
        SavepointHandle h = save(1);
        assertThat(storage.listSavepoints("5")).containsExactly(h);
        assertThat(events).containsExactly("commit 5 " + h.savepointId() + " "
                + h.meta().manifest().get(0).length());
    }

    @Test
    void aViewOnAnotherSavepointRootSharesTheListeners() {
        KeepsakeStorage view = storage.withSavepointRoot(temp.resolve("elsewhere").toString());
        try (SavepointSaveSession session = SavepointSaveSession.builder(view, "6", List.of(1)).open()) {
            session.report(TestCheckpoints.savepointOf(6, 1, 2));
            session.pipelineSuspended(1);
            session.commit();
        }
        assertThat(events).singleElement().asString().startsWith("commit 6 ");
    }
}
