package io.keepsake.tool.internal;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.reader.RestoredState;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.CheckpointStorageFactory;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.wire.CheckpointWireCodec;
import io.keepsake.wire.LegacyCheckpointCodec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The demo's story, on the local-file backend in a fresh directory: the sequence that loses
 * savepoints in engines today (checkpoints with max-retained rotation, stop-with-savepoint,
 * upgrade, restore with the same job id, more checkpoints, finish, terminal cleanup), followed
 * by a second job that is still on SeaTunnel 2.3.x checkpoint files (what {@code keepsake migrate}
 * rewrites; the demo leaves them in place), what an operator sees and a corrupted copy being
 * caught. Every step records what it did and each check it made as {@link Event}s, in order, for
 * the caller to render; the run passes only if every check passed. The first unexpected error ends
 * the run as a failure. Not thread-safe; one run per instance.
 */
public final class DemoScenario {

    /** The demo job's id (SeaTunnel job ids are decimal longs). */
    public static final String JOB = "700000000000004242";

    /** A job that never took a savepoint: its SeaTunnel 2.3.x checkpoint files stay for {@code keepsake migrate}. */
    public static final String LEGACY_JOB = "700000000000004343";

    /** The checkpoint id the demo job's savepoint holds (stop-with-savepoint after checkpoint 5). */
    public static final long SAVEPOINT_CHECKPOINT = 6;

    private static final long JOB_ID = Long.parseLong(JOB);
    private static final List<Integer> PIPELINES = List.of(1, 2);
    private static final int MAX_RETAINED = 2;
    private static final int STEPS = 11;
    private static final String BACKEND = "localfile";

    private final Path workDir;
    private final Function<String[], CapturedRun> cli;
    private final Map<String, String> config;
    private final List<Event> events = new ArrayList<>();
    private int step;
    private int passed;
    private int failed;

    /** One entry of the demo's story, in the order it happened. */
    public sealed interface Event permits Started, Step, Info, Check, ToolCall, Stopped {
    }

    /** The demo begins: its job and pipelines on {@code backend}, working in {@code workDir}. */
    public record Started(String job, List<Integer> pipelines, String backend, Path workDir) implements Event {
    }

    /** Step {@code number} of {@code of} begins. */
    public record Step(int number, int of, String title) implements Event {
    }

    /** What a step did or saw. */
    public record Info(String line) implements Event {
    }

    /** A check and whether it passed. */
    public record Check(boolean ok, String what) implements Event {
    }

    /** A run of the tool's own command {@code keepsake args...} and what it printed and returned. */
    public record ToolCall(List<String> args, CapturedRun result) implements Event {
    }

    /** Step {@code step} ended by an unexpected error, a failed check that ends the run. */
    public record Stopped(int step, Exception error) implements Event {
    }

    /** A demo working in {@code workDir} that runs the tool's own commands through {@code cli}. */
    public DemoScenario(Path workDir, Function<String[], CapturedRun> cli) {
        this.workDir = workDir;
        this.cli = cli;
        this.config = Map.of(StorageOptions.NAMESPACE, workDir.resolve("checkpoints").toString());
    }

    /** How many checks passed so far. */
    public int passed() {
        return passed;
    }

    /** How many checks failed so far. */
    public int failed() {
        return failed;
    }

    /** What the demo did and checked so far, in order. */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** Runs every step and returns true when every check passed. */
    public boolean run() {
        events.add(new Started(JOB, PIPELINES, BACKEND, workDir));
        CheckpointStorage storage = null;
        try {
            storage = runSteps();
        } catch (Exception e) {
            failed++;
            events.add(new Stopped(step, e));
        } finally {
            if (storage != null) {
                storage.close();
            }
        }
        return failed == 0;
    }

