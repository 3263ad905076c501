package io.keepsake.reader;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.fs.InMemoryFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

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

    /** Counts metadata files opened. */
    private static final class Counting extends ForwardingFileSystem {
        final AtomicInteger metadataOpens = new AtomicInteger();

        Counting(StorageFileSystem delegate) {
            super(delegate);
        }

        @Override
        public InputStream open(String path) throws IOException {
            if (path.endsWith("/_metadata.ser")) {
                metadataOpens.incrementAndGet();
            }
            return super.open(path);
        }
    }

    private static InMemoryFileSystem memory(boolean rename) {
        return new InMemoryFileSystem(rename ? EnumSet.of(FsCapability.ATOMIC_DIRECTORY_RENAME, FsCapability.DIRECTORY_SYNC)
                : EnumSet.of(FsCapability.DIRECTORY_SYNC), System::currentTimeMillis);
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
        return handles;
    }

    private static Map<Integer, CompletedCheckpoint> state(long checkpointId) {
        return Map.of(1, TestCheckpoints.of(77, 1, checkpointId, CheckpointType.SAVEPOINT_TYPE),
                2, TestCheckpoints.of(77, 2, checkpointId, CheckpointType.SAVEPOINT_TYPE));
    }

    @ParameterizedTest(name = "rename={0}")
    @CsvSource({"true", "false"})
    void metadataReadsDoNotGrowWithTheNumberOfSavepoints(boolean rename) {
        int[] reads = new int[2];
        int[] counts = {10, 1000};
        for (int i = 0; i < counts.length; i++) {
            Counting fs = new Counting(memory(rename));
            try (KeepsakeStorage storage = KeepsakeStorage.open(fs, NS, null)) {
                saveMany(storage, counts[i]);
                fs.metadataOpens.set(0);
                RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
                reads[i] = fs.metadataOpens.get();
                assertThat(r.checkpoints()).isEqualTo(state(counts[i]));
                assertThat(r.source()).isEqualTo(RestoredState.Source.SAVEPOINT);
            }
        }
        assertThat(reads[0]).as("metadata files read with 10 savepoints").isEqualTo(1);
        assertThat(reads[1]).as("metadata files read with 1,000 savepoints").isEqualTo(reads[0]);
    }

    @ParameterizedTest(name = "rename={0}")
    @CsvSource({"true", "false"})
    void aSavepointWithoutMarkerIsReadAndStillWins(boolean rename) throws IOException {
        InMemoryFileSystem fs = memory(rename);
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, NS, null)) {
            saveMany(storage, 5);
            for (var s : fs.list(NS + "/savepoint/" + JOB + "/.index")) {
                if (s.name().startsWith("1_5,2_5@")) {
                    fs.delete(NS + "/savepoint/" + JOB + "/.index/" + s.name(), false);
                }
            }
            assertThat(new SavepointRestorer(storage).recoverLatest(JOB).checkpoints()).isEqualTo(state(5));
        }
    }

    @ParameterizedTest(name = "rename={0}")
    @CsvSource({"true", "false"})
    void aMarkerThatClaimsTooMuchIsCorrectedByTheMetadata(boolean rename) throws IOException {
        InMemoryFileSystem fs = memory(rename);
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, NS, null)) {
            List<SavepointHandle> handles = saveMany(storage, 5);
            String index = NS + "/savepoint/" + JOB + "/.index/";
            fs.delete(index + "1_2,2_2@" + handles.get(1).savepointId(), false);
            try (OutputStream out = fs.create(index + "1_99,2_99@" + handles.get(1).savepointId(), true)) {
                out.flush();
            }
            RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
            assertThat(r.checkpoints()).isEqualTo(state(5));
            assertThat(r.savepoint()).contains(handles.get(4));
        }
    }

    @ParameterizedTest(name = "rename={0}")
    @CsvSource({"true", "false"})
    void aCorruptedNewestMetadataFailsUnlessFallbackIsOn(boolean rename) throws IOException {
        InMemoryFileSystem fs = memory(rename);
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, NS, null)) {
            List<SavepointHandle> handles = saveMany(storage, 3);
            String metadata = handles.get(2).location() + "/_metadata.ser";
            byte[] bytes;
            try (InputStream in = fs.open(metadata)) {
                bytes = in.readAllBytes();
            }
            bytes[bytes.length - 1] ^= 1;
            try (OutputStream out = fs.create(metadata, false)) {
                out.write(bytes);
            }
            SavepointRestorer restorer = new SavepointRestorer(storage);
            assertThatThrownBy(() -> restorer.recoverLatest(JOB)).isInstanceOf(SavepointCorruptedException.class)
                    .hasMessageContaining(handles.get(2).savepointId());
            RestoredState fallback = restorer.withFallbackPastCorrupted(true).recoverLatest(JOB);
            assertThat(fallback.checkpoints()).isEqualTo(state(2));
            assertThat(fallback.warnings()).singleElement().asString().contains(handles.get(2).savepointId());
        }
    }

    @ParameterizedTest(name = "rename={0}")
    @CsvSource({"true", "false"})
    void deletingASavepointRemovesItsMarkerAndTheLastOneLeavesNoFolder(boolean rename) throws IOException {
        InMemoryFileSystem fs = memory(rename);
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, NS, null)) {
            List<SavepointHandle> handles = saveMany(storage, 3);
            storage.deleteSavepoint(JOB, handles.get(2).savepointId());
            assertThat(fs.list(NS + "/savepoint/" + JOB + "/.index")).hasSize(2);
            assertThat(new SavepointRestorer(storage).recoverLatest(JOB).checkpoints()).isEqualTo(state(2));
            assertThat(storage.deleteSavepoints(JOB)).isEqualTo(2);
            assertThat(fs.stat(NS + "/savepoint/" + JOB)).isEmpty();
        }
    }
}
