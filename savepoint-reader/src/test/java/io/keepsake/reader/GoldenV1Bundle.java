package io.keepsake.reader;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.SavepointHandle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The golden savepoint bundle of format version 1, committed under
 * {@code src-test-fixtures/src/main/resources/io/keepsake/fixtures/savepoint-v1/} and restored by
 * {@link GoldenV1BundleTest} forever. {@link #main} wrote it once; run it only to add a bundle for
 * a NEW format version (with a new directory), never to regenerate this one. The expected content
 * is the frozen {@link TestCheckpoints} output below: do not change either.
 */
public final class GoldenV1Bundle {

    static final String RESOURCE_DIR = "io/keepsake/fixtures/savepoint-v1/";
    static final String JOB = "700000000000000900";
    static final String SAVEPOINT = "sp-golden-v1";
    static final List<Integer> PIPELINES = List.of(1, 2, 3);
    static final long CHECKPOINT_ID = 12;

    private GoldenV1Bundle() {
    }

    static Map<Integer, CompletedCheckpoint> expected() {
        Map<Integer, CompletedCheckpoint> m = new TreeMap<>();
        for (int p : PIPELINES) {
            m.put(p, TestCheckpoints.savepointOf(Long.parseLong(JOB), p, CHECKPOINT_ID));
        }
        return m;
    }

    /** Writes the bundle and its index under {@code args[0]} (the fixtures' resource root). */
    public static void main(String[] args) throws IOException {
        Path resources = Path.of(args[0]);
        Path root = resources.resolve(RESOURCE_DIR);
        if (Files.exists(root)) {
            throw new IllegalStateException("Refusing to regenerate a golden fixture: " + root);
        }
        Path work = Files.createTempDirectory("golden");
        try (KeepsakeStorage storage = KeepsakeStorage.open(new io.keepsake.storage.localfile.LocalFileSystem(), work.resolve("ns").toString(), root.toString())) {
            SavepointHandle h;
            try (SavepointSaveSession s = SavepointSaveSession.builder(storage, JOB, PIPELINES).savepointId(SAVEPOINT).open()) {
                for (CompletedCheckpoint cp : expected().values()) {
                    s.report(cp);
                    s.pipelineSuspended(cp.pipelineId());
                }
                h = s.commit();
            }
            List<String> index = new ArrayList<>();
            try (Stream<Path> files = Files.walk(Path.of(h.location()))) {
                files.filter(Files::isRegularFile).forEach(f -> index.add(root.relativize(f).toString()));
            }
            index.sort(String::compareTo);
            Files.write(root.resolve("index.txt"), index);
        }
    }
}