    /** The demo's eleven steps in order; returns the storage open at the end, for the caller to close. */
    private CheckpointStorage runSteps() throws Exception {
        CheckpointStorage storage = openThroughFactory();
        runJob(storage);
        Map<Integer, CompletedCheckpoint> savepointState = expected(SAVEPOINT_CHECKPOINT, CheckpointType.SAVEPOINT_TYPE);
        SavepointHandle savepoint = stopWithSavepoint((SavepointStorage) storage, savepointState);

        begin("Upgrade: close the storage and open a new instance through the factory");
        storage.close();
        storage = CheckpointStorageFactories.find(BACKEND).create(config);
        SavepointStorage savepoints = (SavepointStorage) storage;
        check(savepoints.listSavepoints(JOB).equals(List.of(savepoint)), "the new instance lists the same savepoint");

        SavepointRestorer restorer = recover(storage, savepoints, savepoint, savepointState);
        resumeAndFinish(storage, savepoints, savepoint);
        operatorView(savepoints, savepoint);

        begin("Restore again after cleanup");
        check(restorer.recoverLatest(JOB).checkpoints().equals(savepointState), "the same state restores again");

        corruptACopy(restorer, savepoints, savepoint, savepointState);
        return storage;
    }

    private CheckpointStorage openThroughFactory() throws Exception {
        begin("Open the engine's checkpoint storage through its factory");
        CheckpointStorageFactory factory = CheckpointStorageFactories.find(BACKEND);
        check(BACKEND.equals(factory.factoryIdentifier()), "factory '" + BACKEND + "' found through ServiceLoader");
        CheckpointStorage storage = factory.create(config);
        check(storage instanceof SavepointStorage, "the storage has the savepoint capability (SavepointStorage)");
        SavepointStorage savepoints = (SavepointStorage) storage;
        info("checkpoints in " + config.get(StorageOptions.NAMESPACE));
        info("savepoints in  " + savepoints.savepointRoot());
        return storage;
    }

    private void runJob(CheckpointStorage storage) throws Exception {
        begin("Run the job: checkpoints 1 to 5 through the legacy SPI, max-retained " + MAX_RETAINED);
        for (long c = 1; c <= 5; c++) {
            checkpoint(storage, JOB, c, CheckpointType.CHECKPOINT_TYPE);
        }
        info("each checkpoint encoded with LegacyCheckpointCodec, as a SeaTunnel 2.3.x engine writes it");
        checkRetained(storage, List.of(4L, 5L));
        Map<Integer, CompletedCheckpoint> latest = new TreeMap<>();
        for (PipelineState s : storage.getLatestCheckpoint(JOB)) {
            latest.put(s.pipelineId(), LegacyCheckpointCodec.decodeCheckpoint(s.states(), "checkpoint " + s.checkpointId()));
        }
        check(latest.equals(expected(5, CheckpointType.CHECKPOINT_TYPE)),
                "the latest checkpoint of each pipeline reads back equal through the legacy SPI");
    }

    private SavepointHandle stopWithSavepoint(SavepointStorage savepoints,
                                              Map<Integer, CompletedCheckpoint> savepointState) throws Exception {
        begin("Stop with savepoint: checkpoint " + SAVEPOINT_CHECKPOINT + " of every pipeline (SavepointSaveSession,"
                + " kind manual)");
        SavepointHandle savepoint;
        try (SavepointSaveSession session = SavepointSaveSession.builder(savepoints, JOB, PIPELINES)
                .kind(SavepointKind.MANUAL).open()) {
            for (CompletedCheckpoint cp : savepointState.values()) {
                session.report(cp);
                session.pipelineSuspended(cp.pipelineId());
            }
            savepoint = session.commit();
        }
        info("savepoint " + savepoint.savepointId() + " committed at " + savepoint.location());
        info("it holds checkpoint " + SAVEPOINT_CHECKPOINT + " of pipelines " + PIPELINES
                + "; the legacy checkpoint files stay at 4 and 5");
        SavepointMeta meta = savepoint.meta();
        check(savepoints.listSavepoints(JOB).equals(List.of(savepoint)), "the savepoint is listed, its metadata verified");
        check(meta.kind() == SavepointKind.MANUAL && meta.formatVersion() == SavepointReaderRegistry.CURRENT_FORMAT_VERSION
                        && CheckpointWireCodec.FORMAT_NAME.equals(meta.payloadFormat()),
                "kind manual, format version " + SavepointReaderRegistry.CURRENT_FORMAT_VERSION + ", payloads "
                        + CheckpointWireCodec.FORMAT_NAME);
        check(Formats.pipelines(meta).equals(PIPELINES), "the manifest has one payload per pipeline " + PIPELINES
                + " with length and SHA-256");
        return savepoint;
    }

