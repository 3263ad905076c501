package io.keepsake.reader;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.internal.MetadataCodec;
import io.keepsake.storage.localfile.LocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The committed format-version-2 bundle: it restores exactly, this build's writer writes the same
 * bytes for the same input, a registry whose window ends at version 1 refuses it with what to do,
 * and a flipped byte in its first, middle or last chunk, or a cut, fails naming the file and the
 * chunk's byte offset.
 */
class GoldenV2BundleTest {

    @TempDir
    Path temp;

    private Path root;

    private KeepsakeStorage openCopy() {
        root = temp.resolve("copied-root");
        assertThat(GoldenBundles.copy(GoldenV2Bundle.RESOURCE_DIR, root)).hasSize(GoldenV2Bundle.PIPELINES.size() + 1);
        return KeepsakeStorage.open(new LocalFileSystem(), temp.resolve("ns").toString(), root.toString());
    }

    private Path bundle() {
        return root.resolve(GoldenV2Bundle.JOB).resolve(GoldenV2Bundle.SAVEPOINT);
    }

    @Test
    void theCommittedVersion2BundleRestoresExactly() {
        try (KeepsakeStorage storage = openCopy()) {
            SavepointHandle restored = GoldenBundles.assertRestoresExactly(storage, root, GoldenV2Bundle.JOB,
                    GoldenV2Bundle.SAVEPOINT, 2, GoldenV2Bundle.expected());
            assertThat(restored.meta().manifest()).allSatisfy(e ->
                    assertThat(e.chunks().chunkSize()).isEqualTo(GoldenV2Bundle.CHUNK_SIZE));
            assertThat(restored.meta().entryForPipeline(3).chunks().count()).isEqualTo(3);
            SavepointHandle h = storage.readMetadata(GoldenV2Bundle.JOB, GoldenV2Bundle.SAVEPOINT);
            assertThat(SavepointReaderRegistry.standard().check(storage, h)).isEqualTo(GoldenV2Bundle.PIPELINES);
        }
    }

    @Test
    void thisBuildWritesTheCommittedVersion2BundleByteForByte() throws IOException {
        try (KeepsakeStorage golden = openCopy()) {
            SavepointHandle committed = golden.readMetadata(GoldenV2Bundle.JOB, GoldenV2Bundle.SAVEPOINT);
            Path again = temp.resolve("written-again");
            try (KeepsakeStorage storage = io.keepsake.storage.internal.ComposedStorage.open(new LocalFileSystem(),
                    StorageOptions.of(temp.resolve("ns2").toString(), again.toString(), 0), GoldenV2Bundle.CHUNK_SIZE)) {
                GoldenBundles.rewrite(storage, committed.meta(), GoldenV2Bundle.expected());
            }
            assertSameFiles(root, again);
        }
    }

    @Test
    void thisBuildWritesTheCommittedVersion1BundleByteForByteWhenToldToWriteVersion1() throws IOException {
        Path v1 = temp.resolve("v1-root");
        GoldenBundles.copy(GoldenV1Bundle.RESOURCE_DIR, v1);
        Path again = temp.resolve("written-again-v1");
        try (KeepsakeStorage golden = KeepsakeStorage.open(new LocalFileSystem(), temp.resolve("ns").toString(),
                v1.toString());
             KeepsakeStorage storage = KeepsakeStorage.open(new LocalFileSystem(),
                     StorageOptions.of(temp.resolve("ns2").toString(), again.toString(), 0).withFormatVersion(1))) {
            SavepointHandle committed = golden.readMetadata(GoldenV1Bundle.JOB, GoldenV1Bundle.SAVEPOINT);
            SavepointHandle written = GoldenBundles.rewrite(storage, committed.meta(), GoldenV1Bundle.expected());
            assertThat(written.meta().formatVersion()).isEqualTo(1);
        }
        assertSameFiles(v1, again);
    }

