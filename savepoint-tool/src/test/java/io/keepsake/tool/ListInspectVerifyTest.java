package io.keepsake.tool;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The read-only commands on a local storage with real savepoints: list, inspect and verify. */
class ListInspectVerifyTest {

    @TempDir
    Path namespace;

    @Test
    void listShowsEverySavepointNewestFirstWithStatus() throws Exception {
        SavepointHandle older = ToolRun.savepoint(namespace, 6);
        SavepointHandle newer = ToolRun.savepoint(namespace, 9);
        Files.createDirectories(namespace.resolve("savepoint").resolve(ToolRun.JOB).resolve("sp-half-written"));

        ToolRun.Result r = ToolRun.run("list", "--namespace", namespace.toString());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("JOB", "SAVEPOINT", "KIND", "FORMAT", "COMPLETED", "PIPELINES", "BYTES", "STATUS");
        assertThat(r.out()).containsSubsequence(newer.savepointId(), older.savepointId());
        assertThat(r.out()).contains("manual", "1,2", "ok", "sp-half-written", "incomplete");
        long total = newer.meta().manifest().stream().mapToLong(ManifestEntry::length).sum();
        assertThat(r.out()).contains(Long.toString(total));
        assertThat(r.err()).isEmpty();
    }

    @Test
    void listOfAnUnknownJobSaysThereIsNothingAndExitsNotFound() throws Exception {
        ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("list", "--namespace", namespace.toString(), "700000000000000999");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(r.out()).startsWith("No savepoints of job(s) 700000000000000999");
        assertThat(r.err()).contains("not found: Cannot list job 700000000000000999: it has no savepoint");
    }

