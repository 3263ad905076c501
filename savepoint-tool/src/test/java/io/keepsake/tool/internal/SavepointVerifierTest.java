package io.keepsake.tool.internal;

import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.StateGenerators;
import io.keepsake.fixtures.faults.ForwardingFileSystem;
import io.keepsake.fixtures.fs.InMemoryFileSystem;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.spi.SyncableOutputStream;
import io.keepsake.tool.internal.SavepointVerifier.Failure;
import io.keepsake.tool.internal.SavepointVerifier.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

class SavepointVerifierTest {

    private static final String JOB = "4242";

    private final InMemoryFileSystem memory = new InMemoryFileSystem();
    /** How many times each path was opened for reading. */
    private final Map<String, Integer> opens = new ConcurrentHashMap<>();
    /** What a read of a payload file throws, when set. */
    private volatile Throwable payloadReadFailure;
    private final KeepsakeStorage storage = KeepsakeStorage.open(new ForwardingFileSystem(memory) {
        @Override
        public InputStream open(String path) throws IOException {
            opens.merge(path, 1, Integer::sum);
            InputStream in = super.open(path);
            Throwable failure = payloadReadFailure;
            if (failure == null || path.endsWith("_metadata.ser")) {
                return in;
            }
            return new java.io.FilterInputStream(in) {
                @Override
                public int read() throws IOException {
                    return read(new byte[1], 0, 1);
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    if (failure instanceof IOException io) {
                        throw io;
                    }
                    throw (Error) failure;
                }
            };
        }
    }, "/ns", null);

    @AfterEach
    void closeEverything() {
        storage.close();
        memory.assertNoOpenStreams();
    }

    private SavepointHandle commitTwoPipelines() {
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, JOB, List.of(1, 2)).open()) {
            for (int pipeline = 1; pipeline <= 2; pipeline++) {
                CompletedCheckpoint shape = StateGenerators.sized(pipeline, 2, 2, 3_000);
                session.report(new CompletedCheckpoint(Long.parseLong(JOB), pipeline, 9, 1L,
                        CheckpointType.SAVEPOINT_TYPE, 2L, shape.taskStates(), shape.taskStatistics(), false));
                session.pipelineSuspended(pipeline);
            }
            SavepointHandle handle = session.commit();
            // the storage tidies after the commit on its own threads (reading the metadata when it
            // establishes the job's newest markers): the reads counted next are the verifier's alone
            ((io.keepsake.storage.internal.ComposedStorage) storage).awaitTidying();
            return handle;
        }
    }

    private String payloadPath(SavepointHandle handle, ManifestEntry entry) {
        return memory.child(handle.location(), entry.file());
    }

    @Test
    void verificationReadsEachPayloadOnceAndCountsItsBytes() {
        SavepointHandle handle = commitTwoPipelines();
        opens.clear();

        Outcome outcome = SavepointVerifier.verify(storage, SavepointReaderRegistry.standard(), JOB, handle.savepointId());

        assertThat(outcome.ok()).as(outcome.message()).isTrue();
        assertThat(outcome.pipelines()).containsExactly(1, 2);
        assertThat(outcome.bytes()).isEqualTo(handle.meta().manifest().stream().mapToLong(ManifestEntry::length).sum())
                .isGreaterThan(2 * 4 * 3_000);
        for (ManifestEntry entry : handle.meta().manifest()) {
            assertThat(opens).as("opens of %s", entry.file()).containsEntry(payloadPath(handle, entry), 1);
        }
        assertThat(opens.values()).as("every file read, metadata included").containsOnly(1);
    }

    @Test
    void aFlippedByteIsCaughtOnTheSingleReadAndNamesTheFile() throws IOException {
        SavepointHandle handle = commitTwoPipelines();
        ManifestEntry second = handle.meta().manifest().get(1);
        String path = payloadPath(handle, second);
        byte[] bytes;
        try (InputStream in = memory.open(path)) {
            bytes = in.readAllBytes();
        }
        bytes[bytes.length / 2] ^= 0x10;
        try (SyncableOutputStream out = memory.create(path, false)) {
            out.write(bytes);
        }
        opens.clear();

        Outcome outcome = SavepointVerifier.verify(storage, SavepointReaderRegistry.standard(), JOB, handle.savepointId());

        assertThat(outcome.ok()).isFalse();
        assertThat(outcome.failure()).isEqualTo(Failure.CORRUPTED);
        assertThat(outcome.file()).isEqualTo(path);
        assertThat(outcome.message()).contains("SHA-256");
        assertThat(opens).containsEntry(path, 1);
    }

    @Test
    void aMissingSavepointIsNotFound() {
        Outcome outcome = SavepointVerifier.verify(storage, SavepointReaderRegistry.standard(), JOB, "sp-none");
        assertThat(outcome.failure()).isEqualTo(Failure.NOT_FOUND);
        assertThat(outcome.message()).contains("sp-none");
    }

    /** Running out of heap or stack reading a sound savepoint is reported as such, never as corruption. */
    @Test
    void anOutOfMemoryOrStackOverflowWhileReadingIsResourcesExhaustedNotCorrupted() {
        SavepointHandle handle = commitTwoPipelines();
        for (Throwable error : new Throwable[] {new OutOfMemoryError("Java heap space"), new StackOverflowError()}) {
            payloadReadFailure = error;

            Outcome outcome = SavepointVerifier.verify(storage, SavepointReaderRegistry.standard(), JOB,
                    handle.savepointId());

            assertThat(outcome.failure()).as(outcome.message()).isEqualTo(Failure.RESOURCES_EXHAUSTED);
            assertThat(outcome.message()).contains(handle.savepointId(), "job " + JOB,
                    error.getClass().getSimpleName(), error instanceof OutOfMemoryError ? "-Xmx" : "-Xss")
                    .doesNotContainIgnoringCase("corrupt");
            assertThat(outcome.file()).isNull();
            SavepointStatus status = SavepointStatus.of(outcome);
            assertThat(status.state().word()).isEqualTo("resources exhausted");
            assertThat(status.exitCode()).isEqualTo(io.keepsake.tool.ExitCodes.RESOURCES_EXHAUSTED).isEqualTo(6);
        }
    }

    /** A failing read is an error of the storage (exit 1), not corruption. */
    @Test
    void anIoFailureWhileReadingIsAnErrorNotCorrupted() {
        SavepointHandle handle = commitTwoPipelines();
        payloadReadFailure = new IOException("connection reset");

        Outcome outcome = SavepointVerifier.verify(storage, SavepointReaderRegistry.standard(), JOB, handle.savepointId());

        assertThat(outcome.failure()).as(outcome.message()).isEqualTo(Failure.ERROR);
        assertThat(outcome.message()).contains("connection reset").doesNotContainIgnoringCase("corrupt");
        assertThat(SavepointStatus.of(outcome).exitCode()).isEqualTo(1);
    }
}
