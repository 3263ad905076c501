package io.keepsake.storage.azure;

import io.keepsake.fixtures.tck.ChildJvm;
import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Racing commits of one savepoint id on Azurite, published by a conditional
 * create of {@code _metadata.ser}: threads of one JVM released together by a barrier before each
 * commit, and two JVMs committing the same ids in the same order; every race has exactly one
 * winner, and the savepoint that reads back is the winner's.
 */
class AzureCommitRaceTest {

    /** Races per test: 25 unless {@code keepsake.azure.races} says otherwise. */
    private static final int RACES = Integer.getInteger("keepsake.azure.races", 25);

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    @TempDir
    Path scratch;

    private static StorageTarget target(String name) {
        return new StorageTarget("azure", azurite.keys(AzuritePerTestClass.freshDirectory(name) + "/ns"));
    }

    private static String writerOf(SavepointStorage s, String id) {
        return s.readSavepoint("1001", id).handle().meta().properties().get("writer");
    }

    @Test
    void threadsRacingForOneIdHaveExactlyOneWinnerEachTime() throws Exception {
        StorageTarget target = target("race-threads");
        int threads = 3;
        try (CheckpointStorage a = target.open(); CheckpointStorage b = target.open()) {
            List<SavepointStorage> views = List.of(StorageTarget.savepoints(a), StorageTarget.savepoints(b));
            CyclicBarrier barrier = new CyclicBarrier(threads);
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<List<String>>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    SavepointStorage s = views.get(t % views.size());
                    String tag = "thread-" + t;
                    futures.add(pool.submit(() -> {
                        List<String> won = new ArrayList<>();
                        for (int i = 0; i < RACES; i++) {
                            barrier.await(5, TimeUnit.MINUTES);
                            try {
                                if (RaceChild.commit(s, "race-" + i, tag)) {
                                    won.add("race-" + i);
                                }
                            } catch (Exception e) {
                                // recorded and the race goes on, so the other threads are not left at the barrier
                                failures.add(new AssertionError(tag + " in race-" + i + ": " + e, e));
                            }
                        }
                        return won;
                    }));
                }
                Map<String, String> winners = new HashMap<>();
                List<String> doubles = new ArrayList<>();
                List<Throwable> errors = new ArrayList<>();
                for (Future<List<String>> f : futures) {
                    try {
                        f.get(10, TimeUnit.MINUTES);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof BrokenBarrierException)) {
                            errors.add(e.getCause());
                        }
                    }
                }
                errors.addAll(failures);
                if (!errors.isEmpty()) {
                    throw new AssertionError("a racing thread failed: " + errors + "; threads: " + poolStacks(),
                            errors.get(0));
                }
                for (int t = 0; t < threads; t++) {
                    for (String id : futures.get(t).get(10, TimeUnit.MINUTES)) {
                        String before = winners.put(id, "thread-" + t);
                        if (before != null) {
                            doubles.add(id + " won by " + before + " and thread-" + t);
                        }
                    }
                }
                assertThat(doubles).as("races with two winners").isEmpty();
                assertThat(winners).as("races with a winner").hasSize(RACES);
                for (Map.Entry<String, String> w : winners.entrySet()) {
                    assertThat(writerOf(views.get(0), w.getKey())).as(w.getKey()).isEqualTo(w.getValue());
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void twoJvmsRacingForTheSameIdsHaveExactlyOneWinnerEachTime() throws Exception {
        StorageTarget target = target("race-jvms");
        Path targetFile = scratch.resolve("target.properties");
        target.save(targetFile);
        List<Process> processes = new ArrayList<>();
        List<BufferedReader> outputs = new ArrayList<>();
        try {
            for (String tag : List.of("jvm-a", "jvm-b")) {
                Path stderr = scratch.resolve(tag + ".err");
                Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", ChildJvm.testClassPath(), RaceChild.class.getName(), targetFile.toString(), tag,
                        Integer.toString(RACES)).redirectError(stderr.toFile()).start();
                processes.add(p);
                outputs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (int i = 0; i < 2; i++) {
                assertThat(outputs.get(i).readLine()).as("child %d: %s", i, stderrOf(i)).isEqualTo("READY");
            }
            for (Process p : processes) {
                OutputStream in = p.getOutputStream();
                in.write('\n');
                in.flush();
            }
            Map<String, String> winners = new HashMap<>();
            List<String> doubles = new ArrayList<>();
            int lost = 0;
            for (int i = 0; i < 2; i++) {
                String tag = i == 0 ? "jvm-a" : "jvm-b";
                String line;
                while ((line = outputs.get(i).readLine()) != null && !line.equals("DONE")) {
                    if (line.startsWith("WON ")) {
                        String before = winners.put(line.substring(4), tag);
                        if (before != null) {
                            doubles.add(line.substring(4) + " won by " + before + " and " + tag);
                        }
                    } else if (line.startsWith("LOST ")) {
                        lost++;
                    }
                }
                assertThat(line).as("child %s finished: %s", tag, stderrOf(i)).isEqualTo("DONE");
                assertThat(processes.get(i).waitFor(1, TimeUnit.MINUTES)).isTrue();
            }
            assertThat(doubles).as("races with two winners").isEmpty();
            assertThat(winners).as("races with a winner").hasSize(RACES);
            assertThat(lost).as("races lost").isEqualTo(RACES);
            try (CheckpointStorage s = target.open()) {
                for (Map.Entry<String, String> w : winners.entrySet()) {
                    assertThat(writerOf(StorageTarget.savepoints(s), w.getKey())).as(w.getKey()).isEqualTo(w.getValue());
                }
            }
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
            }
        }
    }

    /** The stacks of the racing threads still alive, for a failure message. */
    private static String poolStacks() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().startsWith("pool-")) {
                b.append("\n").append(t.getName()).append(":");
                for (StackTraceElement e : stack) {
                    b.append("\n  at ").append(e);
                }
            }
        });
        return b.toString();
    }

    private String stderrOf(int i) {
        try {
            Path p = scratch.resolve((i == 0 ? "jvm-a" : "jvm-b") + ".err");
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
