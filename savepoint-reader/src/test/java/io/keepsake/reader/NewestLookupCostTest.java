package io.keepsake.reader;

import io.keepsake.engine.CheckpointType;
import io.keepsake.fixtures.faults.CallCountingFileSystem;
import io.keepsake.fixtures.faults.CountingFileSystem;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.internal.NewestMarkers;
import io.keepsake.storage.internal.NewestSavepoints;
import io.keepsake.storage.localfile.LocalFileSystem;
import io.keepsake.wire.CheckpointWireCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the local backend, the lookup of a job's newest savepoint costs about the same with many
 * savepoints as with ten: crash recovery ({@link SavepointRestorer#recoverLatest}) and the
 * lookup of the newest savepoint per pipeline ({@link NewestSavepoints#choose}, what the plugin's
 * recovery uses) list the job's small newest folder, not every savepoint. Counted through the
 * file system SPI: listings, entries listed, files opened, status calls. The large case is 400
 * savepoints, or the number in the system property {@code keepsake.test.lookup.savepoints}
 * (10,000 for the figures in docs).
 */
class NewestLookupCostTest {

    private static final String JOB = "88";
    private static final int LARGE = Integer.getInteger("keepsake.test.lookup.savepoints", 400);

    @TempDir
    Path dir;

    /** Commits {@code count} one-pipeline savepoints at checkpoints 1..count, eight at a time. */
    private static void plant(KeepsakeStorage storage, int count) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<SavepointHandle>> done = new ArrayList<>();
            for (int i = 1; i <= count; i++) {
                long cp = i;
                done.add(pool.submit(() -> commit(storage, String.format("sp-%05d", cp), cp, 1_000_000L + cp)));
            }
            for (Future<SavepointHandle> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        NewestMarkers.awaitTidied();
    }

    static SavepointHandle commit(KeepsakeStorage storage, String id, long checkpointId, long completedAt) {
        try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest(JOB, id, SavepointKind.MANUAL, "test",
                CheckpointWireCodec.FORMAT_NAME, completedAt - 1, Map.of()))) {
            try (OutputStream out = w.openPayload(1, checkpointId)) {
                new CheckpointWireCodec().encode(TestCheckpoints.of(88, 1, checkpointId, CheckpointType.SAVEPOINT_TYPE),
                        out);
            }
            return w.commit(completedAt);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a lookup asked of the file system: listings, the entries they returned, files opened, status calls. */
    private record Calls(long listings, long listed, long opens, long stats) {
        static Calls of(CallCountingFileSystem fs) {
            return new Calls(fs.count("list"), fs.listedEntries(), fs.count("open"), fs.count("stat"));
        }

        Calls minus(Calls before) {
            return new Calls(listings - before.listings, listed - before.listed, opens - before.opens,
                    stats - before.stats);
        }

        boolean atMostTwiceOf(Calls small) {
            return listings <= 2 * small.listings && listed <= 2 * small.listed && opens <= 2 * small.opens
                    && stats <= 2 * small.stats;
        }
    }

    /** What one recovery and one lookup cost, and what they found. */
    private record Cost(Calls recover, Calls lookup) {
    }

    private static Cost measure(CallCountingFileSystem fs, KeepsakeStorage storage, int newest) {
        Calls before = Calls.of(fs);
        RestoredState r = new SavepointRestorer(storage).recoverLatest(JOB);
        Calls recover = Calls.of(fs).minus(before);
        assertThat(r.checkpoints().get(1).checkpointId()).as("recovered checkpoint").isEqualTo(newest);
        before = Calls.of(fs);
        Map<Integer, SavepointHandle> chosen = new NewestSavepoints(storage, JOB, (id, e) -> {
            throw e;
        }).choose(Map.of());
        Calls lookup = Calls.of(fs).minus(before);
        assertThat(chosen.get(1).savepointId()).isEqualTo(String.format("sp-%05d", newest));
        return new Cost(recover, lookup);
    }

    /** The cost with the newest folder, then (the folder deleted, as for a job written before it) with the full listing. */
    private Cost[] costWith(int count) throws Exception {
        Path root = dir.resolve("n" + count);
        CallCountingFileSystem fs = new CallCountingFileSystem(new CountingFileSystem(new LocalFileSystem(), false));
        try (KeepsakeStorage storage = KeepsakeStorage.open(fs, root.toString(), null)) {
            plant(storage, count);
            Cost markers = measure(fs, storage, count);
            deleteTree(root.resolve("savepoint").resolve(JOB).resolve(NewestMarkers.DIR));
            Cost listing = measure(fs, storage, count);
            System.out.printf("lookup cost, %d savepoints: recoverLatest %s, newest lookup %s; full listing:"
                    + " recoverLatest %s, newest lookup %s%n", count, markers.recover(), markers.lookup(),
                    listing.recover(), listing.lookup());
            return new Cost[] {markers, listing};
        }
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }

    /**
     * With many savepoints, recovery and the newest lookup ask at most twice what they ask with
     * ten (listings, entries listed, files opened, status calls); without the newest folder (a job
     * written before it existed) they list every savepoint, so the entries listed grow with their
     * number, and the answer is the same.
     */
    @Test
    void lookupWithManySavepointsCostsAtMostTwiceOfTen() throws Exception {
        Cost[] small = costWith(10);
        Cost[] large = costWith(LARGE);
        assertThat(large[0].recover().atMostTwiceOf(small[0].recover()))
                .as("recoverLatest: %s savepoints %s vs 10 savepoints %s", LARGE, large[0].recover(), small[0].recover())
                .isTrue();
        assertThat(large[0].lookup().atMostTwiceOf(small[0].lookup()))
                .as("newest lookup: %s savepoints %s vs 10 savepoints %s", LARGE, large[0].lookup(), small[0].lookup())
                .isTrue();
        assertThat(large[1].recover().listed()).as("full listing").isGreaterThan(2 * small[1].recover().listed());
    }
}