    @Test
    void listJsonIsMachineReadable() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("list", "--json", "--namespace", namespace.toString());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out().strip()).startsWith("{").endsWith("}");
        assertThat(r.out()).contains("\"savepointId\": \"" + sp.savepointId() + "\"", "\"status\": \"ok\"",
                "\"formatVersion\": 2", "\"kind\": \"manual\"", "\"reason\": null");
    }

    @Test
    void listReportsACorruptedMetadataFileWithItsReason() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        Path metadata = Path.of(sp.location(), "_metadata.ser");
        flipByte(metadata, 20);

        ToolRun.Result r = ToolRun.run("list", "--namespace", namespace.toString());

        assertThat(r.exitCode()).as("a corrupted entry fails list as it fails verify").isEqualTo(ExitCodes.CORRUPTED);
        assertThat(r.out()).contains("corrupted: ").contains(metadata.toString()).contains("checked metadata only");
    }

    @Test
    void inspectPrintsMetadataAndManifest() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("inspect", "--namespace", namespace.toString(), ToolRun.JOB, sp.savepointId());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("Savepoint", sp.savepointId(), "Format version  2 (this build reads 1 to 2)",
                "keepsake-0.1.0", "engine-wire-v1", "pipelines", "[1, 2]", "Manifest");
        for (ManifestEntry e : sp.meta().manifest()) {
            assertThat(r.out()).contains(e.file()).contains(e.sha256()).contains(Long.toString(e.length()));
        }
        assertThat(r.out()).doesNotContain("Decoded checkpoints");
    }

    @Test
    void inspectDecodeSummarisesEveryAction() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("inspect", "--decode", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("Decoded checkpoints", "Pipeline 1: checkpoint 6, type savepoint",
                "Pipeline 2: checkpoint 6, type savepoint", "pipeline-1/source-FakeSource", "pipeline-2/sink-Console",
                "NON-EMPTY SLOTS", "STATE BYTES");
    }

    @Test
    void inspectJsonWithDecodeListsCheckpoints() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("inspect", "--json", "--decode", "--namespace", namespace.toString(),
                ToolRun.JOB, sp.savepointId());

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("\"payloadFormat\": \"engine-wire-v1\"", "\"manifest\": [", "\"checkpoints\": [",
                "\"type\": \"savepoint\"", "\"nonEmptySlots\": 2", "\"pipelines\": \"[1, 2]\"");
    }

    @Test
    void inspectOfAMissingSavepointExitsThree() throws Exception {
        ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("inspect", "--namespace", namespace.toString(), ToolRun.JOB, "sp-nope");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(r.err()).contains("not found", "sp-nope");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void verifyReadsEverySavepointAndExitsZero() throws Exception {
        SavepointHandle a = ToolRun.savepoint(namespace, 6);
        SavepointHandle b = ToolRun.savepoint(namespace, 7);

        ToolRun.Result all = ToolRun.run("verify", "--namespace", namespace.toString());
        ToolRun.Result one = ToolRun.run("verify", "--namespace", namespace.toString(), ToolRun.JOB, a.savepointId());

        assertThat(all.exitCode()).isEqualTo(0);
        assertThat(all.out()).contains(a.savepointId(), b.savepointId(), "OK", "2 ok, 0 failed");
        assertThat(one.exitCode()).isEqualTo(0);
        assertThat(one.out()).contains(a.savepointId()).doesNotContain(b.savepointId());
        assertThat(all.err()).isEmpty();
    }

    @Test
    void verifyJsonReportsResults() throws Exception {
        SavepointHandle a = ToolRun.savepoint(namespace, 6);

        ToolRun.Result r = ToolRun.run("verify", "--json", "--namespace", namespace.toString(), ToolRun.JOB);

        assertThat(r.exitCode()).isEqualTo(0);
        assertThat(r.out()).contains("\"ok\": 1", "\"failed\": 0", "\"savepointId\": \"" + a.savepointId() + "\"",
                "\"status\": \"ok\"", "\"pipelines\": [\n        1,\n        2\n      ]", "\"schemaVersion\": 3");
    }

    @Test
    void verifyOfABitFlippedPayloadExitsFourNamingTheFile() throws Exception {
        SavepointHandle good = ToolRun.savepoint(namespace, 6);
        SavepointHandle bad = ToolRun.savepoint(namespace, 7);
        Path payload = Path.of(bad.location(), bad.meta().entryForPipeline(2).file());
        flipByte(payload, (int) Files.size(payload) / 2);

        ToolRun.Result r = ToolRun.run("verify", "--namespace", namespace.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(r.out()).contains("FAILED", "corrupted", payload.toString(), "1 ok, 1 failed");
        assertThat(r.out()).contains(good.savepointId());
        assertThat(r.err()).contains("corrupted", "SHA-256", payload.toString());
    }

    /**
     * A payload that is a directory or a FIFO is corruption: {@code verify}, {@code list --verify}
     * and {@code inspect --decode} exit 4 naming it, and the FIFO is never opened.
     */
    @Test
    void aPayloadThatIsADirectoryOrAFifoExitsFourAndNeverBlocks() throws Exception {
        SavepointHandle good = ToolRun.savepoint(namespace, 6);
        SavepointHandle bad = ToolRun.savepoint(namespace, 7);
        Path payload = Path.of(bad.location(), bad.meta().entryForPipeline(2).file());
        for (String kind : java.util.List.of("directory", "fifo")) {
            Files.delete(payload);
            if (kind.equals("directory")) {
                Files.createDirectory(payload);
            } else {
                Process mkfifo = new ProcessBuilder("mkfifo", payload.toString()).inheritIO().start();
                assertThat(mkfifo.waitFor()).as("mkfifo " + payload).isZero();
            }
            String ns = namespace.toString();
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
                for (String[] args : java.util.List.of(new String[] {"verify", "--namespace", ns},
                        new String[] {"list", "--verify", "--namespace", ns},
                        new String[] {"inspect", "--decode", "--namespace", ns, ToolRun.JOB, bad.savepointId()})) {
                    ToolRun.Result r = ToolRun.run(args);
                    assertThat(r.exitCode()).as(kind + ": " + String.join(" ", args) + "\n" + r.err())
                            .isEqualTo(ExitCodes.CORRUPTED);
                    assertThat(r.out() + r.err()).as(kind + ": " + args[0]).contains("not a regular file",
                            payload.toString());
                }
            });
            ToolRun.Result json = ToolRun.run("verify", "--json", "--namespace", ns, ToolRun.JOB, bad.savepointId());
            assertThat(json.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
            assertThat(json.out()).contains("\"status\": \"corrupted\"", "\"file\": \"" + payload + "\"");
            assertThat(ToolRun.run("verify", "--namespace", ns, ToolRun.JOB, good.savepointId()).exitCode())
                    .isZero();
            if (kind.equals("directory")) {
                Files.delete(payload);
                Files.createFile(payload);
            }
        }
    }

    @Test
    void verifyOfAnIncompleteDirectorySkipsItButByIdItIsNotFound() throws Exception {
        ToolRun.savepoint(namespace, 6);
        Files.createDirectories(namespace.resolve("savepoint").resolve(ToolRun.JOB).resolve("sp-half-written"));

        ToolRun.Result scan = ToolRun.run("verify", "--namespace", namespace.toString(), ToolRun.JOB);
        ToolRun.Result byId = ToolRun.run("verify", "--namespace", namespace.toString(), ToolRun.JOB, "sp-half-written");

        assertThat(scan.exitCode()).isEqualTo(0);
        assertThat(scan.out()).contains("SKIPPED", "1 incomplete directory skipped");
        assertThat(byId.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(byId.err()).contains("not found", "_metadata.ser");
    }

    @Test
    void verifyOfAJobWithoutSavepointsExitsThree() throws Exception {
        ToolRun.Result r = ToolRun.run("verify", "--namespace", namespace.toString(), "700000000000000999");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(r.err()).contains("700000000000000999");
    }

    /** Flips the middle byte of the first payload file of {@code savepoint}, which its digest then refuses; returns that file. */
    static Path flipMiddleOfFirstPayload(SavepointHandle savepoint) throws Exception {
        Path payload = Path.of(savepoint.location(), savepoint.meta().manifest().get(0).file());
        flipByte(payload, (int) Files.size(payload) / 2);
        return payload;
    }

    static void flipByte(Path file, int position) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        bytes[position] ^= 0x01;
        Files.write(file, bytes);
    }
}
