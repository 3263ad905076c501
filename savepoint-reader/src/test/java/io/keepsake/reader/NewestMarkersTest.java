package io.keepsake.reader;

import io.keepsake.engine.CheckpointType;
import io.keepsake.fixtures.fs.InMemoryFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.internal.NewestMarkers;
import io.keepsake.storage.spi.SyncableOutputStream;
import io.keepsake.wire.CheckpointWireCodec;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The newest markers ({@link NewestMarkers}) as recovery meets them: the invariant they keep
 * (every published savepoint without a marker is older than every published one with a marker,
 * per pipeline), and every way a marker can be wrong (orphaned by a killed writer, naming a
 * damaged savepoint, disagreeing with the metadata, gone with a delete, or missing for savepoints
 * of a build that wrote none): the answer is always the one the full listing gives. Runs with and
 * without atomic directory rename.
 */
class NewestMarkersTest {

    private static final String JOB = "66";
    private static final String NS = "/ns";
    private static final String JOB_DIR = NS + "/savepoint/" + JOB;
    private static final String NEWEST = JOB_DIR + "/" + NewestMarkers.DIR;

    private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());

    /** The file system of the running test, set by {@link #open}. */
    private InMemoryFileSystem fs;

    /** A storage on {@link #NS} of a new in-memory file system, with atomic directory rename or without. */
    private KeepsakeStorage open(boolean rename) {
        fs = WithAndWithoutRename.Memory.of(rename, clock::get);
        return KeepsakeStorage.open(fs, NS, null);
    }

    /** A savepoint of {@code pipelines} at {@code checkpointId}, completed at {@code checkpointId} seconds. */
    private static SavepointHandle save(KeepsakeStorage storage, String id, long checkpointId, int... pipelines)
            throws IOException {
        try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest(JOB, id, SavepointKind.MANUAL, "test",
                CheckpointWireCodec.FORMAT_NAME, checkpointId * 1000 - 1, Map.of()))) {
            for (int p : pipelines) {
                try (OutputStream out = w.openPayload(p, checkpointId)) {
                    new CheckpointWireCodec().encode(TestCheckpoints.of(66, p, checkpointId,
                            CheckpointType.SAVEPOINT_TYPE), out);
                }
            }
            SavepointHandle h = w.commit(checkpointId * 1000);
            NewestMarkers.awaitTidied();
            return h;
        }
    }

    private static List<SavepointHandle> saveUpTo(KeepsakeStorage storage, int count) throws IOException {
        List<SavepointHandle> handles = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            handles.add(save(storage, "sp-" + i, i, 1));
        }
        return handles;
    }

    private static List<String> newest(InMemoryFileSystem fs) throws IOException {
        return fs.listNames(NEWEST);
    }

    private static boolean sentinel(InMemoryFileSystem fs) throws IOException {
        return newest(fs).stream().anyMatch(n -> n.startsWith("complete~"));
    }

    private static void overwrite(InMemoryFileSystem fs, String path, byte[] bytes) throws IOException {
        fs.delete(path, false);
        try (SyncableOutputStream out = fs.create(path, true)) {
            out.write(bytes);
        }
    }

    private static long recovered(KeepsakeStorage storage, int pipeline) {
        return new SavepointRestorer(storage).recoverLatest(JOB).checkpoints().get(pipeline).checkpointId();
    }

    /**
     * Savepoints committed out of checkpoint order: the markers left are the three newest by
     * checkpoint id, and every savepoint without one is older than every savepoint with one.
     */
    @WithAndWithoutRename
    void everyUnmarkedSavepointIsOlderThanEveryMarkedOne(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            long[] order = {4, 9, 1, 12, 7, 3, 11, 2, 10, 5, 8, 6};
            Map<String, Long> published = new TreeMap<>();
            for (long cp : order) {
                published.put(save(storage, "sp-" + cp, cp, 1).savepointId(), cp);
            }
            Set<String> marked = new java.util.TreeSet<>();
            for (String name : newest(fs)) {
                if (!name.startsWith("complete~")) {
                    marked.add(name.substring(name.indexOf('@') + 1, name.lastIndexOf('.')));
                }
            }
            assertThat(marked).containsExactlyInAnyOrder("sp-12", "sp-11", "sp-10");
            assertThat(sentinel(fs)).isTrue();
            long oldestMarked = marked.stream().mapToLong(published::get).min().orElseThrow();
            published.forEach((id, cp) -> {
                if (!marked.contains(id)) {
                    assertThat(cp).as(id).isLessThan(oldestMarked);
                }
            });
            assertThat(recovered(storage, 1)).isEqualTo(12);
        }
    }

    /**
     * Savepoints written without newest markers (an older build; here their folder is removed)
     * are still found: with the folder absent the lookup lists everything; a new commit finds no
     * sentinel, lists everything once, marks the newest savepoint of each pipeline (the only one
     * holding pipeline 2 included) and writes the sentinel. Trusting the folder as soon as the new
     * commit created it would lose pipeline 2.
     */
    @WithAndWithoutRename
    void savepointsOfABuildWithoutMarkersAreFoundAndMarkedBeforeTheFolderIsTrusted(boolean rename)
            throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            save(storage, "old-a", 5, 1, 2);
            save(storage, "old-b", 4, 1);
            fs.delete(NEWEST, true);
            RestoredState before = new SavepointRestorer(storage).recoverLatest(JOB);
            assertThat(before.checkpoints().get(2).checkpointId()).isEqualTo(5);

            // the new commit: its marker is written before publication; the folder is not trusted yet
            try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest(JOB, "new", SavepointKind.MANUAL,
                    "test", CheckpointWireCodec.FORMAT_NAME, 5999, Map.of()))) {
                try (OutputStream out = w.openPayload(1, 6)) {
                    new CheckpointWireCodec().encode(TestCheckpoints.of(66, 1, 6, CheckpointType.SAVEPOINT_TYPE), out);
                }
                w.commit(6000);
                RestoredState meanwhile = new SavepointRestorer(storage).recoverLatest(JOB);
                assertThat(meanwhile.checkpoints().get(1).checkpointId()).isEqualTo(6);
                assertThat(meanwhile.checkpoints().get(2).checkpointId()).isEqualTo(5);
            }
            NewestMarkers.awaitTidied();
            assertThat(sentinel(fs)).isTrue();
            assertThat(newest(fs)).anyMatch(n -> n.contains("@old-a."));
            RestoredState after = new SavepointRestorer(storage).recoverLatest(JOB);
            assertThat(after.source()).isEqualTo(RestoredState.Source.MIXED);
            assertThat(after.checkpoints().get(1).checkpointId()).isEqualTo(6);
            assertThat(after.checkpoints().get(2).checkpointId()).isEqualTo(5);
        }
    }

    /**
     * A writer killed between its marker and publication leaves a marker naming nothing: the
     * lookup skips it; garbage collection removes it once it is older than the lease timeout, and
     * drops the sentinel with it, which the next commit writes again.
     */
    @WithAndWithoutRename
    void aMarkerWithoutItsSavepointIsSkippedThenCollected(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            saveUpTo(storage, 5);
            clock.addAndGet(-Duration.ofHours(2).toMillis());
            String ghost = NEWEST + "/1_99~99000@ghost.0123456789abcdef";
            fs.create(ghost, true).close();
            clock.addAndGet(Duration.ofHours(2).toMillis());
            assertThat(recovered(storage, 1)).isEqualTo(5);

            storage.collectGarbage(Duration.ZERO);
            assertThat(fs.stat(ghost)).isEmpty();
            assertThat(sentinel(fs)).isFalse();
            assertThat(recovered(storage, 1)).isEqualTo(5);
            save(storage, "sp-6", 6, 1);
            assertThat(sentinel(fs)).isTrue();
            assertThat(recovered(storage, 1)).isEqualTo(6);
        }
    }

    /** A marker whose savepoint's metadata is damaged: recovery fails, or with fallback takes the next newest. */
    @WithAndWithoutRename
    void aMarkedDamagedSavepointFailsOrIsFallenBackPast(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            saveUpTo(storage, 5);
            overwrite(fs, JOB_DIR + "/sp-5/_metadata.ser", "not metadata".getBytes());
            SavepointRestorer restorer = new SavepointRestorer(storage);
            assertThatThrownBy(() -> restorer.recoverLatest(JOB)).isInstanceOf(SavepointCorruptedException.class)
                    .hasMessageContaining("sp-5");
            assertThat(restorer.withFallbackPastCorrupted(true).recoverLatest(JOB).checkpoints().get(1).checkpointId())
                    .isEqualTo(4);
        }
    }

    /** A marker claiming more than its metadata says is not trusted: the metadata decides. */
    @WithAndWithoutRename
    void aMarkerDisagreeingWithItsMetadataIsNotTrusted(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            saveUpTo(storage, 5);
            String lying = newest(fs).stream().filter(n -> n.contains("@sp-3.")).findFirst().orElseThrow();
            fs.rename(NEWEST + "/" + lying, NEWEST + "/" + lying.replaceFirst("^1_3~", "1_50~"));
            RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
            assertThat(r.savepoint()).get().extracting(SavepointHandle::savepointId).isEqualTo("sp-5");
        }
    }

    /**
     * When as many markers as are kept per pipeline are skipped (their savepoints damaged), an
     * older savepoint without a marker may be the newest readable one: the lookup falls back to
     * the full listing and finds it. Trusting the markers until they run out would find nothing.
     */
    @WithAndWithoutRename
    void whenEveryKeptMarkerIsSkippedTheFullListingFindsTheNextNewest(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            saveUpTo(storage, 10);
            assertThat(newest(fs)).hasSize(NewestMarkers.KEPT + 1);
            for (int i = 8; i <= 10; i++) {
                overwrite(fs, JOB_DIR + "/sp-" + i + "/_metadata.ser", "not metadata".getBytes());
            }
            RestoredState r = new SavepointRestorer(storage).withFallbackPastCorrupted(true).recoverLatest(JOB);
            assertThat(r.checkpoints().get(1).checkpointId()).isEqualTo(7);
            assertThat(r.warnings()).hasSize(3);
        }
    }

    /**
     * Deleting a marked savepoint removes its marker after its metadata and drops the sentinel:
     * the lookup lists everything and finds the next newest, and the next commit trusts the folder again.
     */
    @WithAndWithoutRename
    void deletingAMarkedSavepointDropsTheSentinelUntilTheNextCommit(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            saveUpTo(storage, 10);
            storage.deleteSavepoint(JOB, "sp-10");
            storage.deleteSavepoint(JOB, "sp-9");
            storage.deleteSavepoint(JOB, "sp-8");
            assertThat(newest(fs)).noneMatch(n -> n.contains("@sp-10.") || n.contains("@sp-9.") || n.contains("@sp-8."));
            assertThat(sentinel(fs)).isFalse();
            assertThat(recovered(storage, 1)).isEqualTo(7);
            save(storage, "sp-11", 11, 1);
            assertThat(sentinel(fs)).isTrue();
            storage.deleteSavepoint(JOB, "sp-11");
            assertThat(recovered(storage, 1)).isEqualTo(7);
        }
    }

    /**
     * A savepoint folder copied into the job by hand (from another root, or a backup) has no
     * newest marker, so the marker lookup does not see it; any full listing of the job holds the
     * listing against the markers, removes the sentinel, and queues the tidy that marks the copy.
     */
    @WithAndWithoutRename
    void aSavepointCopiedInByHandIsFoundOnceAListingOfTheJobSawIt(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename);
             KeepsakeStorage elsewhere = KeepsakeStorage.open(fs, "/elsewhere", null)) {
            saveUpTo(storage, 5);
            save(elsewhere, "copied", 9, 1);
            assertThat(sentinel(fs)).isTrue();
            String from = "/elsewhere/savepoint/" + JOB + "/copied";
            for (String name : fs.listNames(from)) {
                byte[] bytes;
                try (java.io.InputStream in = fs.open(from + "/" + name)) {
                    bytes = in.readAllBytes();
                }
                try (SyncableOutputStream out = fs.create(JOB_DIR + "/copied/" + name, true)) {
                    out.write(bytes);
                    out.sync();
                }
            }
            assertThat(recovered(storage, 1)).as("the marker lookup before any listing saw the copy").isEqualTo(5);

            assertThat(storage.listSavepoints(JOB)).extracting(SavepointHandle::savepointId).contains("copied");
            assertThat(recovered(storage, 1)).as("after a listing saw the copy").isEqualTo(9);
            NewestMarkers.awaitTidied();
            assertThat(sentinel(fs)).as("the sentinel, once the copy is marked").isTrue();
            assertThat(newest(fs)).anyMatch(n -> n.contains("@copied."));
            assertThat(recovered(storage, 1)).isEqualTo(9);
        }
    }

    /** A savepoint holding no pipeline gets no newest marker: it is never anyone's newest state. */
    @WithAndWithoutRename
    void aSavepointWithoutPipelinesGetsNoNewestMarker(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            saveUpTo(storage, 2);
            save(storage, "empty", 3);
            assertThat(newest(fs)).noneMatch(n -> n.contains("empty"));
            assertThat(recovered(storage, 1)).isEqualTo(2);
        }
    }
}
