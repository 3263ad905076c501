package io.keepsake.seatunnel;

import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.internal.LegacyCheckpointFiles;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two failures of SeaTunnel 2.3.8's checkpointing that are still open upstream, on the released
 * engine, each with SeaTunnel's own {@code localfile} plugin as the control and then with Keepsake:
 * <ul>
 *   <li>checkpoint files piling up past {@code max-retained} once the engine's checkpoint coordinator
 *   is created anew (here by {@code -s} then {@code -r}; a master failover does the same): the new
 *   coordinator rotates only the ids it completed itself;</li>
 *   <li>a damaged newest checkpoint file at a restore ({@code -s}, bytes of the newest {@code .ser}
 *   flipped, {@code -r}).</li>
 * </ul>
 */
class UpstreamCheckpointFailuresTest extends WithEmbeddedEngine {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int MAX_RETAINED = 2;

    /** What a run through {@code -s}, {@code -r} and two rotations of the new coordinator left. */
    private record Rotation(long jobId, long savepointId, Set<Long> firstRun, Set<Long> afterTwoRotations) {
    }

    /**
     * Runs a job to its fourth checkpoint, stops it with a savepoint, restores it and waits until the new
     * coordinator rotated twice (with max-retained 2, SeaTunnel 2.3.8 deletes the oldest two of four
     * completed ids: the restore's first id is gone after its fourth, its third after its sixth).
     */
    private static Rotation saveRestoreAndRotateTwice(Path dir, Namespace ns, String storage, Map<String, String> config)
            throws Exception {
        engine.useStorage(storage, config, MAX_RETAINED);
        Path conf = Jobs.streaming(dir, "rotation-" + storage, 1, 1000);
        long jobId = engine.submitRunning(conf, WAIT);
        EmbeddedEngine.await("four checkpoints", WAIT, () -> newest(ns, jobId) >= 4);
        engine.savepoint(jobId);
        long savepointId = newest(ns, jobId);
        Set<Long> firstRun = ids(ns, jobId);
        assertThat(firstRun).contains(savepointId);

        engine.restoreRunning(conf, jobId, WAIT);
        EmbeddedEngine.await("two rotations of the restored job's coordinator", WAIT, () -> {
            Set<Long> now = ids(ns, jobId);
            return newest(ns, jobId) >= savepointId + 6 && !now.contains(savepointId + 1)
                    && !now.contains(savepointId + 3);
        });
        return new Rotation(jobId, savepointId, firstRun, ids(ns, jobId));
    }

