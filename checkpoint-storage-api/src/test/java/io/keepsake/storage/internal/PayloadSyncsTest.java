package io.keepsake.storage.internal;

import io.keepsake.storage.spi.SyncableOutputStream;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;

import static org.assertj.core.api.Assertions.assertThat;

class PayloadSyncsTest {

    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private final List<String> lateDeletes = Collections.synchronizedList(new ArrayList<>());

    /** An executor that only queues: tasks run when the test says (or never). */
    private static final class HeldExecutor implements Executor {
        final List<Runnable> queued = new ArrayList<>();

        @Override
        public void execute(Runnable task) {
            queued.add(task);
        }

        void runAll() {
            queued.forEach(Runnable::run);
        }
    }

    /** A stream that records its sync and close, failing or holding its sync when told. */
    private final class RecordingStream extends SyncableOutputStream {
        final String name;
        final boolean failSync;
        final CountDownLatch syncStarted = new CountDownLatch(1);
        final CountDownLatch release;

        RecordingStream(String name, boolean failSync, CountDownLatch release) {
            this.name = name;
            this.failSync = failSync;
            this.release = release;
        }

        @Override
        public void write(int b) {
            events.add("write " + name);
        }

        @Override
        public void sync() throws IOException {
            syncStarted.countDown();
            if (release != null) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
            }
            if (failSync) {
                throw new IOException("disk full (" + name + ")");
            }
            events.add("sync " + name);
        }

        @Override
        public void close() {
            events.add("close " + name);
        }
    }

    private PayloadSyncs syncs(Executor executor) {
        return new PayloadSyncs(lateDeletes::add, executor);
    }

    @Test
    void eachFileIsSyncedThenClosedAndAwaitAllReportsNoFailure() throws Exception {
        PayloadSyncs syncs = syncs(Runnable::run);
        syncs.submit("/s/a", new RecordingStream("a", false, null));
        syncs.submit("/s/b", new RecordingStream("b", false, null));

        assertThat(syncs.awaitAll()).isEmpty();
        assertThat(events).containsExactly("sync a", "close a", "sync b", "close b");
    }

    @Test
    void queuedSyncsAreRunByTheWaiterOnceAndAFailureNamesItsFile() throws Exception {
        HeldExecutor pool = new HeldExecutor();
        PayloadSyncs syncs = syncs(pool);
        syncs.submit("/s/a", new RecordingStream("a", false, null));
        syncs.submit("/s/b", new RecordingStream("b", true, null));

        var failure = syncs.awaitAll();
        pool.runAll();

        assertThat(failure).hasValueSatisfying(f -> {
            assertThat(f.path()).isEqualTo("/s/b");
            assertThat(f.cause()).hasMessageContaining("disk full");
        });
        assertThat(events).containsExactly("sync a", "close a", "close b");
    }

    @Test
    void abandonClosesQueuedFilesWithoutSyncingThem() throws Exception {
        HeldExecutor pool = new HeldExecutor();
        PayloadSyncs syncs = syncs(pool);
        syncs.submit("/s/a", new RecordingStream("a", false, null));

        syncs.abandon();
        pool.runAll();

        assertThat(events).containsExactly("close a");
        assertThat(syncs.awaitAll()).hasValueSatisfying(f -> assertThat(f.path()).isEqualTo("/s/a"));
    }

    @Test
    void aFileSubmittedAfterAbandonIsClosedAtOnceWithoutSync() {
        HeldExecutor pool = new HeldExecutor();
        PayloadSyncs syncs = syncs(pool);
        syncs.abandon();

        syncs.submit("/s/late", new RecordingStream("late", false, null));

        assertThat(events).containsExactly("close late");
        assertThat(pool.queued).isEmpty();
    }

    @Test
    void abandonWaitsForASyncThatIsRunning() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingStream held = new RecordingStream("held", false, release);
        PayloadSyncs syncs = syncs(r -> new Thread(r, "test-sync").start());
        syncs.submit("/s/held", held);
        held.syncStarted.await();

        Thread abandoner = new Thread(syncs::abandon, "test-abandon");
        abandoner.start();
        while (abandoner.getState() != Thread.State.WAITING && abandoner.isAlive()) {
            Thread.yield();
        }
        assertThat(events).as("nothing closed while the sync is held").isEmpty();
        release.countDown();
        abandoner.join();

        assertThat(events).containsExactly("sync held", "close held");
        assertThat(lateDeletes).as("a sync that finished while abandon waited deletes its file").containsExactly("/s/held");
    }

    @Test
    void anInterruptedAbandonReturnsAndTheLateSyncDeletesItsFile() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingStream held = new RecordingStream("held", false, release);
        CountDownLatch finished = new CountDownLatch(1);
        PayloadSyncs syncs = new PayloadSyncs(path -> {
            lateDeletes.add(path);
            finished.countDown();
        }, r -> new Thread(r, "test-sync").start());
        syncs.submit("/s/held", held);
        held.syncStarted.await();

        Thread.currentThread().interrupt();
        syncs.abandon();
        boolean interrupted = Thread.interrupted();
        release.countDown();
        finished.await();

        assertThat(interrupted).as("the interrupt is kept for the caller").isTrue();
        assertThat(lateDeletes).containsExactly("/s/held");
        assertThat(events).containsExactly("sync held", "close held");
    }
}