    private SavepointRestorer recover(CheckpointStorage storage, SavepointStorage savepoints, SavepointHandle savepoint,
                                      Map<Integer, CompletedCheckpoint> savepointState) throws Exception {
        begin("Recover the job (same job id) with SavepointRestorer.recoverLatest: the newest state of each pipeline");
        SavepointRestorer restorer = new SavepointRestorer(storage, savepoints);
        RestoredState restored = restorer.recoverLatest(JOB);
        check(restored.source() == RestoredState.Source.SAVEPOINT
                        && restored.savepoint().map(SavepointHandle::savepointId).orElse("").equals(savepoint.savepointId()),
                "restored from savepoint " + savepoint.savepointId() + ", not from the legacy checkpoints");
        check(restored.checkpoints().equals(savepointState),
                "restored checkpoints equal what pipelines " + PIPELINES + " reported (whole-object equality)");
        check(restored.warnings().isEmpty(), "no restore warnings");
        check(restored.nextCheckpointId() == SAVEPOINT_CHECKPOINT + 1, "the engine numbers its next checkpoint "
                + (SAVEPOINT_CHECKPOINT + 1) + " (nextCheckpointId, after the savepoint's " + SAVEPOINT_CHECKPOINT + ")");
        return restorer;
    }

    private void resumeAndFinish(CheckpointStorage storage, SavepointStorage savepoints, SavepointHandle savepoint)
            throws Exception {
        begin("Resume after the savepoint's checkpoint " + SAVEPOINT_CHECKPOINT + ": checkpoints 7 to 10 with the same"
                + " rotation");
        for (long c = SAVEPOINT_CHECKPOINT + 1; c <= 10; c++) {
            checkpoint(storage, JOB, c, CheckpointType.CHECKPOINT_TYPE);
        }
        checkRetained(storage, List.of(9L, 10L));
        check(savepoints.listSavepoints(JOB).equals(List.of(savepoint)), "rotation left the savepoint alone");

        begin("Finish: final checkpoint 11, then terminal cleanup deleteCheckpoint(jobId)");
        checkpoint(storage, JOB, 11, CheckpointType.COMPLETED_POINT_TYPE);
        storage.deleteCheckpoint(JOB);
        check(storage.getAllCheckpoints(JOB).isEmpty() && !Files.exists(Path.of(config.get(StorageOptions.NAMESPACE), JOB)),
                "the job's checkpoint folder is gone");
        check(savepoints.listSavepoints(JOB).equals(List.of(savepoint)), "the savepoint survived terminal cleanup");

        begin("Another job, " + LEGACY_JOB + ", still on SeaTunnel 2.3.x checkpoint files: checkpoints 1 to 3");
        for (long c = 1; c <= 3; c++) {
            checkpoint(storage, LEGACY_JOB, c, CheckpointType.CHECKPOINT_TYPE);
        }
        check(savepoints.listSavepoints(LEGACY_JOB).isEmpty(), "it has no savepoint");
        info("its files are what keepsake migrate rewrites as a verified savepoint; the demo leaves them as they are");
    }

    private void operatorView(SavepointStorage savepoints, SavepointHandle savepoint) throws Exception {
        begin("Operator view: keepsake list, keepsake verify and keepsake migrate --dry-run");
        String namespace = config.get(StorageOptions.NAMESPACE);
        CapturedRun list = runTool("list", "--namespace", namespace);
        check(list.exitCode() == 0 && list.stdout().contains(savepoint.savepointId()) && list.stdout().contains(" ok"),
                "list exits 0 and shows the savepoint with status ok");
        check(list.stdout().contains(LEGACY_JOB), "list shows job " + LEGACY_JOB + " among the jobs with SeaTunnel"
                + " 2.3.x checkpoints");
        CapturedRun verify = runTool("verify", "--namespace", namespace, JOB);
        check(verify.exitCode() == 0 && verify.stdout().contains("OK"), "verify reads every byte and exits 0");
        CapturedRun dryRun = runTool("migrate", "--namespace", namespace, "--dry-run", LEGACY_JOB);
        check(dryRun.exitCode() == 0 && savepoints.listSavepoints(LEGACY_JOB).isEmpty(),
                "migrate --dry-run exits 0 and writes nothing");
    }