    /**
     * Every file under {@code expected} has its twin under {@code actual} with the same bytes, and
     * nothing more but staging and index entries. Payload names carry the attempt that wrote them
     * (random), so names are compared without it and the metadata is compared after its manifest
     * names are written without it too; the committed metadata itself must encode back to its bytes.
     */
    private static void assertSameFiles(Path expected, Path actual) throws IOException {
        Map<String, byte[]> want = withoutAttempts(expected);
        Map<String, byte[]> got = withoutAttempts(actual);
        assertThat(got.keySet()).as("files written").containsExactlyElementsOf(want.keySet());
        for (Map.Entry<String, byte[]> e : want.entrySet()) {
            assertThat(got.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    private static final String ATTEMPT_IN_NAME = "\\.[^/]+\\.[0-9a-f]{16}(?=\\.wire$)";

    /** The files below {@code root} by relative path, with the attempt left out of payload names and manifests. */
    private static Map<String, byte[]> withoutAttempts(Path root) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        for (String f : GoldenBundles.files(root)) {
            if (f.endsWith("index.txt") || f.startsWith(".") || f.contains("/.")) {
                continue;
            }
            byte[] bytes = Files.readAllBytes(root.resolve(f));
            if (f.endsWith(MetadataCodec.FILE_NAME)) {
                SavepointMeta m = MetadataCodec.decode(bytes, f);
                List<ManifestEntry> manifest = m.manifest().stream().map(e -> new ManifestEntry(e.pipelineId(),
                        e.checkpointId(), e.file().replaceAll(ATTEMPT_IN_NAME, ""), e.length(), e.sha256(), e.chunks()))
                        .toList();
                bytes = MetadataCodec.encode(new SavepointMeta(m.formatVersion(), m.savepointId(), m.jobId(), m.kind(),
                        m.producerVersion(), m.triggerTimestamp(), m.completedTimestamp(), m.payloadFormat(), manifest,
                        m.properties()));
            }
            files.put(f.replaceAll(ATTEMPT_IN_NAME, ""), bytes);
        }
        return files;
    }

    @Test
    void theCommittedMetadataEncodesBackToItsBytes() throws IOException {
        Path v2 = temp.resolve("v2-check");
        Path v1 = temp.resolve("v1-check");
        GoldenBundles.copy(GoldenV2Bundle.RESOURCE_DIR, v2);
        GoldenBundles.copy(GoldenV1Bundle.RESOURCE_DIR, v1);
        for (Path root : List.of(v2, v1)) {
            for (String f : GoldenBundles.files(root)) {
                if (f.endsWith(MetadataCodec.FILE_NAME)) {
                    byte[] bytes = Files.readAllBytes(root.resolve(f));
                    assertThat(MetadataCodec.encode(MetadataCodec.decode(bytes, f))).as(f).isEqualTo(bytes);
                }
            }
        }
    }

    @Test
    void aRegistryWhoseWindowEndsAtVersion1RefusesTheCommittedVersion2BundleSayingWhatToDo() {
        SavepointReaderRegistry version1Build = new SavepointReaderRegistry(List.of(new V1SavepointReader()));
        try (KeepsakeStorage storage = openCopy()) {
            // the metadata still reads, so that a listing shows the newer savepoint ...
            SavepointHandle h = storage.readMetadata(GoldenV2Bundle.JOB, GoldenV2Bundle.SAVEPOINT);
            assertThat(h.meta().formatVersion()).isEqualTo(2);
            // ... but its payloads are refused, by restore and by verify alike
            for (Runnable read : List.<Runnable>of(() -> version1Build.read(storage, h),
                    () -> version1Build.check(storage, h))) {
                assertThatThrownBy(read::run).isInstanceOfSatisfying(SavepointIncompatibleException.class, e -> {
                    assertThat(e.getMessage()).contains("restore it with a Keepsake build that reads format version 2")
                            .contains("a newer engine wrote it").contains("this build reads versions 1 to 1")
                            .contains(GoldenV2Bundle.SAVEPOINT).contains(GoldenV2Bundle.JOB);
                    assertThat(e.foundVersion()).isEqualTo(2);
                    assertThat(e.maxSupported()).isEqualTo(1);
                });
            }
        }
    }

    @Test
    void aFlippedByteInTheFirstMiddleOrLastChunkOrACutFailsNamingTheFileAndTheChunkOffset() throws IOException {
        try (KeepsakeStorage storage = openCopy()) {
            SavepointHandle h = storage.readMetadata(GoldenV2Bundle.JOB, GoldenV2Bundle.SAVEPOINT);
            ManifestEntry entry = h.meta().entryForPipeline(3);
            Path payload = bundle().resolve(entry.file());
            byte[] good = Files.readAllBytes(payload);
            long[] chunkStarts = {0, GoldenV2Bundle.CHUNK_SIZE, 2L * GoldenV2Bundle.CHUNK_SIZE};
            for (long chunk : chunkStarts) {
                long at = chunk + Math.min(12_345, (good.length - chunk) / 2);
                flip(payload, at);
                assertCorruptedAt(storage, h, entry, chunk, "byte " + at + " flipped");
                Files.write(payload, good);
            }
            Files.write(payload, java.util.Arrays.copyOf(good, GoldenV2Bundle.CHUNK_SIZE + 100));
            assertCorruptedAt(storage, h, entry, GoldenV2Bundle.CHUNK_SIZE, "cut after one chunk and 100 bytes");
            Files.write(payload, good);
            assertThat(new SavepointRestorer(storage, storage).restoreSavepointAt(bundle().toString()).checkpoints())
                    .isEqualTo(GoldenV2Bundle.expected());
        }
    }

    private static void flip(Path file, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x04);
        }
    }

    private void assertCorruptedAt(KeepsakeStorage storage, SavepointHandle h, ManifestEntry entry, long offset,
                                   String what) {
        SavepointRestorer restorer = new SavepointRestorer(storage, storage);
        for (Runnable read : List.<Runnable>of(() -> restorer.restoreSavepointAt(bundle().toString()),
                () -> SavepointReaderRegistry.standard().check(storage, h),
                () -> storage.readSavepoint(GoldenV2Bundle.JOB, GoldenV2Bundle.SAVEPOINT))) {
            assertThatThrownBy(read::run).as(what).isInstanceOfSatisfying(SavepointCorruptedException.class, e -> {
                assertThat(e.file()).endsWith(GoldenV2Bundle.SAVEPOINT + "/" + entry.file());
                assertThat(e.offset()).isEqualTo(offset);
                assertThat(e.getMessage()).contains(String.valueOf(offset)).contains(GoldenV2Bundle.JOB);
            });
        }
    }
}
