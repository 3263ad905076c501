package io.keepsake.reader;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.faults.CountingFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.internal.ComposedStorage;
import io.keepsake.storage.internal.NewestMarkers;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.wire.CheckpointWireCodec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Crash recovery finds a job's newest savepoint by its index markers: the metadata files it reads
 * do not grow with the number of savepoints, and a marker is never trusted over the metadata it
 * names (a missing marker, a lying one or a corrupted newest savepoint still give the right
 * answer or the typed failure). Runs with and without atomic directory rename.
 */
class LatestLookupTest {

    private static final String JOB = "77";
    private static final String NS = "/ns";

    /** The file system of the running test, set by {@link #open}: counts the metadata files read. */
    private CountingFileSystem fs;

    /** A storage on {@link #NS} of a new in-memory file system, with atomic directory rename or without. */
    private KeepsakeStorage open(boolean rename) {
        fs = new CountingFileSystem(WithAndWithoutRename.Memory.of(rename, System::currentTimeMillis), true);
        return KeepsakeStorage.open(fs, NS, null);
    }

    private static List<SavepointHandle> saveMany(KeepsakeStorage storage, int count) {
        List<SavepointHandle> handles = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            try (SavepointSaveSession s = SavepointSaveSession.builder(storage, JOB, List.of(1, 2)).open()) {
                for (int p = 1; p <= 2; p++) {
                    s.report(TestCheckpoints.of(77, p, i, CheckpointType.SAVEPOINT_TYPE));
                    s.pipelineSuspended(p);
                }
                handles.add(s.commit());
            }
        }
        settle(storage);
        return handles;
    }

    /**
     * Waits for what the storage does after a commit returned, on threads of its own: it tidies
     * the job's newest markers, reading metadata when it marks, so the lookups counted next start
     * from what that leaves and count only their own reads.
     */
    private static void settle(KeepsakeStorage storage) {
        if (storage instanceof ComposedStorage composed) {
            composed.awaitTidying();
        }
    }

    /** The index marker name a commit writes: claims, completion time, id (docs/formats.md). */
    private static String marker(SavepointHandle h) {
        StringBuilder b = new StringBuilder();
        h.meta().manifest().forEach(e -> b.append(b.length() == 0 ? "" : ",").append(e.pipelineId()).append('_')
                .append(e.checkpointId()));
        return b + "~" + h.meta().completedTimestamp() + "@" + h.savepointId();
    }

    /** A savepoint of pipelines 1 and 2 at {@code checkpointId}, completed at {@code completedAt}. */
    private static SavepointHandle saveAt(KeepsakeStorage storage, String savepointId, long checkpointId,
                                          long completedAt) throws IOException {
        try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest(JOB, savepointId, SavepointKind.MANUAL,
                "test", CheckpointWireCodec.FORMAT_NAME, completedAt - 1, Map.of()))) {
            for (int p = 1; p <= 2; p++) {
                try (OutputStream out = w.openPayload(p, checkpointId)) {
                    new CheckpointWireCodec().encode(TestCheckpoints.of(77, p, checkpointId,
                            CheckpointType.SAVEPOINT_TYPE), out);
                }
            }
            return w.commit(completedAt);
        }
    }

    /**
     * Savepoints tying on checkpoint 9, committed in an order that is neither their completion
     * times' nor their ids': sp-c (completed 3000), sp-a (5000), sp-e (4000), sp-b (5000), sp-z
     * (1000, the greatest id), sp-d (2000); and sp-old at checkpoint 8, completed last (9000).
     */
    private static List<SavepointHandle> saveTied(KeepsakeStorage storage) throws IOException {
        List<SavepointHandle> handles = new ArrayList<>();
        handles.add(saveAt(storage, "sp-old", 8, 9_000L));
        long[] completed = {3_000L, 5_000L, 4_000L, 5_000L, 1_000L, 2_000L};
        String[] ids = {"sp-c", "sp-a", "sp-e", "sp-b", "sp-z", "sp-d"};
        for (int i = 0; i < ids.length; i++) {
            handles.add(saveAt(storage, ids[i], 9, completed[i]));
        }
        settle(storage);
        return handles;
    }

    /**
     * The tie-break between savepoints at the same checkpoint id: the newest completed wins, and
     * of those completed at the same time the greatest savepoint id (sp-b over sp-a); a later
     * completion at a lower checkpoint id (sp-old) and a greater id completed earlier (sp-z) do
     * not. One metadata file is read, the winner's: the markers carry the completion times.
     */
    @WithAndWithoutRename
    void onATieTheNewestCompletedSavepointWinsThenTheGreatestIdWithOneMetadataRead(boolean rename)
            throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            saveTied(storage);
            long before = fs.metadataReads();
            RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
            assertThat(fs.metadataReads() - before).as("metadata files read").isEqualTo(1);
            assertThat(r.savepoint()).get().extracting(SavepointHandle::savepointId).isEqualTo("sp-b");
            assertThat(r.checkpoints()).isEqualTo(state(9));
        }
    }

    /**
     * Markers written before markers carried the completion time ({@code 1_9,2_9@sp-b}), in a job
     * without newest markers, still give the same winner: the tied folders they name are read, since nothing else orders them.
     */
    @WithAndWithoutRename
    void markersWithoutTheCompletionTimeGiveTheSameWinnerByReadingTheTiedFolders(boolean rename)
            throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            List<SavepointHandle> handles = saveTied(storage);
            // as written before newest markers existed: the lookup lists the index
            NewestMarkers.awaitTidied();
            fs.delete(NS + "/savepoint/" + JOB + "/" + NewestMarkers.DIR, true);
            String index = NS + "/savepoint/" + JOB + "/.index/";
            for (SavepointHandle h : handles) {
                String timed = marker(h);
                fs.rename(index + timed, index + timed.replaceFirst("~[0-9]+@", "@"));
            }
            long before = fs.metadataReads();
            RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
            assertThat(fs.metadataReads() - before).as("metadata files read: the six tied folders").isEqualTo(6);
            assertThat(r.savepoint()).get().extracting(SavepointHandle::savepointId).isEqualTo("sp-b");
        }
    }

    /**
     * When the tie's winner is corrupted, recovery fails naming it; with fallback the next in the
     * same order is used (sp-a, completed at the same time, smaller id), still reading only what
     * decides.
     */
    @WithAndWithoutRename
    void aCorruptedWinnerOfATieFailsOrFallsBackToTheNextInTheSameOrder(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            List<SavepointHandle> handles = saveTied(storage);
            assertThat(handles.get(4).savepointId()).isEqualTo("sp-b");
            flipLastMetadataByte(fs, handles.get(4));
            SavepointRestorer restorer = new SavepointRestorer(storage);
            assertThatThrownBy(() -> restorer.recoverLatest(JOB)).isInstanceOf(SavepointCorruptedException.class)
                    .hasMessageContaining("sp-b");
            long before = fs.metadataReads();
            RestoredState fallback = restorer.withFallbackPastCorrupted(true).recoverLatest(JOB);
            assertThat(fs.metadataReads() - before).as("metadata files read: sp-b, then sp-a").isEqualTo(2);
            assertThat(fallback.savepoint()).get().extracting(SavepointHandle::savepointId).isEqualTo("sp-a");
            assertThat(fallback.warnings()).singleElement().asString().contains("sp-b");
        }
    }

    private static void flipLastMetadataByte(StorageFileSystem fs, SavepointHandle h) throws IOException {
        String metadata = h.location() + "/_metadata.ser";
        byte[] bytes;
        try (InputStream in = fs.open(metadata)) {
            bytes = in.readAllBytes();
        }
        bytes[bytes.length - 1] ^= 1;
        try (OutputStream out = fs.create(metadata, false)) {
            out.write(bytes);
        }
    }

    private static Map<Integer, CompletedCheckpoint> state(long checkpointId) {
        return Map.of(1, TestCheckpoints.of(77, 1, checkpointId, CheckpointType.SAVEPOINT_TYPE),
                2, TestCheckpoints.of(77, 2, checkpointId, CheckpointType.SAVEPOINT_TYPE));
    }

    @WithAndWithoutRename
    void metadataReadsDoNotGrowWithTheNumberOfSavepoints(boolean rename) {
        int[] reads = new int[2];
        int[] counts = {10, 1000};
        for (int i = 0; i < counts.length; i++) {
            try (KeepsakeStorage storage = open(rename)) {
                saveMany(storage, counts[i]);
                long before = fs.metadataReads();
                RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
                reads[i] = (int) (fs.metadataReads() - before);
                assertThat(r.checkpoints()).isEqualTo(state(counts[i]));
                assertThat(r.source()).isEqualTo(RestoredState.Source.SAVEPOINT);
            }
        }
        assertThat(reads[0]).as("metadata files read with 10 savepoints").isEqualTo(1);
        assertThat(reads[1]).as("metadata files read with 1,000 savepoints").isEqualTo(reads[0]);
    }

    @WithAndWithoutRename
    void aSavepointWithoutMarkerIsReadAndStillWins(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            saveMany(storage, 5);
            for (var s : fs.list(NS + "/savepoint/" + JOB + "/.index")) {
                if (s.name().startsWith("1_5,2_5~")) {
                    fs.delete(NS + "/savepoint/" + JOB + "/.index/" + s.name(), false);
                }
            }
            assertThat(new SavepointRestorer(storage).recoverLatest(JOB).checkpoints()).isEqualTo(state(5));
        }
    }

    @WithAndWithoutRename
    void aMarkerThatClaimsTooMuchIsCorrectedByTheMetadata(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            List<SavepointHandle> handles = saveMany(storage, 5);
            String index = NS + "/savepoint/" + JOB + "/.index/";
            fs.delete(index + marker(handles.get(1)), false);
            try (OutputStream out = fs.create(index + "1_99,2_99@" + handles.get(1).savepointId(), true)) {
                out.flush();
            }
            RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
            assertThat(r.checkpoints()).isEqualTo(state(5));
            assertThat(r.savepoint()).contains(handles.get(4));
        }
    }

    @WithAndWithoutRename
    void aCorruptedNewestMetadataFailsUnlessFallbackIsOn(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            List<SavepointHandle> handles = saveMany(storage, 3);
            flipLastMetadataByte(fs, handles.get(2));
            SavepointRestorer restorer = new SavepointRestorer(storage);
            assertThatThrownBy(() -> restorer.recoverLatest(JOB)).isInstanceOf(SavepointCorruptedException.class)
                    .hasMessageContaining(handles.get(2).savepointId());
            RestoredState fallback = restorer.withFallbackPastCorrupted(true).recoverLatest(JOB);
            assertThat(fallback.checkpoints()).isEqualTo(state(2));
            assertThat(fallback.warnings()).singleElement().asString().contains(handles.get(2).savepointId());
        }
    }

    @WithAndWithoutRename
    void deletingASavepointRemovesItsMarkerAndTheLastOneLeavesNoFolder(boolean rename) throws IOException {
        try (KeepsakeStorage storage = open(rename)) {
            List<SavepointHandle> handles = saveMany(storage, 3);
            storage.deleteSavepoint(JOB, handles.get(2).savepointId());
            assertThat(fs.list(NS + "/savepoint/" + JOB + "/.index")).hasSize(2);
            assertThat(new SavepointRestorer(storage).recoverLatest(JOB).checkpoints()).isEqualTo(state(2));
            assertThat(storage.deleteSavepoints(JOB)).isEqualTo(2);
            assertThat(fs.stat(NS + "/savepoint/" + JOB)).isEmpty();
        }
    }
}
