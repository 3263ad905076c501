package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.wire.CheckpointWireCodec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the golden savepoint bundles of every format version share: copying a committed bundle out
 * of the classpath onto the disk (each bundle directory has an {@code index.txt} of its files), and
 * writing a bundle from given checkpoints, timestamps and properties with the storage's writer, as
 * {@code SavepointSaveSession} writes one (same request, same payload encoding) but with the
 * timestamps fixed, so a test can write the same input again and compare the bytes.
 */
final class GoldenBundles {

    private GoldenBundles() {
    }

    /** Copies the bundle under classpath directory {@code resourceDir} to {@code root}; returns the files' relative paths. */
    static List<String> copy(String resourceDir, Path root) {
        ClassLoader cl = GoldenBundles.class.getClassLoader();
        try {
            List<String> index;
            try (InputStream in = cl.getResourceAsStream(resourceDir + "index.txt")) {
                if (in == null) {
                    throw new IllegalStateException("No golden bundle index on the classpath: " + resourceDir);
                }
                index = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
            }
            for (String file : index) {
                try (InputStream in = cl.getResourceAsStream(resourceDir + file)) {
                    if (in == null) {
                        throw new IllegalStateException("Golden bundle file missing from the classpath: " + file);
                    }
                    Path target = root.resolve(file);
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target);
                }
            }
            return index;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Restores savepoint {@code savepointId} of {@code job} from the bundle copied to {@code root}, as
     * the job's latest state and by its directory path, and asserts that both give {@code expected}
     * from a manual savepoint of {@code formatVersion} with engine-wire-v1 payloads; returns the
     * savepoint the job's latest state came from.
     */
    static SavepointHandle assertRestoresExactly(KeepsakeStorage storage, Path root, String job, String savepointId,
                                                 int formatVersion, Map<Integer, CompletedCheckpoint> expected) {
        SavepointRestorer restorer = new SavepointRestorer(storage, storage);
        RestoredState latest = restorer.recoverLatest(job);
        assertThat(latest.savepoint()).isPresent();
        SavepointHandle h = latest.savepoint().get();
        assertThat(h.savepointId()).isEqualTo(savepointId);
        assertThat(h.meta().formatVersion()).isEqualTo(formatVersion);
        assertThat(h.meta().kind()).isEqualTo(SavepointKind.MANUAL);
        assertThat(h.meta().payloadFormat()).isEqualTo("engine-wire-v1");
        assertThat(latest.checkpoints()).isEqualTo(expected);
        RestoredState byPath = restorer.restoreSavepointAt(root.resolve(job).resolve(savepointId).toString());
        assertThat(byPath.checkpoints()).isEqualTo(expected);
        return h;
    }

    /** Writes one savepoint of {@code checkpoints} with these timestamps and properties, as a save session would. */
    static SavepointHandle write(SavepointStorage storage, String jobId, String savepointId,
                                 Map<Integer, CompletedCheckpoint> checkpoints, long triggered, long completed,
                                 Map<String, String> properties) {
        CheckpointWireCodec codec = new CheckpointWireCodec();
        SavepointRequest request = new SavepointRequest(jobId, savepointId, SavepointKind.MANUAL,
                io.keepsake.storage.Versions.PRODUCER_VERSION, CheckpointWireCodec.FORMAT_NAME, triggered, properties);
        try (SavepointWriter writer = storage.beginSavepoint(request)) {
            for (CompletedCheckpoint cp : checkpoints.values()) {
                try (OutputStream out = writer.openPayload(cp.pipelineId(), cp.checkpointId())) {
                    codec.encode(cp, out);
                }
            }
            return writer.commit(completed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the same input as the golden bundle {@code golden} holds (its ids, timestamps and properties) under {@code storage}. */
    static SavepointHandle rewrite(SavepointStorage storage, SavepointMeta golden,
                                   Map<Integer, CompletedCheckpoint> checkpoints) {
        return write(storage, golden.jobId(), golden.savepointId(), checkpoints, golden.triggerTimestamp(),
                golden.completedTimestamp(), golden.properties());
    }

    /** The relative paths of every file below {@code root}, sorted. */
    static List<String> files(Path root) {
        List<String> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(Files::isRegularFile).forEach(f -> files.add(root.relativize(f).toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        files.sort(String::compareTo);
        return files;
    }
}