    /** Pipeline 1's checkpoint ids, from the file names alone (a damaged file is listed too). */
    private static Set<Long> ids(Namespace ns, long jobId) {
        Set<Long> ids = new TreeSet<>();
        if (!Files.isDirectory(ns.jobDir(jobId))) {
            return ids;
        }
        try (Stream<Path> files = Files.list(ns.jobDir(jobId))) {
            files.map(f -> LegacyCheckpointFiles.parse(f.getFileName().toString())).flatMap(Optional::stream)
                    .filter(n -> n.pipelineId() == 1).forEach(n -> ids.add(n.checkpointId()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ids;
    }

    private static long newest(Namespace ns, long jobId) {
        return ids(ns, jobId).stream().mapToLong(Long::longValue).max().orElse(-1);
    }

    @Test
    void seatunnelsLocalfileKeepsTheFirstRunsCheckpointsForEverAfterARestore(@TempDir Path dir) throws Exception {
        long t0 = System.nanoTime();
        Namespace ns = new Namespace(dir.resolve("ns"));
        Rotation r = saveRestoreAndRotateTwice(dir, ns, "localfile", Map.of("namespace", ns.root() + "/"));
        Figures.record("coordinator created anew, localfile: first run's files " + r.firstRun()
                + ", after two rotations of the restored job", r.afterTwoRotations());
        assertThat(r.afterTwoRotations()).as("the first run's files stay: the new coordinator never rotates them")
                .containsAll(r.firstRun());
        assertThat(r.afterTwoRotations()).as("more files than max-retained %s allows", MAX_RETAINED)
                .hasSizeGreaterThan(2 * MAX_RETAINED);
        engine.cancel(r.jobId());
        Figures.record("coordinator created anew, localfile control, ms", KeepsakePluginScenariosTest.millisSince(t0));
    }

    @Test
    void keepsakeRemovesTheFirstRunsCheckpointsOnceTheRestoredJobRotatesAndKeepsTheSavepoint(@TempDir Path dir)
            throws Exception {
        long t0 = System.nanoTime();
        Namespace ns = new Namespace(dir.resolve("ns"));
        Rotation r = saveRestoreAndRotateTwice(dir, ns, "keepsake", Map.of("namespace", ns.root().toString()));
        Figures.record("coordinator created anew, keepsake: first run's files " + r.firstRun()
                + ", after two rotations of the restored job", r.afterTwoRotations());
        assertThat(r.afterTwoRotations()).as("no file of the first run is left").doesNotContainAnyElementsOf(r.firstRun());
        assertThat(r.afterTwoRotations()).as("at most what the engine's rotation keeps").hasSizeLessThanOrEqualTo(2 * MAX_RETAINED);
        assertThat(PluginLog.text()).contains("of job " + r.jobId() + " pipeline 1: older than the checkpoints the"
                + " engine rotated away");
        Savepoints savepoints = Savepoints.local(ns);
        List<SavepointHandle> kept = savepoints.list(r.jobId());
        assertThat(kept).as("the savepoint's bundle stays").singleElement()
                .satisfies(h -> assertThat(h.savepointId()).isEqualTo(KeepsakeCheckpointStorage.savepointId(r.savepointId(), 1)));
        assertThat(savepoints.verify(kept.get(0))).containsOnlyKeys(1);
        engine.cancel(r.jobId());
        Figures.record("coordinator created anew, keepsake, ms", KeepsakePluginScenariosTest.millisSince(t0));
    }

    /** What a restore after a damaged newest checkpoint file met. */
    private record DamagedRestore(long jobId, long savepointId, Path damaged, Path conf) {
    }

    /** Runs a job to its third checkpoint, stops it with a savepoint and flips 16 bytes in the middle of the savepoint's {@code .ser}. */
    private static DamagedRestore saveAndDamageTheNewestFile(Path dir, Namespace ns, String storage,
                                                             Map<String, String> config) throws Exception {
        engine.useStorage(storage, config, 5);
        Path conf = Jobs.streaming(dir, "damaged-" + storage, 1, 1000);
        long jobId = engine.submitRunning(conf, WAIT);
        EmbeddedEngine.await("three checkpoints", WAIT, () -> newest(ns, jobId) >= 3);
        engine.savepoint(jobId);
        Namespace.CheckpointFile newest = ns.checkpoints(jobId).get(ns.checkpoints(jobId).size() - 1);
        assertThat(newest.type()).isEqualTo(io.keepsake.engine.CheckpointType.SAVEPOINT_TYPE);
        byte[] bytes = Files.readAllBytes(newest.path());
        for (int i = bytes.length / 2; i < bytes.length / 2 + 16; i++) {
            bytes[i] ^= (byte) 0xFF;
        }
        Files.write(newest.path(), bytes);
        assertThatThrownBy(() -> LegacyCheckpointCodec.decodeFile(Files.readAllBytes(newest.path()), newest.path().toString()))
                .as("the flipped bytes damage the file").isInstanceOf(CheckpointCorruptedException.class);
        return new DamagedRestore(jobId, newest.checkpointId(), newest.path(), conf);
    }

    @Test
    void seatunnelsLocalfileRestoresTheDamagedNewestFileSilentlyAndStartsATaskWithoutItsState(@TempDir Path dir) throws Exception {
        long t0 = System.nanoTime();
        Namespace ns = new Namespace(dir.resolve("ns"));
        DamagedRestore d = saveAndDamageTheNewestFile(dir, ns, "localfile", Map.of("namespace", ns.root() + "/"));
        Throwable refused = null;
        try {
            engine.restoreOnce(d.conf(), d.jobId());
        } catch (Exception | AssertionError e) {
            refused = e;
        }
        String[] status = {null};
        EmbeddedEngine.poll(Duration.ofSeconds(30), () -> {
            status[0] = engine.status(d.jobId());
            return !"SAVEPOINT_DONE".equals(status[0]) && !"INITIALIZING".equals(status[0])
                    && !"CREATED".equals(status[0]) && !"SCHEDULED".equals(status[0]);
        });
        Figures.record("damaged newest checkpoint, localfile: restore refused", refused);
        Figures.record("damaged newest checkpoint, localfile: job status", status[0]);
        assertThat(refused).as("the restore is accepted").isNull();
        assertThat(status[0]).isEqualTo("RUNNING");
        EmbeddedEngine.await("a checkpoint after the restore", WAIT, () -> newest(ns, d.jobId()) > d.savepointId());
        String engineLog = Files.readString(Path.of("target", "engine-coordination.log"));
        assertThat(engineLog).as("the engine restored the damaged state")
                .contains("Restore job(1@" + d.jobId() + ") with checkpoint(" + d.savepointId() + ")");
        assertThat(engineLog).as("and started a task of it without its state, at INFO")
                .containsPattern("INFO .*Not found task\\(TaskLocation\\{taskGroupLocation=TaskGroupLocation\\{jobId="
                        + d.jobId() + ".*\\) state for key");
        assertThat(PluginLog.text()).doesNotContain(d.damaged().toString());
        engine.cancel(d.jobId());
        Figures.record("damaged newest checkpoint, localfile control, ms", KeepsakePluginScenariosTest.millisSince(t0));
    }

    @Test
    void keepsakeSkipsTheDamagedNewestFileLoudlyAndRestoresTheKeptSavepoint(@TempDir Path dir) throws Exception {
        long t0 = System.nanoTime();
        Namespace ns = new Namespace(dir.resolve("ns"));
        DamagedRestore d = saveAndDamageTheNewestFile(dir, ns, "keepsake", Map.of("namespace", ns.root().toString()));
        byte[] damaged = Files.readAllBytes(d.damaged());

        engine.restore(d.conf(), d.jobId());
        engine.awaitStatus(d.jobId(), "RUNNING", WAIT);
        EmbeddedEngine.await("a checkpoint after the restore", WAIT, () -> newest(ns, d.jobId()) > d.savepointId());
        assertThat(ids(ns, d.jobId())).as("ids continue from the savepoint's: its state was restored, not an older one")
                .contains(d.savepointId() + 1);
        String log = PluginLog.text();
        assertThat(log).as("the damaged file is named at ERROR")
                .containsPattern("ERROR .*Skipped checkpoint file " + java.util.regex.Pattern.quote(d.damaged().toString())
                        + " of job " + d.jobId() + " pipeline 1");
        assertThat(log).contains("Job " + d.jobId() + " pipeline 1: newest state is savepoint "
                + KeepsakeCheckpointStorage.savepointId(d.savepointId(), 1));
        assertThat(Files.readAllBytes(d.damaged())).as("the damaged file stays as it was").isEqualTo(damaged);
        engine.cancel(d.jobId());
        Figures.record("damaged newest checkpoint, keepsake, ms", KeepsakePluginScenariosTest.millisSince(t0));
    }
}
