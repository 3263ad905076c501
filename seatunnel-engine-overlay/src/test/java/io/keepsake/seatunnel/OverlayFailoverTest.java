package io.keepsake.seatunnel;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.internal.NewestMarkers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master failover in the middle of a job savepoint, with the overlay: two SeaTunnel 2.3.8 members
 * in child JVMs ({@link EngineCluster}; the overlay's classes come first on their class path, as in
 * the test JVM) share one namespace on the local disk through the test-only storage
 * {@code keepsake-test} ({@link FaultyKeepsakeFactory}). A streaming job of two pipelines runs; the
 * test asks {@code -s}, the master's storage hangs at one step of the savepoint (the hang fires once
 * over the cluster: the survivor saves normally), the test waits for the hang (and, between the
 * reports, for pipeline 1's "reached savepoint" line) and SIGKILLs the master there:
 * <ul>
 *   <li>{@code hang-payload-2}: pipeline 1 reported into the job's session and reached its savepoint,
 *   the first write of pipeline 2's payload hangs: between the two pipelines' reports;</li>
 *   <li>{@code hang-commit-2}: both payloads staged, {@code _metadata.ser} being created: the bundle
 *   is being published;</li>
 *   <li>{@code hang-rename-2} (profile {@code overlay-long}): every file staged and synced, the staging
 *   folder's rename onto the savepoint's name under way.</li>
 * </ul>
 * A thread in the test JVM scans the job's savepoint folder throughout ({@link BundleWatch}): every
 * folder it ever sees must be a complete savepoint of both pipelines that verifies. After the kill
 * nothing is listed; the survivor becomes master, takes the job over and both pipelines checkpoint
 * again (the job's status over the take-over is recorded, not asserted; a pipeline the engine leaves
 * without tasks is recorded instead, see {@link #stalledAfterTheTakeOver}); the survivor's {@code -s}
 * keeps exactly one bundle, of both pipelines, that verifies; a gc with the members' lease
 * ({@value #LEASE_MILLIS} ms) then leaves nothing under {@code .staging}, no folder that is not a
 * complete savepoint, and no hidden checkpoint file in the job's checkpoint folder.
 */
class OverlayFailoverTest {

    private static final Duration WAIT = Duration.ofMinutes(3);
    /** The members' lease: a member starved of CPU on a loaded 2-core machine still renews in time. */
    private static final String LEASE_MILLIS = "5000";
    /** Checkpoints of one pipeline after the take-over without one of the other: the other is stalled. */
    private static final int STALL_AFTER = 20;

    /** In the default build: the kill between the two pipelines' reports (one cluster, 25-50 s). */
    @Test
    void masterKilledBetweenThePipelinesReports(@TempDir Path dir) throws Exception {
        failover(dir, "hang-payload-2", 1);
    }

    /** In the default build: the kill while the bundle is published, {@code _metadata.ser} being created (25-35 s). */
    @Test
    void masterKilledWhilePublishingTheBundle(@TempDir Path dir) throws Exception {
        failover(dir, "hang-commit-2", 1);
    }

    /**
     * Profile {@code overlay-long}: each kill point again on a fresh cluster, the kill at the staging
     * folder's rename onto the savepoint's name ({@code _metadata.ser} written and synced), and the kill
     * at {@code _metadata.ser} once the master received the end of a task group of the pipeline whose
     * commit hangs.
     */
    @ParameterizedTest(name = "{0} run {1}")
    @CsvSource({"hang-payload-2,2", "hang-commit-2,2", "hang-rename-2,1", "hang-rename-2,2",
            "hang-commit-2+tasks-ended,1"})
    @EnabledIfSystemProperty(named = "keepsake.overlay.long", matches = "true")
    void masterKilledAtEachStepOfTheJobSavepoint(String fault, int run, @TempDir Path dir) throws Exception {
        failover(dir, fault, run);
    }

    /**
     * {@code fault} is the storage's {@code test.fault}; with {@code +tasks-ended} the kill also waits
     * until the dead master's log received the end of a task group of the pipeline whose commit hangs.
     */
    private static void failover(Path dir, String fault, int run) throws Exception {
        long t0 = System.nanoTime();
        boolean tasksEnded = fault.endsWith("+tasks-ended");
        String storageFault = fault.replace("+tasks-ended", "");
        String label = "overlay failover (" + fault + ", run " + run + ")";
        Path conf = Jobs.streamingWithProgress(dir, "overlay-failover", 2, 1000);
        Path logs = Path.of("target", "cluster", "overlay-" + fault + "-" + System.currentTimeMillis()).toAbsolutePath();
        Map<String, String> lease = Map.of(StorageOptions.LEASE_TIMEOUT, LEASE_MILLIS);
        try (SharedBackend ns = SharedBackend.start("localfile", dir);
             EngineCluster cluster = EngineCluster.start(logs, FaultyKeepsakeFactory.IDENTIFIER,
                     ns.pluginConfig(Map.of("test.fault", storageFault, "test.fault.once", dir.resolve("hang-claimed").toString(),
                             StorageOptions.LEASE_TIMEOUT, LEASE_MILLIS)), 10)) {
            Path namespace = ns.localNamespace().orElseThrow();
            EmbeddedEngine client = cluster.client();
            long jobId = client.submitRunning(conf, WAIT);
            ClusterSteps.awaitCheckpointsWithProgress(ns, jobId, 2, WAIT);
            Path jobSavepoints = namespace.resolve("savepoint").resolve(Long.toString(jobId));
            boolean stalledCase = false;

            try (BundleWatch watch = BundleWatch.start(ns, jobId)) {
                EngineCluster.Member master = cluster.master();
                EngineCluster.Member survivor = cluster.otherThan(master);
                // The engine's answer to -s may wait for the savepoint: asked off the test's thread.
                CompletableFuture<Void> asked = CompletableFuture.runAsync(() -> client.requestSavepoint(jobId));
                String hungAt = awaitPrefix(master, "HANG ", WAIT).substring(5).trim();
                if (tasksEnded) {
                    java.util.regex.Matcher waiting = java.util.regex.Pattern.compile("Job " + jobId
                            + " pipeline \\d+ reached savepoint \\S+; waiting for pipelines \\[(\\d+)]")
                            .matcher(read(master.pluginLog()));
                    assertThat(waiting.find()).as("one pipeline reached the savepoint before the last one").isTrue();
                    String last = "jobId=" + jobId + ", pipelineId=" + waiting.group(1) + ",";
                    EmbeddedEngine.await("the master to receive the end of a task group of pipeline " + waiting.group(1),
                            WAIT, () -> read(master.engineLog()).lines().anyMatch(l -> l.contains("Received task end")
                                    && l.contains(last) && l.contains("state FINISHED")));
                }
                if (storageFault.equals("hang-payload-2")) {
                    EmbeddedEngine.await("the master's log to say pipeline 1 reached the savepoint", WAIT,
                            () -> read(master.pluginLog()).contains("Job " + jobId + " pipeline 1 reached savepoint"));
                }
                long killed = EngineCluster.kill(master);
                // the payload's or _metadata.ser's folder, or the folder being renamed
                Path attempt = storageFault.equals("hang-rename-2") ? Path.of(hungAt) : Path.of(hungAt).getParent();
                assertThat(attempt.getParent()).as("the hang was in the job's staging").isEqualTo(
                        jobSavepoints.resolve(".staging"));
                List<String> staged = names(attempt);
                Figures.record(label + ": the dead master's attempt held", staged);
                assertThat(staged).as("pipeline 1's payload was staged").anyMatch(n -> n.startsWith("pipeline-1"));
                assertThat(ns.savepoints().list(jobId)).as("nothing of the killed savepoint is listed").isEmpty();
                Map<Integer, Long> atKill = ns.newestCheckpointIds(jobId);
                Figures.record(label + ": each pipeline's newest checkpoint file at the kill", atKill);
                Figures.record(label + ": the killed master's -s call", asked.handle((v, e) -> e == null ? "returned"
                        : "failed: " + e.getCause()).getNow("had not returned"));

                EngineCluster.awaitLine(survivor, "CLUSTER size=1 master=true", WAIT);
                long switched = System.nanoTime();
                List<String> statuses = new ArrayList<>();
                Set<Integer> stalled = new java.util.TreeSet<>();
                // A pipeline that checkpoints no more while its peer checkpoints STALL_AFTER times is stalled.
                EmbeddedEngine.await("each pipeline to checkpoint after the take-over (or to stall)", WAIT, () -> {
                    String status = ClusterFailoverTest.statusOrNull(client, jobId);
                    if (status != null && (statuses.isEmpty() || !statuses.get(statuses.size() - 1).equals(status))) {
                        statuses.add(status);
                    }
                    Map<Integer, Long> now = ns.newestCheckpointIds(jobId);
                    Set<Integer> on = new java.util.TreeSet<>();
                    atKill.forEach((p, id) -> {
                        if (now.getOrDefault(p, -1L) > id) {
                            on.add(p);
                        }
                    });
                    boolean peerWentOn = on.stream().anyMatch(q -> now.get(q) - atKill.get(q) >= STALL_AFTER);
                    atKill.keySet().stream().filter(p -> !on.contains(p) && peerWentOn).forEach(stalled::add);
                    return on.size() + stalled.size() == atKill.size();
                });
                long checkpointing = System.nanoTime();
                Figures.record(label + ": the job's status from the take-over to the first new checkpoints", statuses);
                Figures.record(label + ": SIGKILL -> survivor master, ms", (switched - killed) / 1_000_000);
                Figures.record(label + ": SIGKILL -> a new checkpoint of both pipelines (or a stall), ms",
                        (checkpointing - killed) / 1_000_000);
                if (!stalled.isEmpty()) {
                    stalledAfterTheTakeOver(label, client, ns, jobId, stalled, atKill, watch);
                    stalledCase = true;
                } else {
                    // The survivor found the job in DOING_SAVEPOINT, the lost master's savepoint gone with it: it
                    // says so and puts the job back to RUNNING (the released engine leaves DOING_SAVEPOINT).
                    client.awaitStatus(jobId, "RUNNING", WAIT);
                    assertThat(read(survivor.pluginLog())).contains("Job " + jobId + " was taken over by this engine"
                            + " member while a savepoint of it was in progress on the member that was lost");
                    long s = System.nanoTime();
                    client.savepoint(jobId);
                    Figures.record(label + ": the survivor's -s -> SAVEPOINT_DONE, ms", KeepsakePluginScenariosTest.millisSince(s));
                    List<SavepointHandle> listed = ns.savepoints().list(jobId);
                    assertThat(listed).as("the survivor's -s keeps one bundle").hasSize(1);
                    SavepointHandle bundle = listed.get(0);
                    assertThat(bundle.meta().manifest()).extracting(ManifestEntry::pipelineId).containsExactlyInAnyOrder(1, 2);
                    Map<Integer, CompletedCheckpoint> read = ns.savepoints().verify(bundle);
                    assertThat(read).containsOnlyKeys(1, 2);
                    read.forEach((p, c) -> assertThat(c.checkpointId()).as("pipeline %s's savepoint", p)
                            .isGreaterThan(atKill.get(p)));
                    assertThat(read(survivor.pluginLog())).contains("Committed savepoint " + bundle.savepointId()
                            + " of job " + jobId + " with pipelines [1, 2]");

                    watch.requireOnlyWholeBundles(Set.of(1, 2));
                    Figures.record(label + ": scans of the job's savepoint folder from the kill's -s to the survivor's"
                            + " bundle, none showing a half bundle", watch.scans());
                }
            }

            // keepsake gc with the members' lease, from another process than the members.
            long g = System.nanoTime();
            List<String> removed = new ArrayList<>();
            Path checkpoints = namespace.resolve(Long.toString(jobId));
            try (CheckpointStorage storage = ns.open(lease)) {
                SavepointStorage savepoints = (SavepointStorage) storage;
                EmbeddedEngine.await("a gc to collect what the killed master left", WAIT, () -> {
                    removed.addAll(savepoints.collectGarbage(Duration.ZERO).deleted());
                    return names(jobSavepoints.resolve(".staging")).isEmpty() && hidden(checkpoints).isEmpty();
                });
                List<SavepointEntry> entries = savepoints.scanSavepoints(Long.toString(jobId));
                assertThat(entries).as("every folder left is a complete savepoint").allSatisfy(e ->
                        assertThat(e.handle()).as(e.savepointId() + ": " + e.problem()).isPresent());
                assertThat(names(jobSavepoints).stream()
                        .filter(n -> !n.equals(".staging") && !n.equals(".index") && !n.equals(NewestMarkers.DIR)))
                        .as("no orphan folder beside the bundle")
                        .containsExactlyInAnyOrderElementsOf(entries.stream().map(SavepointEntry::savepointId).toList());
                List<String> markers = names(jobSavepoints.resolve(".index"));
                Figures.record(label + ": index markers after gc", markers);
                assertThat(markers).as("one index marker per savepoint kept").hasSameSizeAs(entries);
                assertThat(entries).hasSize(stalledCase ? entries.size() : 1).allSatisfy(e -> assertThat(SavepointReaderRegistry.standard()
                        .read(savepoints, e.handle().orElseThrow())).containsOnlyKeys(1, 2));
            }
            Figures.record(label + ": gc removed", removed);
            Figures.record(label + ": gc after the survivor's savepoint, ms", KeepsakePluginScenariosTest.millisSince(g));
            assertThat(removed).as("gc removed the dead attempt").isNotEmpty();
        }
        Figures.record(label + ": whole case, ms", KeepsakePluginScenariosTest.millisSince(t0));
    }

    /**
     * The engine did not restart a pipeline after the take-over: seen in 2 of 11 runs at
     * {@code hang-commit-2}, for the pipeline whose commit hung (its coordinator had not turned SUSPEND,
     * its task groups ended FINISHED with the savepoint barrier, and the job's detail then showed that
     * pipeline FINISHED and the job DOING_SAVEPOINT) while the other pipeline checkpointed on. That is
     * the engine's take-over: what a new {@code -s} and a cancel then do is recorded (the one such run
     * with this code: {@code -s} refused with "Task not all ready, savepoint error", the job FAILED),
     * and the storage is still checked: nothing but whole bundles of both pipelines was ever listed,
     * and the gc after leaves nothing.
     */
    private static void stalledAfterTheTakeOver(String label, EmbeddedEngine client, SharedBackend ns, long jobId,
                                                Set<Integer> stalled, Map<Integer, Long> atKill, BundleWatch watch)
            throws Exception {
        Figures.record(label + ": pipelines that checkpointed no more after the take-over", stalled);
        // the engine's view of the job's pipelines (the stalled one was FINISHED when this was seen)
        String detail;
        try {
            detail = client.detail(jobId).replaceAll("\\s+", " ");
        } catch (RuntimeException e) {
            detail = "(no detail: " + e + ")";
        }
        Figures.record(label + ": the job then", ClusterFailoverTest.statusOrNull(client, jobId) + " " + detail);
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> client.requestSavepoint(jobId));
        int healthy = atKill.keySet().stream().filter(p -> !stalled.contains(p)).findFirst().orElseThrow();
        long from = ns.maxCheckpointId(jobId, healthy);
        List<String> statuses = new ArrayList<>();
        EmbeddedEngine.poll(WAIT, () -> {
            String status = ClusterFailoverTest.statusOrNull(client, jobId);
            if (status != null && (statuses.isEmpty() || !statuses.get(statuses.size() - 1).equals(status))) {
                statuses.add(status);
            }
            return EmbeddedEngine.END_STATES.contains(status) || ns.maxCheckpointId(jobId, healthy) >= from + 60;
        });
        Figures.record(label + ": a second -s: the call", second.handle((v, e) -> e == null ? "returned"
                : "failed: " + e.getCause()).getNow("had not returned"));
        Figures.record(label + ": a second -s: the job's statuses until it ended or 60 checkpoints of pipeline "
                + healthy, statuses);
        Figures.record(label + ": a second -s: savepoints listed", ns.savepoints().list(jobId).stream()
                .map(h -> h.savepointId() + " " + h.meta().manifest().stream().map(ManifestEntry::pipelineId).toList())
                .toList());
        watch.requireOnlyWholeBundles(Set.of(1, 2));
        try {
            client.cancel(jobId);
            Figures.record(label + ": then cancel", "CANCELED");
        } catch (RuntimeException | AssertionError e) {
            Figures.record(label + ": then cancel", "did not end CANCELED: " + e.getMessage());
        }
    }

    /**
     * Scans the job's savepoint folder in a loop from the test JVM, through Keepsake's own local
     * backend: every folder seen must be a complete savepoint holding the job's pipelines that
     * verifies (each verified once).
     */
    static final class BundleWatch implements AutoCloseable {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicInteger scans = new AtomicInteger();
        private final List<String> seen = new CopyOnWriteArrayList<>();
        private final Thread thread;
        private final CheckpointStorage storage;
        private final long jobId;
        private volatile Set<Integer> pipelines = Set.of(1, 2);

        private BundleWatch(CheckpointStorage storage, long jobId) {
            this.storage = storage;
            this.jobId = jobId;
            this.thread = new Thread(this::loop, "overlay-bundle-watch");
            thread.setDaemon(true);
        }

        static BundleWatch start(SharedBackend ns, long jobId) throws Exception {
            BundleWatch w = new BundleWatch(ns.open(), jobId);
            w.thread.start();
            return w;
        }

        private void loop() {
            SavepointStorage savepoints = (SavepointStorage) storage;
            Set<String> verified = new HashSet<>();
            while (!stop.get()) {
                try {
                    for (SavepointEntry e : savepoints.scanSavepoints(Long.toString(jobId))) {
                        if (e.handle().isEmpty()) {
                            seen.add("folder " + e.savepointId() + " listed but not a complete savepoint: " + e.problem());
                            continue;
                        }
                        SavepointHandle h = e.handle().get();
                        Set<Integer> in = new java.util.TreeSet<>();
                        h.meta().manifest().forEach(m -> in.add(m.pipelineId()));
                        if (!in.equals(pipelines)) {
                            seen.add("savepoint " + h.savepointId() + " listed with pipelines " + in);
                        }
                        if (verified.add(h.savepointId())) {
                            SavepointReaderRegistry.standard().read(savepoints, h);
                        }
                    }
                } catch (RuntimeException e) {
                    seen.add("scan failed: " + e);
                }
                scans.incrementAndGet();
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            }
        }

        int scans() {
            return scans.get();
        }

        void requireOnlyWholeBundles(Set<Integer> expected) {
            pipelines = expected;
            int at = scans.get();
            EmbeddedEngine.await("another scan of the savepoint folder", WAIT, () -> scans.get() > at + 1);
            assertThat(seen).as("what the scans of the job's savepoint folder saw").isEmpty();
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            thread.join(Duration.ofSeconds(30).toMillis());
            storage.close();
        }
    }

    private static String awaitPrefix(EngineCluster.Member member, String prefix, Duration wait) {
        String[] line = {null};
        EmbeddedEngine.await("member " + member.name() + " to print " + prefix, wait, () -> {
            for (String l : member.lines()) {
                if (l.startsWith(prefix)) {
                    line[0] = l;
                    return true;
                }
            }
            if (!member.process().isAlive()) {
                throw new AssertionError("Member " + member.name() + " died before printing " + prefix);
            }
            return false;
        });
        return line[0];
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The names in a folder; empty when it is gone. */
    private static List<String> names(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The hidden (temporary) files in the job's checkpoint folder. */
    private static List<String> hidden(Path dir) {
        return names(dir).stream().filter(n -> n.startsWith(".")).toList();
    }
}
