package io.keepsake.tool;

import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.internal.MetadataCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A damaged savepoint is still shown with what can be read and why it
 * failed; list gives the same one-line reason verify gives; a folder Keepsake did not write is
 * listed as foreign (gc's own decision), not as incomplete forever; gc reports the age it was asked.
 */
class WhatCanBeReadTest {

    @TempDir
    Path namespace;

    @Test
    void inspectDecodeOfACorruptedPayloadStillPrintsTheMetadataAndTheReason() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        Path payload = ListInspectVerifyTest.flipMiddleOfFirstPayload(sp);

        ToolRun.Result r = ToolRun.run("inspect", "--decode", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(r.out()).contains(sp.savepointId(), sp.location(), "manual", "Manifest",
                sp.meta().manifest().get(0).file(), sp.meta().manifest().get(1).file(), "Status", "corrupted: ", payload.toString(), "none shown");
        assertThat(r.err()).startsWith("keepsake inspect: corrupted: ").contains(payload.toString());
    }

    @Test
    void inspectOfCorruptedMetadataPrintsWhereItIsAndWhy() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        Path metadata = Path.of(sp.location(), "_metadata.ser");
        ListInspectVerifyTest.flipByte(metadata, 20);

        ToolRun.Result r = ToolRun.run("inspect", "--namespace", namespace.toString(), ToolRun.JOB, sp.savepointId());
        ToolRun.Result json = ToolRun.run("inspect", "--json", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED).isEqualTo(json.exitCode());
        assertThat(r.out()).contains(sp.savepointId(), "Location", sp.location(), "corrupted: ", metadata.toString(),
                "could not be read");
        assertThat(json.out()).contains("\"error\": null", "\"status\": \"corrupted\"", "\"location\": \"" + sp.location(),
                "\"file\": \"" + metadata, "\"manifest\": null");
    }

    @Test
    void anIncompatibleSavepointIsShownWithItsMetadataAndTheReasonByInspectListAndVerify() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        SavepointMeta m = sp.meta();
        SavepointMeta future = new SavepointMeta(99, m.savepointId(), m.jobId(), m.kind(), "keepsake-9.0",
                m.triggerTimestamp(), m.completedTimestamp(), m.payloadFormat(), m.manifest(), m.properties());
        Files.write(Path.of(sp.location(), MetadataCodec.FILE_NAME), MetadataCodec.encode(future));
        String ns = namespace.toString();

        ToolRun.Result inspect = ToolRun.run("inspect", "--decode", "--namespace", ns, ToolRun.JOB, sp.savepointId());
        ToolRun.Result json = ToolRun.run("inspect", "--json", "--namespace", ns, ToolRun.JOB, sp.savepointId());
        ToolRun.Result list = ToolRun.run("list", "--namespace", ns);
        ToolRun.Result verify = ToolRun.run("verify", "--json", "--namespace", ns);

        assertThat(inspect.exitCode()).isEqualTo(ExitCodes.INCOMPATIBLE);
        assertThat(inspect.out()).contains("Format version  99 (this build reads 1 to 2)", "keepsake-9.0", "Manifest",
                m.manifest().get(0).file(), "incompatible: ", "none shown");
        assertThat(inspect.err()).startsWith("keepsake inspect: incompatible: ");
        assertThat(json.exitCode()).isEqualTo(ExitCodes.INCOMPATIBLE);
        assertThat(json.out()).contains("\"error\": null", "\"formatVersion\": 99", "\"status\": \"incompatible\"",
                "\"checkpoints\": null");
        assertThat(list.exitCode()).isEqualTo(ExitCodes.INCOMPATIBLE);
        assertThat(list.err()).startsWith("keepsake list: incompatible: ").contains("99");
        assertThat(verify.exitCode()).isEqualTo(ExitCodes.INCOMPATIBLE);
        assertThat(verify.out()).contains("\"formatVersion\": 99", "\"kind\": \"manual\"", "\"location\": \""
                + sp.location());
    }

    @Test
    void listPrintsTheOneLineReasonThatVerifyPrints() throws Exception {
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        Path metadata = Path.of(sp.location(), "_metadata.ser");
        ListInspectVerifyTest.flipByte(metadata, 20);

        ToolRun.Result list = ToolRun.run("list", "--namespace", namespace.toString());
        ToolRun.Result verify = ToolRun.run("verify", "--namespace", namespace.toString());

        assertThat(list.exitCode()).isEqualTo(ExitCodes.CORRUPTED).isEqualTo(verify.exitCode());
        String reason = verify.err().strip().replaceFirst("^keepsake verify: ", "");
        assertThat(reason).startsWith("corrupted: ").contains(metadata.toString());
        assertThat(list.err().strip()).isEqualTo("keepsake list: " + reason);
    }

    @Test
    void aFolderKeepsakeDidNotWriteIsListedAsForeignAndGcKeepsIt() throws Exception {
        ToolRun.savepoint(namespace, 6);
        Path jobDir = namespace.resolve("savepoint").resolve(ToolRun.JOB);
        Path foreign = Files.createDirectories(jobDir.resolve("sp-restored-by-hand"));
        Files.writeString(foreign.resolve("notes.txt"), "copied from the old cluster");
        Path incomplete = Files.createDirectories(jobDir.resolve("sp-half-written"));
        String ns = namespace.toString();

        ToolRun.Result list = ToolRun.run("list", "--namespace", ns);
        ToolRun.Result json = ToolRun.run("list", "--json", "--namespace", ns);
        ToolRun.Result gc = ToolRun.run("gc", "--older-than", "0", "--namespace", ns);
        ToolRun.Result after = ToolRun.run("list", "--namespace", ns);

        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out()).containsPattern("sp-restored-by-hand .*foreign: not written by Keepsake: .*notes\\.txt.*"
                + "gc keeps it").containsPattern("sp-half-written .*incomplete");
        assertThat(json.out()).contains("\"status\": \"foreign\"", "\"status\": \"incomplete\"");
        assertThat(gc.exitCode()).as(gc.err()).isZero();
        assertThat(gc.out()).contains("kept " + foreign, "deleted " + incomplete);
        assertThat(foreign.resolve("notes.txt")).exists();
        assertThat(after.out()).contains("sp-restored-by-hand", "foreign").doesNotContain("sp-half-written");
    }

    @Test
    void gcReportsASubSecondAgeAsAskedAndRefusesFractionsOfAMillisecond() throws Exception {
        ToolRun.savepoint(namespace, 6);

        ToolRun.Result ms = ToolRun.run("gc", "--json", "--dry-run", "--older-than", "500ms", "--namespace",
                namespace.toString());
        ToolRun.Result iso = ToolRun.run("gc", "--json", "--dry-run", "--older-than", "PT1.5S", "--namespace",
                namespace.toString());
        ToolRun.Result finer = ToolRun.run("gc", "--json", "--dry-run", "--older-than", "PT0.0005S", "--namespace",
                namespace.toString());

        assertThat(ms.out()).contains("\"olderThan\": \"500ms\"", "\"olderThanMillis\": 500");
        assertThat(iso.out()).contains("\"olderThanMillis\": 1500");
        assertThat(finer.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(finer.out()).contains("\"type\": \"usage error\"", "finer than a millisecond");
    }
}
