package io.keepsake.seatunnel;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.localfile.LocalFileSystem;
import org.apache.seatunnel.engine.checkpoint.storage.PipelineState;
import io.keepsake.engine.CheckpointType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A checkpoint store and the rotation SeaTunnel's coordinator asks for right after it, through the
 * plugin without an engine, with every file-system call recorded with its thread: the caller waits
 * only for the store's own calls, and the rotation's listing and deletes run on the storage's
 * retention worker, in order; once that worker is done the rotated files are gone and the
 * savepoint bundle stays.
 */
class RetentionOffTheCriticalPathTest {

    private static final String JOB = "981";

    @TempDir
    Path dir;

    private final List<String> calls = new ArrayList<>();
    private volatile boolean failDeletes;

    private StorageFileSystem recording(StorageFileSystem fs) {
        return (StorageFileSystem) Proxy.newProxyInstance(StorageFileSystem.class.getClassLoader(),
                new Class<?>[] {StorageFileSystem.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("child") && !method.getName().equals("capabilities")) {
                        synchronized (calls) {
                            calls.add(Thread.currentThread().getName() + " " + method.getName()
                                    + (args != null && args.length > 0 ? " " + args[0] : ""));
                        }
                    }
                    if (failDeletes && method.getName().equals("delete")) {
                        throw new java.io.IOException("injected: the store refuses deletes (" + args[0] + ")");
                    }
                    try {
                        return method.invoke(fs, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private List<String> takeCalls() {
        synchronized (calls) {
            List<String> out = List.copyOf(calls);
            calls.clear();
            return out;
        }
    }

    private static PipelineState state(long checkpointId, CheckpointType type) {
        return EngineStates.of(JOB, 1, checkpointId, type);
    }

    @Test
    void theCallerWaitsForTheStoreAloneAndTheRotationRunsOnTheRetentionWorker() throws Exception {
        String ns = dir.resolve("ns").toString();
        try (KeepsakeStorage keepsake = KeepsakeStorage.open(recording(new LocalFileSystem()), ns, null)) {
            KeepsakeCheckpointStorage storage = new KeepsakeCheckpointStorage(keepsake, keepsake);
            storage.storeCheckPoint(state(1, CheckpointType.SAVEPOINT_TYPE));
            storage.storeCheckPoint(state(2, CheckpointType.CHECKPOINT_TYPE));
            storage.storeCheckPoint(state(3, CheckpointType.CHECKPOINT_TYPE));
            assertThat(storage.awaitRetention(Duration.ofSeconds(30))).isTrue();
            takeCalls();

            String caller = Thread.currentThread().getName();
            storage.storeCheckPoint(state(4, CheckpointType.CHECKPOINT_TYPE));
            List<String> store = takeCalls();
            storage.deleteCheckpoint(JOB, "1", List.of("2"));
            List<String> rotationOnCaller = takeCalls().stream().filter(c -> c.startsWith(caller + " ")).toList();
            assertThat(storage.awaitRetention(Duration.ofSeconds(30))).as("the retention worker ends its work").isTrue();
            List<String> rotation = takeCalls();
            System.out.println("checkpoint store, calls:\n  " + String.join("\n  ", store));
            System.out.println("rotation, calls on the caller's thread: " + rotationOnCaller);
            System.out.println("rotation, calls on other threads:\n  " + String.join("\n  ", rotation));

            assertThat(store).as("the store's calls are the caller's").allMatch(c -> c.startsWith(caller + " "));
            assertThat(rotationOnCaller).as("the caller waits for no call of the rotation").isEmpty();
            assertThat(rotation).as("the rotation runs on the retention worker").isNotEmpty()
                    .allMatch(c -> c.startsWith(KeepsakeCheckpointStorage.RETENTION_THREAD_NAME + " "));
            assertThat(keepsake.checkpointFiles(JOB)).extracting(f -> f.checkpointId())
                    .as("checkpoint 2 rotated away, and checkpoint 1 (older than it) swept with it")
                    .containsExactly(3L, 4L);
            assertThat(keepsake.listSavepoints(JOB)).as("the savepoint bundle stays").hasSize(1);
        }
    }

    @Test
    void aRotationThatFailsLeavesItsFilesToTheNextOne() throws Exception {
        String ns = dir.resolve("ns").toString();
        try (KeepsakeStorage keepsake = KeepsakeStorage.open(recording(new LocalFileSystem()), ns, null)) {
            KeepsakeCheckpointStorage storage = new KeepsakeCheckpointStorage(keepsake, keepsake);
            for (long id = 1; id <= 4; id++) {
                storage.storeCheckPoint(state(id, CheckpointType.CHECKPOINT_TYPE));
            }
            failDeletes = true;
            storage.deleteCheckpoint(JOB, "1", List.of("1"));
            assertThat(storage.awaitRetention(Duration.ofSeconds(30))).isTrue();
            assertThat(keepsake.checkpointFiles(JOB)).extracting(f -> f.checkpointId())
                    .as("the failed rotation removed nothing, and the caller was not told").containsExactly(1L, 2L, 3L, 4L);
            failDeletes = false;
            storage.deleteCheckpoint(JOB, "1", List.of("2"));
            assertThat(storage.awaitRetention(Duration.ofSeconds(30))).isTrue();
            assertThat(keepsake.checkpointFiles(JOB)).extracting(f -> f.checkpointId())
                    .as("the next rotation removed what the failed one left").containsExactly(3L, 4L);
        }
    }
}