    private void corruptACopy(SavepointRestorer restorer, SavepointStorage savepoints, SavepointHandle savepoint,
                              Map<Integer, CompletedCheckpoint> savepointState) throws Exception {
        String namespace = config.get(StorageOptions.NAMESPACE);
        begin("Corruption: flip one byte in a copy of the savepoint");
        Path copyRoot = workDir.resolve("copied-savepoints");
        Path copy = copyRoot.resolve(JOB).resolve(savepoint.savepointId());
        copyDirectory(Path.of(savepoint.location()), copy);
        info("copied to " + copy);
        check(restorer.restoreSavepointAt(copy.toString()).checkpoints().equals(savepointState),
                "the copy restores from its new location (manifest names are relative)");
        ManifestEntry entry = savepoint.meta().entryForPipeline(PIPELINES.get(0));
        Path victim = copy.resolve(entry.file());
        byte[] bytes = Files.readAllBytes(victim);
        int position = bytes.length / 2;
        bytes[position] ^= 0x01;
        Files.write(victim, bytes);
        info("flipped the lowest bit of byte " + position + " of " + victim);
        try {
            restorer.restoreSavepointAt(copy.toString());
            check(false, "restoring the flipped copy fails");
        } catch (SavepointCorruptedException e) {
            info("typed error: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            check(victim.toString().equals(e.file()), "restore refuses it with SavepointCorruptedException naming the file");
        }
        CapturedRun corrupted = runTool("verify", "--namespace", namespace, "--savepoint-path", copyRoot.toString(), JOB,
                savepoint.savepointId());
        check(corrupted.exitCode() == 4 && corrupted.stderr().contains(victim.toString()),
                "keepsake verify on the copy exits 4 and names the file");
        check(SavepointVerifier.verify(savepoints, SavepointReaderRegistry.standard(), JOB, savepoint.savepointId()).ok(),
                "the original savepoint is untouched and still verifies");
    }


    /** What the engine's coordinator does per completed checkpoint: store every pipeline's, then rotate. */
    private void checkpoint(CheckpointStorage storage, String job, long checkpointId, CheckpointType type)
            throws Exception {
        for (int p : PIPELINES) {
            CompletedCheckpoint cp = DemoState.checkpoint(Long.parseLong(job), p, checkpointId, type);
            storage.storeCheckPoint(new PipelineState(job, p, checkpointId, LegacyCheckpointCodec.encodeCheckpoint(cp)));
            List<String> expired = new ArrayList<>();
            for (PipelineState s : storage.getCheckpointsByJobIdAndPipelineId(job, Integer.toString(p))) {
                if (s.checkpointId() <= checkpointId - MAX_RETAINED) {
                    expired.add(Long.toString(s.checkpointId()));
                }
            }
            if (!expired.isEmpty()) {
                storage.deleteCheckpoint(job, Integer.toString(p), expired);
            }
        }
        info("checkpoint " + checkpointId + " (" + type.typeName() + ") stored for pipelines " + PIPELINES
                + (job.equals(JOB) ? "" : " of job " + job));
    }

    private void checkRetained(CheckpointStorage storage, List<Long> ids) throws Exception {
        for (int p : PIPELINES) {
            List<Long> kept = storage.getCheckpointsByJobIdAndPipelineId(JOB, Integer.toString(p)).stream()
                    .map(PipelineState::checkpointId).sorted().toList();
            check(kept.equals(ids), "rotation kept checkpoints " + ids + " of pipeline " + p + " (found " + kept + ")");
        }
    }

    private static Map<Integer, CompletedCheckpoint> expected(long checkpointId, CheckpointType type) {
        Map<Integer, CompletedCheckpoint> map = new TreeMap<>();
        for (int p : PIPELINES) {
            map.put(p, DemoState.checkpoint(JOB_ID, p, checkpointId, type));
        }
        return map;
    }

    private CapturedRun runTool(String... args) {
        CapturedRun result = cli.apply(args);
        events.add(new ToolCall(List.of(args), result));
        return result;
    }

    private static void copyDirectory(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName().toString()));
            }
        }
    }

    private void begin(String title) {
        step++;
        events.add(new Step(step, STEPS, title));
    }

    private void info(String line) {
        events.add(new Info(line));
    }

    private void check(boolean ok, String what) {
        if (ok) {
            passed++;
        } else {
            failed++;
        }
        events.add(new Check(ok, what));
    }
}
