package io.keepsake.tool;

import io.keepsake.fixtures.Fixtures;
import io.keepsake.reader.SavepointRestorer;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.SavepointUpgrade;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tool across format versions: {@code migrate --upgrade} turns a version 1 savepoint into a
 * verified version 2 one beside it (the old one kept, a second run "already migrated", a damaged
 * one refused with nothing written), and {@code verify} and {@code list --verify} name the file and
 * the chunk's byte offset of a damaged version 2 payload.
 */
class FormatVersionsToolTest {

    private static final Map<String, String> VERSION_1 = Map.of("savepoint.format-version", "1");
    private static final String GOLDEN_V2 = Fixtures.ROOT + "savepoint-v2/";

    @TempDir
    Path namespace;

    /** Every file under the savepoint root with its bytes' hash, to tell that nothing changed. */
    private SortedMap<String, Integer> snapshot() {
        SortedMap<String, Integer> files = new TreeMap<>();
        Path root = namespace.resolve("savepoint");
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(Files::isRegularFile).forEach(f -> {
                try {
                    files.put(root.relativize(f).toString(), java.util.Arrays.hashCode(Files.readAllBytes(f)));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private ToolRun.Result migrate(String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("migrate", "--namespace", namespace.toString(), ToolRun.JOB));
        args.addAll(List.of(more));
        return ToolRun.run(args.toArray(String[]::new));
    }

    @Test
    void migrateUpgradesAVersion1SavepointBesideItAndASecondRunSaysAlreadyMigrated() throws Exception {
        SavepointHandle old = ToolRun.savepoint(namespace, 6, VERSION_1);
        assertThat(old.meta().formatVersion()).isEqualTo(1);
        String upgraded = old.savepointId() + "-v2";
        SortedMap<String, Integer> before = snapshot();

        ToolRun.Result dry = migrate("--upgrade", old.savepointId(), "--dry-run");
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("dry run, nothing written", "would be upgraded to format version 2 as savepoint "
                + upgraded);
        assertThat(snapshot()).isEqualTo(before);

        ToolRun.Result r = migrate("--upgrade", old.savepointId());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("Upgraded savepoint " + old.savepointId() + " of job " + ToolRun.JOB
                        + " from format version 1 to 2", "Savepoint " + upgraded, "every chunk verified",
                "Kept      " + old.savepointId(), "keepsake delete " + ToolRun.JOB + " " + old.savepointId() + " --yes");
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            SavepointStorage savepoints = (SavepointStorage) storage;
            SavepointHandle v2 = savepoints.readMetadata(ToolRun.JOB, upgraded);
            assertThat(v2.meta().formatVersion()).isEqualTo(2);
            assertThat(v2.meta().manifest()).allSatisfy(e -> assertThat(e.chunks()).isNotNull());
            assertThat(v2.meta().properties()).containsEntry(SavepointUpgrade.UPGRADED_FROM, old.savepointId())
                    .containsEntry(SavepointUpgrade.UPGRADED_FROM_VERSION, "1")
                    .containsAllEntriesOf(old.meta().properties());
            assertThat(v2.meta().kind()).isEqualTo(old.meta().kind());
            SavepointRestorer restorer = new SavepointRestorer(storage, savepoints);
            assertThat(restorer.restoreSavepoint(ToolRun.JOB, upgraded).checkpoints())
                    .isEqualTo(ToolRun.state(6, List.of(1, 2)))
                    .isEqualTo(restorer.restoreSavepoint(ToolRun.JOB, old.savepointId()).checkpoints());
        }
        SortedMap<String, Integer> after = snapshot();
        before.forEach((file, hash) -> assertThat(after).as("the version 1 bundle is kept unchanged")
                .containsEntry(file, hash));

        ToolRun.Result again = migrate("--upgrade", old.savepointId());
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).contains("already migrated to format version 2 as savepoint " + upgraded,
                "nothing written");
        assertThat(snapshot()).isEqualTo(after);

        ToolRun.Result current = migrate("--upgrade", upgraded, "--json");
        assertThat(current.exitCode()).as(current.err()).isZero();
        assertThat(current.out()).contains("\"status\": \"already-migrated\"", "\"fromFormatVersion\": 2",
                "\"jobs\": []");
        assertThat(ToolRun.run("verify", "--namespace", namespace.toString(), ToolRun.JOB).out())
                .contains("2 ok, 0 failed");
    }

    @Test
    void migrateRefusesADamagedVersion1SavepointAndWritesNothing() throws Exception {
        SavepointHandle old = ToolRun.savepoint(namespace, 6, VERSION_1);
        Path payload = Path.of(old.location(), old.meta().entryForPipeline(1).file());
        ListInspectVerifyTest.flipByte(payload, (int) Files.size(payload) / 2);
        SortedMap<String, Integer> before = snapshot();

        ToolRun.Result r = migrate("--upgrade", old.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(r.err()).contains("corrupted", payload.toString());
        assertThat(snapshot()).isEqualTo(before);
        assertThat(migrate("--upgrade", "sp-none").exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(ToolRun.run("migrate", "--namespace", namespace.toString(), ToolRun.JOB, "700000000000000124",
                "--upgrade", old.savepointId()).exitCode()).as("two jobs").isEqualTo(ExitCodes.USAGE);
        assertThat(migrate("--upgrade", old.savepointId(), "-D", "savepoint.format-version=1").exitCode())
                .as("a storage told to write version 1").isEqualTo(ExitCodes.USAGE);
    }

    /** Copies the committed version 2 bundle under this namespace's savepoint root; returns its pipeline-3 payload. */
    private Path goldenV2() throws IOException {
        Path root = namespace.resolve("savepoint");
        for (String file : Fixtures.index(GOLDEN_V2)) {
            Path target = root.resolve(file);
            Files.createDirectories(target.getParent());
            Files.write(target, Fixtures.bytes(GOLDEN_V2 + file));
        }
        return root.resolve("700000000000000902/sp-golden-v2/pipeline-3.wire");
    }

    @Test
    void verifyAndListVerifyNameTheFileAndTheChunkOffsetOfADamagedVersion2Payload() throws Exception {
        ToolRun.savepoint(namespace, 6, VERSION_1);
        Path payload = goldenV2();
        String ns = namespace.toString();
        ToolRun.Result healthy = ToolRun.run("verify", "--namespace", ns);
        assertThat(healthy.exitCode()).as(healthy.err()).isZero();
        assertThat(healthy.out()).contains("sp-golden-v2", "2 ok, 0 failed");
        assertThat(ToolRun.run("list", "--namespace", ns).out()).contains("sp-golden-v2");

        ListInspectVerifyTest.flipByte(payload, ChunkDigests.CHUNK_SIZE + 99);

        for (String[] args : List.of(new String[] {"verify", "--namespace", ns},
                new String[] {"list", "--verify", "--namespace", ns})) {
            ToolRun.Result r = ToolRun.run(args);
            assertThat(r.exitCode()).as(String.join(" ", args) + "\n" + r.err()).isEqualTo(ExitCodes.CORRUPTED);
            assertThat(r.err()).as(args[0]).contains("corrupted", payload.toString(), "chunk 1 of 3",
                    "bytes " + ChunkDigests.CHUNK_SIZE + " to ");
        }
        ToolRun.Result json = ToolRun.run("verify", "--json", "--namespace", ns, "700000000000000902");
        ToolRun.Result inspect = ToolRun.run("inspect", "--chunks", "--json", "--namespace", ns, "700000000000000902",
                "sp-golden-v2");
        assertThat(json.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(json.out()).contains("\"status\": \"corrupted\"", "\"file\": \"" + payload + "\"",
                "\"formatVersion\": 2");
    }

    @Test
    void theDigestACorruptionMessageExpectsIsOneInspectPrintsUnderTheSameName() throws Exception {
        Path payload = goldenV2();
        SavepointHandle v1 = ToolRun.savepoint(namespace, 6, VERSION_1);
        Path v1Payload = Path.of(v1.location(), v1.meta().manifest().get(0).file());
        ListInspectVerifyTest.flipByte(payload, ChunkDigests.CHUNK_SIZE + 99);
        ListInspectVerifyTest.flipByte(v1Payload, (int) Files.size(v1Payload) / 2);
        String ns = namespace.toString();

        ToolRun.Result chunk = ToolRun.run("verify", "--namespace", ns, "700000000000000902", "sp-golden-v2");
        ToolRun.Result whole = ToolRun.run("verify", "--namespace", ns, ToolRun.JOB, v1.savepointId());
        ToolRun.Result chunksText = ToolRun.run("inspect", "--chunks", "--namespace", ns, "700000000000000902",
                "sp-golden-v2");
        ToolRun.Result plainText = ToolRun.run("inspect", "--namespace", ns, "700000000000000902", "sp-golden-v2");
        tools.jackson.databind.JsonNode doc = tools.jackson.databind.json.JsonMapper.builder().build().readTree(
                ToolRun.run("inspect", "--chunks", "--json", "--namespace", ns, "700000000000000902", "sp-golden-v2")
                        .out());

        assertThat(chunk.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(chunk.err()).contains("chunk 1 of 3", "the SHA-256 the manifest records for chunk 1",
                "chunk 1's own digests");
        String expected = chunk.err().replaceAll("(?s).*\\(expected ([0-9a-f]{64}), found.*", "$1");
        tools.jackson.databind.JsonNode entry = null;
        for (tools.jackson.databind.JsonNode e : doc.get("manifest")) {
            if (e.get("payloadFile").asString().equals("pipeline-3.wire")) {
                entry = e;
            }
        }
        assertThat(entry).isNotNull();
        assertThat(entry.get("chunks").get(1).get("sha256").asString()).isEqualTo(expected);
        assertThat(entry.get("chunks").get(1).get("offset").asLong()).isEqualTo(ChunkDigests.CHUNK_SIZE);
        assertThat(entry.get("sha256").asString()).as("the payload digest is another value").isNotEqualTo(expected);
        assertThat(chunksText.out()).contains(expected, "PAYLOAD DIGEST is derived from the payload's chunk digests");
        assertThat(plainText.out()).doesNotContain(expected).contains("add --chunks to list them");

        assertThat(whole.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(whole.err()).contains("whole-file SHA-256 does not match", "(expected " + v1.meta().manifest().get(0)
                .sha256() + ", found ");
        assertThat(ToolRun.run("inspect", "--namespace", ns, ToolRun.JOB, v1.savepointId()).out())
                .contains(v1.meta().manifest().get(0).sha256(), "PAYLOAD DIGEST is the SHA-256 of the whole file");
    }
}
