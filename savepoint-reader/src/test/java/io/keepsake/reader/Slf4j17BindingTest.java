package io.keepsake.reader;

import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.localfile.LocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Keepsake logs through the engine's slf4j 1.7 binding. Runs in its own fork whose class path is
 * what SeaTunnel 2.3.8 ships: slf4j-api 1.7.25 and log4j-slf4j-impl 2.17.1 (see the pom), with a
 * log4j configuration that writes to a file this test reads.
 */
class Slf4j17BindingTest {

    @TempDir
    Path temp;

    @Test
    void theErrorOfAFallbackPastACorruptedSavepointReachesTheEnginesSlf4j17Binding() throws Exception {
        // -Dtest=... also selects this class in the default fork, which has slf4j-simple: only the pom's own fork runs it.
        assumeTrue(System.getProperty("keepsake.test.log") != null, "runs in the slf4j-1.7-binding fork only");
        assertThat(LoggerFactory.getILoggerFactory().getClass().getName())
                .isEqualTo("org.apache.logging.slf4j.Log4jLoggerFactory");
        assertThat(Class.forName("org.slf4j.impl.StaticLoggerBinder")).isNotNull();   // the 1.7 binding mechanism
        assertThatThrownBy(() -> Class.forName("org.slf4j.spi.SLF4JServiceProvider"))  // 2.x only
                .isInstanceOf(ClassNotFoundException.class);

        SavepointHandle corrupted;
        try (KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(), temp.resolve("ns").toString(), null)) {
            save(storage, 1);
            corrupted = save(storage, 2);
            Path payload = Path.of(corrupted.location(), corrupted.meta().manifest().get(0).file());
            byte[] bytes = Files.readAllBytes(payload);
            bytes[bytes.length / 2] ^= 0x01;
            Files.write(payload, bytes);

            RestoredState restored = new SavepointRestorer(storage).withFallbackPastCorrupted(true).recoverLatest("3");
            assertThat(restored.checkpoints().get(1).checkpointId()).isEqualTo(1);
        }

        List<String> log = Files.readAllLines(Path.of(System.getProperty("keepsake.test.log")));
        assertThat(log).anySatisfy(line -> assertThat(line)
                .startsWith("ERROR " + SavepointRestorer.class.getName())
                .contains("Skipped corrupted savepoint " + corrupted.savepointId() + " of job 3"));
        assertThat(log).anySatisfy(line -> assertThat(line).startsWith("INFO ").contains("Committed savepoint"));
    }

    private static SavepointHandle save(KeepsakeStorage storage, long checkpointId) {
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, "3", List.of(1)).open()) {
            session.report(TestCheckpoints.savepointOf(3, 1, checkpointId));
            session.pipelineSuspended(1);
            return session.commit();
        }
    }
}
