package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code keepsake delete}: nothing goes without --yes; with it, exactly what was named goes. */
class DeleteCommandTest {

    @TempDir
    Path namespace;

    @Test
    void refusesWithoutYesAndDeletesNothing() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);

        ToolRun.Result one = ToolRun.run("delete", "--namespace", namespace.toString(), ToolRun.JOB, sp.savepointId());
        ToolRun.Result all = ToolRun.run("delete", "--namespace", namespace.toString(), ToolRun.JOB, "--all");

        assertThat(one.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(one.err()).contains("Refusing to delete savepoint " + sp.savepointId(), "--yes");
        assertThat(all.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(all.err()).contains("Refusing to delete every savepoint of job " + ToolRun.JOB);
        assertThat(Path.of(sp.location(), "_metadata.ser")).exists();
    }

    @Test
    void refusesASavepointAndAllTogether() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--all", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("not both");
        assertThat(Path.of(sp.location())).exists();
    }

    @Test
    void deletesOneSavepointWithYesAndLeavesTheOther() throws Exception {
        SavepointHandle gone = ToolRun.savepoint(namespace, 6);
        SavepointHandle kept = ToolRun.savepoint(namespace, 7);

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--namespace", namespace.toString(), ToolRun.JOB,
                gone.savepointId());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("Deleted savepoint " + gone.savepointId(), gone.location());
        assertThat(Path.of(gone.location())).doesNotExist();
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            assertThat(((SavepointStorage) storage).listSavepoints(ToolRun.JOB)).containsExactly(kept);
        }
    }

    @Test
    void deletingAMissingSavepointExitsThree() throws Exception {
        ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--namespace", namespace.toString(), ToolRun.JOB, "sp-nope");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(r.err()).contains("sp-nope", "does not exist");
    }

    @Test
    void deleteAllRemovesEverySavepointOfTheJob() throws Exception {
        SavepointHandle a = ToolRun.savepoint(namespace, 6);
        SavepointHandle b = ToolRun.savepoint(namespace, 7);

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--all", "--namespace", namespace.toString(), ToolRun.JOB);

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains(a.savepointId(), b.savepointId(), "Deleted 2 savepoint(s) of job " + ToolRun.JOB);
        assertThat(Files.exists(namespace.resolve("savepoint").resolve(ToolRun.JOB))).isFalse();
    }

    @Test
    void deleteAllKeepsAndReportsFoldersHoldingWhatKeepsakeDidNotWrite() throws Exception {
        SavepointHandle a = ToolRun.savepoint(namespace, 6);
        SavepointHandle b = ToolRun.savepoint(namespace, 7);
        List<String> aFiles = files(a);
        List<String> bFiles = files(b);
        Path readme = Files.write(Path.of(a.location(), "README"), new byte[] {1});
        Path extra = Files.createDirectories(Path.of(a.location(), "extra-dir"));
        Files.write(extra.resolve("file"), new byte[] {2});
        Path jobDir = namespace.resolve("savepoint").resolve(ToolRun.JOB);
        Path photos = Files.createDirectories(jobDir.resolve("photos"));
        Files.write(photos.resolve("img.jpg"), new byte[] {3});
        List<String> markers = listing(jobDir.resolve(".index"));
        // the newest markers (the folder's sentinel is dropped too, and not listed among what went)
        List<String> newest = listing(jobDir.resolve(".newest")).stream()
                .filter(p -> !Path.of(p).getFileName().toString().startsWith("complete~")).toList();

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--all", "--json", "--namespace", namespace.toString(),
                ToolRun.JOB);

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(0);
        JsonNode doc = MAPPER.readTree(r.out());
        // exactly what went: both savepoints' files, b's folder, the index and newest markers, the
        // emptied index and newest folders and the staging folder (emptied: each delete's record is
        // gone once it finished)
        List<String> expected = new ArrayList<>(aFiles);
        expected.addAll(bFiles);
        expected.add(b.location());
        expected.addAll(markers);
        expected.add(jobDir.resolve(".index").toString());
        expected.addAll(newest);
        expected.add(jobDir.resolve(".newest").toString());
        expected.add(jobDir.resolve(".staging").toString());
        assertThat(paths(doc.get("deleted"))).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(doc.get("deleted").get(0).get("job").asString()).isEqualTo(ToolRun.JOB);
        assertThat(doc.get("deleted").toString()).contains("\"savepointId\":\"" + b.savepointId() + "\"");
        assertThat(reasons(doc.get("kept"))).containsOnlyKeys(readme.toString(), extra.toString(), a.location(),
                photos.toString(), jobDir.toString());
        assertThat(reasons(doc.get("kept")).get(readme.toString())).isEqualTo("Keepsake did not write it");
        assertThat(reasons(doc.get("kept")).get(extra.toString())).isEqualTo("Keepsake did not write it");
        assertThat(reasons(doc.get("kept")).get(a.location())).isEqualTo("it still holds the entries kept in it");
        assertThat(reasons(doc.get("kept")).get(photos.toString())).contains("only entries Keepsake does not write");
        assertThat(doc.get("kept").toString()).doesNotContain("could not be deleted");
        assertThat(doc.get("failed").size()).isZero();
        assertThat(readme).exists();
        assertThat(extra.resolve("file")).exists();
        assertThat(photos.resolve("img.jpg")).exists();
        assertThat(Path.of(a.location(), "_metadata.ser")).doesNotExist();
        assertThat(Path.of(b.location())).doesNotExist();
    }

    /**
     * The delete an operator runs on a savepoint whose metadata was damaged (one byte flipped):
     * one run removes the metadata and the payloads of the attempt that wrote it, leaves the file
     * Keepsake did not write with that reason, and reports each path.
     */
    @Test
    void aSavepointWithDamagedMetadataGoesInOneRunAndEveryPathIsReported() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        List<String> written = files(sp);
        assertThat(written).hasSize(3);
        List<String> markers = listing(namespace.resolve("savepoint").resolve(ToolRun.JOB).resolve(".index"));
        assertThat(markers).hasSize(1);
        flipAByte(Path.of(sp.location(), "_metadata.ser"));
        Path notes = Files.write(Path.of(sp.location(), "notes.txt"), new byte[] {1});

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--json", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(0);
        JsonNode doc = MAPPER.readTree(r.out());
        List<String> expected = new ArrayList<>(written);
        expected.addAll(markers);
        assertThat(paths(doc.get("deleted"))).containsExactlyInAnyOrderElementsOf(expected);
        doc.get("deleted").forEach(n -> assertThat(n.get("savepointId").isNull())
                .isEqualTo(n.get("path").asString().contains("/.index/")));
        assertThat(reasons(doc.get("kept"))).containsOnly(
                Map.entry(notes.toString(), "Keepsake did not write it"),
                Map.entry(sp.location(), "it still holds the entries kept in it"));
        for (String f : written) {
            assertThat(Path.of(f)).doesNotExist();
        }
        assertThat(notes).exists();

        // nothing of Keepsake's is left for a second run: it finds only the file Keepsake did not write
        ToolRun.Result again = ToolRun.run("delete", "--yes", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());
        assertThat(again.exitCode()).as(again.out() + again.err()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(again.err()).contains("only entries Keepsake does not write", "notes.txt");
        assertThat(notes).exists();
    }

    @Test
    void theTextOfADeleteNamesEveryPathRemovedAndKept() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        List<String> written = files(sp);
        flipAByte(Path.of(sp.location(), "_metadata.ser"));
        Path notes = Files.write(Path.of(sp.location(), "notes.txt"), new byte[] {1});

        ToolRun.Result r = ToolRun.run("delete", "--yes", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(0);
        for (String f : written) {
            assertThat(r.out()).contains("  removed " + f + System.lineSeparator());
        }
        assertThat(r.out()).contains("  kept " + notes + ": Keepsake did not write it")
                .doesNotContain("removed " + notes);
    }

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** The metadata and payload files of a savepoint, as paths. */
    private static List<String> files(SavepointHandle sp) throws Exception {
        return listing(Path.of(sp.location()));
    }

    private static List<String> listing(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(Path::toString).sorted().toList();
        }
    }

    private static void flipAByte(Path file) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 1;
        Files.write(file, bytes);
    }

    private static List<String> paths(JsonNode records) {
        List<String> paths = new ArrayList<>();
        records.forEach(n -> paths.add(n.get("path").asString()));
        return paths;
    }

    private static Map<String, String> reasons(JsonNode records) {
        Map<String, String> reasons = new TreeMap<>();
        records.forEach(n -> reasons.put(n.get("path").asString(), n.get("reason").asString()));
        return reasons;
    }
}
