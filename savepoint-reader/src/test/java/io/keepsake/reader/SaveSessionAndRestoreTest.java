package io.keepsake.reader;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.RetainedCheckpoints;
import io.keepsake.engine.SavepointInProgressException;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointCommitFailedException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.internal.MetadataCodec;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SaveSessionAndRestoreTest extends OnLocalStorage {

    private SavepointRestorer restorer;

    @BeforeEach
    void setUp() {
        restorer = new SavepointRestorer(storage, storage);
    }

    private SavepointHandle save(KeepsakeStorage s, long job, SavepointKind kind, long checkpointId, int... pipelines) {
        List<Integer> ids = new ArrayList<>();
        for (int p : pipelines) {
            ids.add(p);
        }
        try (SavepointSaveSession session = SavepointSaveSession.builder(s, Long.toString(job), ids).kind(kind).open()) {
            for (int p : pipelines) {
                session.report(TestCheckpoints.savepointOf(job, p, checkpointId));
                session.pipelineSuspended(p);
            }
            return session.commit();
        }
    }

    private static Map<Integer, CompletedCheckpoint> expected(long job, long checkpointId, int... pipelines) {
        Map<Integer, CompletedCheckpoint> m = new java.util.TreeMap<>();
        for (int p : pipelines) {
            m.put(p, TestCheckpoints.savepointOf(job, p, checkpointId));
        }
        return m;
    }

    @Test
    void restoreGivesBackExactlyTheCheckpointsSaved() {
        SavepointHandle h = save(storage, 42, SavepointKind.MANUAL, 9, 1, 2, 3);
        assertThat(h.meta().payloadFormat()).isEqualTo("engine-wire-v1");
        assertThat(h.meta().manifest()).extracting(ManifestEntry::checkpointId).containsOnly(9L);
        RestoredState restored = restorer.recoverLatest("42");
        assertThat(restored.source()).isEqualTo(RestoredState.Source.SAVEPOINT);
        assertThat(restored.savepoint()).contains(h);
        assertThat(restored.checkpoints()).isEqualTo(expected(42, 9, 1, 2, 3));
        assertThat(restored.warnings()).isEmpty();
        assertThat(restorer.restoreSavepoint("42", h.savepointId()).checkpoints()).isEqualTo(expected(42, 9, 1, 2, 3));
    }

    @Test
    void pipelinesReportFromManyThreads() throws Exception {
        int pipelines = 8;
        List<Integer> ids = new ArrayList<>();
        for (int p = 1; p <= pipelines; p++) {
            ids.add(p);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, "43", ids).open()) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int p : ids) {
                done.add(pool.submit(() -> {
                    start.await();
                    session.report(TestCheckpoints.savepointOf(43, p, 5));
                    session.pipelineSuspended(p);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
            session.commit();
        } finally {
            pool.shutdownNow();
        }
        assertThat(restorer.recoverLatest("43").checkpoints()).hasSize(pipelines)
                .isEqualTo(expected(43, 5, 1, 2, 3, 4, 5, 6, 7, 8));
    }

    @Test
    void aMissingPipelineAbortsAndLeavesNothing() {
        SavepointSaveSession session = SavepointSaveSession.builder(storage, "44", List.of(1, 2)).open();
        session.report(TestCheckpoints.savepointOf(44, 1, 1));
        session.pipelineSuspended(1);
        assertThatThrownBy(session::commit).isInstanceOf(SavepointCommitFailedException.class)
                .hasMessageContaining("[2] did not report").hasMessageContaining("44");
        assertThat(storage.scanSavepoints("44")).isEmpty();
        assertThat(storage.collectGarbage(Duration.ZERO).deleted()).isEmpty();
        assertThat(session.completion()).isCompletedExceptionally();
    }

    @Test
    void cancelWhileAPipelineNeverReachesSuspendLeavesNothingVisible() throws Exception {
        SavepointSaveSession session = SavepointSaveSession.builder(storage, "45", List.of(1, 2)).open();
        session.report(TestCheckpoints.savepointOf(45, 1, 1));
        session.report(TestCheckpoints.savepointOf(45, 2, 1));
        session.pipelineSuspended(1);
        assertThat(session.cancel()).isTrue();
        assertThat(session.cancel()).isFalse();
        assertThatThrownBy(session::commit).isInstanceOf(SavepointCommitFailedException.class).hasMessageContaining("cancelled");
        assertThat(storage.listSavepoints("45")).isEmpty();
        storage.collectGarbage(Duration.ZERO);
        try (Stream<Path> left = Files.walk(Path.of(storage.savepointRoot()))) {
            assertThat(left.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .as("only the root marker stays").containsExactly(".keepsake-root");
        }
    }

    @Test
    void aCommitWithoutSuspendAborts() {
        SavepointSaveSession session = SavepointSaveSession.builder(storage, "46", List.of(1)).open();
        session.report(TestCheckpoints.savepointOf(46, 1, 1));
        assertThatThrownBy(session::commit).isInstanceOf(SavepointCommitFailedException.class)
                .hasMessageContaining("SUSPEND");
        assertThat(storage.listSavepoints("46")).isEmpty();
    }

    @Test
    void aTimeoutAbortsTheSession() {
        SavepointSaveSession session = SavepointSaveSession.builder(storage, "47", List.of(1))
                .timeout(Duration.ofMillis(50)).open();
        assertThatThrownBy(() -> session.completion().join()).isInstanceOf(CompletionException.class)
                .hasMessageContaining("timed out");
        assertThatThrownBy(() -> session.report(TestCheckpoints.savepointOf(47, 1, 1)))
                .isInstanceOf(SavepointCommitFailedException.class).hasMessageContaining("timed out");
        assertThat(storage.scanSavepoints("47")).isEmpty();
    }

    @Test
    void commitAndAbortRaceToExactlyOneOutcome() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                String job = Long.toString(1000 + round);
                SavepointSaveSession session = SavepointSaveSession.builder(storage, job, List.of(1)).open();
                session.report(TestCheckpoints.savepointOf(1000 + round, 1, 1));
                session.pipelineSuspended(1);
                CountDownLatch go = new CountDownLatch(1);
                Future<Object> commit = pool.submit(() -> {
                    go.await();
                    try {
                        return session.commit();
                    } catch (SavepointCommitFailedException e) {
                        return e;
                    }
                });
                Future<Boolean> abort = pool.submit(() -> {
                    go.await();
                    return session.abort("racing");
                });
                go.countDown();
                boolean committed = commit.get(30, TimeUnit.SECONDS) instanceof SavepointHandle;
                boolean aborted = abort.get(30, TimeUnit.SECONDS);
                assertThat(committed).as("round " + round).isNotEqualTo(aborted);
                assertThat(storage.listSavepoints(job)).hasSize(committed ? 1 : 0);
                if (committed) {
                    assertThat(session.commit()).isEqualTo(session.completion().join());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aSecondSessionOfAJobIsRefusedWhileOneIsOpen() {
        SavepointSaveSession first = SavepointSaveSession.builder(storage, "48", List.of(1)).open();
        assertThatThrownBy(() -> SavepointSaveSession.builder(storage, "48", List.of(1)).open())
                .isInstanceOf(SavepointInProgressException.class).hasMessageContaining(first.savepointId())
                .hasMessageContaining("48");
        SavepointSaveSession other = SavepointSaveSession.builder(storage, "49", List.of(1)).open();
        other.abort("not needed");
        first.abort("done");
        SavepointSaveSession again = SavepointSaveSession.builder(storage, "48", List.of(1)).open();
        again.close();
    }

    @Test
    void reportsAreChecked() {
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, "50", List.of(1)).open()) {
            assertThatThrownBy(() -> session.report(TestCheckpoints.savepointOf(51, 1, 1)))
                    .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("another job");
            assertThatThrownBy(() -> session.report(TestCheckpoints.savepointOf(50, 7, 1)))
                    .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("not expected");
            session.report(TestCheckpoints.savepointOf(50, 1, 1));
            assertThatThrownBy(() -> session.report(TestCheckpoints.savepointOf(50, 1, 2)))
                    .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("already reported");
        }
    }

    @Test
    void twoJobsSavingAtOnceDoNotInterfere() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<SavepointHandle> a = pool.submit(() -> save(storage, 60, SavepointKind.MANUAL, 3, 1, 2));
            Future<SavepointHandle> b = pool.submit(() -> save(storage, 61, SavepointKind.MANUAL, 4, 1, 2, 3));
            a.get(30, TimeUnit.SECONDS);
            b.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(restorer.recoverLatest("60").checkpoints()).isEqualTo(expected(60, 3, 1, 2));
        assertThat(restorer.recoverLatest("61").checkpoints()).isEqualTo(expected(61, 4, 1, 2, 3));
    }

    @Test
    void periodicRetentionDeletesOnlyOldPeriodicSavepoints() throws Exception {
        KeepsakeStorage retaining = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(),
                temp.resolve("ns2").toString(), null, 2);
        SavepointHandle manual = save(retaining, 70, SavepointKind.MANUAL, 1, 1);
        List<SavepointHandle> periodic = new ArrayList<>();
        for (long c = 2; c <= 5; c++) {
            periodic.add(save(retaining, 70, SavepointKind.PERIODIC, c, 1));
        }
        SavepointHandle retained = RetainedCheckpoints.retain(retaining, "70",
                List.of(TestCheckpoints.of(70, 1, 6, CheckpointType.CHECKPOINT_TYPE)));
        assertThat(retaining.listSavepoints("70")).extracting(SavepointHandle::savepointId).containsExactlyInAnyOrder(
                manual.savepointId(), periodic.get(2).savepointId(), periodic.get(3).savepointId(), retained.savepointId());
        retaining.close();
    }

    @Test
    void aRetainedCheckpointSurvivesTerminalCleanupAndRestores() throws Exception {
        for (long c = 1; c <= 3; c++) {
            for (int p = 1; p <= 2; p++) {
                CompletedCheckpoint cp = TestCheckpoints.of(80, p, c, CheckpointType.CHECKPOINT_TYPE);
                storage.storeCheckPoint(new PipelineState("80", p, c, LegacyCheckpointCodec.encodeCheckpoint(cp)));
            }
        }
        SavepointHandle h = RetainedCheckpoints.retainLatest(storage, storage, "80");
        assertThat(h.meta().kind()).isEqualTo(SavepointKind.RETAINED_CHECKPOINT);
        storage.deleteCheckpoint("80");
        RestoredState restored = restorer.recoverLatest("80");
        assertThat(restored.source()).isEqualTo(RestoredState.Source.SAVEPOINT);
        assertThat(restored.checkpoints()).containsEntry(1, TestCheckpoints.of(80, 1, 3, CheckpointType.CHECKPOINT_TYPE))
                .containsEntry(2, TestCheckpoints.of(80, 2, 3, CheckpointType.CHECKPOINT_TYPE));
    }

    @Test
    void aTargetRootOverridesTheConfiguredOneForOneSavepoint() {
        String elsewhere = temp.resolve("other-disk").toString();
        SavepointHandle h;
        try (SavepointSaveSession s = SavepointSaveSession.builder(storage, "90", List.of(1)).targetRoot(elsewhere).open()) {
            s.report(TestCheckpoints.savepointOf(90, 1, 2));
            s.pipelineSuspended(1);
            h = s.commit();
        }
        assertThat(h.location()).startsWith(elsewhere);
        assertThat(storage.listSavepoints("90")).isEmpty();
        assertThat(restorer.restoreSavepointAt(h.location()).checkpoints()).isEqualTo(expected(90, 2, 1));
    }

    @Test
    void aSavepointCopiedElsewhereRestoresByPathAndForANewJob() throws IOException {
        SavepointHandle h = save(storage, 91, SavepointKind.MANUAL, 2, 1, 2);
        Path copy = temp.resolve("backup").resolve("91").resolve(h.savepointId());
        copyTree(Path.of(h.location()), copy);
        assertThat(restorer.restoreSavepointAt(copy.toString() + "/").checkpoints()).isEqualTo(expected(91, 2, 1, 2));
        assertThatThrownBy(() -> restorer.restoreSavepointAt("sp-only")).isInstanceOf(InvalidStorageArgumentException.class);

        // a new job (id 9100) starts from job 91's savepoint, then saves and cleans up under its own id
        assertThat(restorer.recoverLatest("91").checkpoints()).isEqualTo(expected(91, 2, 1, 2));
        SavepointHandle own = save(storage, 9100, SavepointKind.MANUAL, 3, 1, 2);
        storage.deleteCheckpoint("9100");
        storage.deleteSavepoint("9100", own.savepointId());
        assertThat(storage.listSavepoints("91")).containsExactly(h);
        assertThat(restorer.recoverLatest("91").checkpoints()).isEqualTo(expected(91, 2, 1, 2));
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    @Test
    void aCorruptedNewestSavepointFailsUnlessFallbackIsOn() throws IOException {
        save(storage, 92, SavepointKind.MANUAL, 1, 1);
        SavepointHandle newest = save(storage, 92, SavepointKind.MANUAL, 2, 1);
        Path payload = Path.of(newest.location(), newest.meta().manifest().get(0).file());
        byte[] bytes = Files.readAllBytes(payload);
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(payload, bytes);
        assertThatThrownBy(() -> restorer.recoverLatest("92")).isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining(payload.getFileName().toString());
        RestoredState fallback = restorer.withFallbackPastCorrupted(true).recoverLatest("92");
        assertThat(fallback.checkpoints()).isEqualTo(expected(92, 1, 1));
        assertThat(fallback.warnings()).singleElement().asString().contains(newest.savepointId()).contains("corrupted");
    }

    @Test
    void aSavepointFromANewerEngineIsRefusedWithWhatToDo() throws IOException {
        SavepointHandle h = save(storage, 93, SavepointKind.MANUAL, 1, 1);
        SavepointMeta m = h.meta();
        int next = SavepointReaderRegistry.CURRENT_FORMAT_VERSION + 1;
        SavepointMeta newer = new SavepointMeta(next, m.savepointId(), m.jobId(), m.kind(), "keepsake-2.0",
                m.triggerTimestamp(), m.completedTimestamp(), m.payloadFormat(), m.manifest(), m.properties());
        Files.write(Path.of(h.location(), MetadataCodec.FILE_NAME), MetadataCodec.encode(newer));
        assertThatThrownBy(() -> restorer.recoverLatest("93")).isInstanceOf(SavepointIncompatibleException.class)
                .hasMessageContaining("newer engine").hasMessageContaining("format version " + next)
                .hasMessageContaining(h.savepointId());
    }

    @Test
    void aJobWithoutSavepointsOrCheckpointsHasNothingToRestore() {
        assertThatThrownBy(() -> restorer.recoverLatest("94")).isInstanceOf(SavepointNotFoundException.class)
                .hasMessageContaining("94");
    }

    @Test
    void aJobWithoutSavepointBundleFallsBackToLegacyCheckpointsWithAWarning() throws Exception {
        for (long c = 1; c <= 2; c++) {
            CompletedCheckpoint cp = TestCheckpoints.of(95, 1, c, CheckpointType.CHECKPOINT_TYPE);
            storage.storeCheckPoint(new PipelineState("95", 1, c, LegacyCheckpointCodec.encodeCheckpoint(cp)));
        }
        RestoredState r = restorer.recoverLatest("95");
        assertThat(r.source()).isEqualTo(RestoredState.Source.LEGACY_CHECKPOINTS);
        assertThat(r.checkpoints()).containsExactly(Map.entry(1, TestCheckpoints.of(95, 1, 2, CheckpointType.CHECKPOINT_TYPE)));
        assertThat(r.warnings()).singleElement().asString().contains("no savepoint bundle").contains("legacy")
                .contains("is newer").doesNotContain("has no savepoint bundle");
    }
}
