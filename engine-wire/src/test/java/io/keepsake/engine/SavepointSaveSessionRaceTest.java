package io.keepsake.engine;

import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointWriter;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Opens of one job's session that race never throw anything but
 * {@link SavepointInProgressException}, whose message names the session in progress.
 */
class SavepointSaveSessionRaceTest {

    private static final int THREADS = 8;
    private static final int ROUNDS = 200;

    /**
     * A storage whose {@code beginSavepoint} waits until every other racer of the round has tried
     * to open: the winner is published in the single-flight map but has no writer yet, the exact
     * window in which a loser builds its "in progress" message.
     */
    private static SavepointStorage storage(CountDownLatch[] othersTried) {
        return (SavepointStorage) Proxy.newProxyInstance(SavepointStorage.class.getClassLoader(),
                new Class<?>[] {SavepointStorage.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "savepointRoot" -> "/race-root";
                    case "periodicMaxRetained" -> 0;
                    case "beginSavepoint" -> {
                        othersTried[0].await(30, TimeUnit.SECONDS);
                        yield writer((SavepointRequest) args[0]);
                    }
                    case "toString" -> "race storage";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static SavepointWriter writer(SavepointRequest request) {
        return (SavepointWriter) Proxy.newProxyInstance(SavepointWriter.class.getClassLoader(),
                new Class<?>[] {SavepointWriter.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "request" -> request;
                    case "abort", "close" -> null;
                    case "toString" -> "race writer";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void racingOpensGiveOnlyInProgressErrorsNamingTheWinner() throws Exception {
        CountDownLatch[] othersTried = {new CountDownLatch(THREADS - 1)};
        SavepointStorage storage = storage(othersTried);
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicInteger opened = new AtomicInteger();
        AtomicInteger inProgress = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(THREADS, () -> othersTried[0] = new CountDownLatch(THREADS - 1));
        CyclicBarrier end = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            Thread thread = new Thread(() -> {
                try {
                    for (int round = 0; round < ROUNDS; round++) {
                        start.await(60, TimeUnit.SECONDS);
                        CountDownLatch tried = othersTried[0];
                        SavepointSaveSession session = null;
                        try {
                            session = SavepointSaveSession.builder(storage, "1", Set.of(1))
                                    .savepointId("sp-" + round + "-" + id).open();
                            opened.incrementAndGet();
                        } catch (SavepointInProgressException e) {
                            inProgress.incrementAndGet();
                            if (!e.getMessage().matches(".*savepoint sp-" + round + "-\\d+ of this job is still in progress.*")) {
                                unexpected.add(e);
                            }
                            tried.countDown();
                        } catch (Throwable e) {
                            unexpected.add(e);
                            tried.countDown();
                        }
                        end.await(60, TimeUnit.SECONDS);
                        if (session != null) {
                            session.close();
                        }
                    }
                } catch (Exception e) {
                    unexpected.add(e);
                }
            }, "opener-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.MINUTES.toMillis(5));
            assertThat(thread.isAlive()).as(thread.getName() + " finished").isFalse();
        }
        assertThat(unexpected).isEmpty();
        assertThat(opened.get()).isEqualTo(ROUNDS);
        assertThat(inProgress.get()).isEqualTo(ROUNDS * (THREADS - 1));
    }
}
