package io.keepsake.tool;

import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** One JSON schema on every command, errors included, and exit codes that agree. */
class JsonAndExitCodesTest {

    @TempDir
    Path temp;

    private Path namespace;

    private void seed() throws Exception {
        namespace = temp.resolve("ns");
        ToolRun.savepoint(namespace, 6);
    }

    @Test
    void everyCommandPrintsOneVersionedDocument() throws Exception {
        seed();
        String ns = namespace.toString();
        String id = ToolRun.savepoint(namespace, 7).savepointId();
        List<String[]> commands = List.of(
                new String[] {"list", "--json", "--namespace", ns},
                new String[] {"inspect", "--json", "--namespace", ns, ToolRun.JOB, id},
                new String[] {"verify", "--json", "--namespace", ns},
                new String[] {"gc", "--json", "--dry-run", "--namespace", ns},
                new String[] {"gc", "--json", "--namespace", ns},
                new String[] {"migrate", "--json", "--all-jobs", "--dry-run", "--namespace", ns},
                new String[] {"completion", "--json"},
                new String[] {"delete", "--json", "--yes", "--namespace", ns, ToolRun.JOB, id});
        for (String[] args : commands) {
            ToolRun.Result r = ToolRun.run(args);

            assertThat(r.exitCode()).as("%s: %s", args[0], r.err()).isZero();
            assertThat(r.out().strip()).as(args[0]).startsWith("{\n  \"schemaVersion\": 3,\n  \"command\": \"" + args[0]
                    + "\"").endsWith("}").doesNotContain("totalBytes", "\"length\"", "\"result\"");
        }
    }

    @Test
    void pipelinesAreAListAndBytesHaveOneNameInListInspectAndVerify() throws Exception {
        seed();
        String ns = namespace.toString();
        String id = ToolRun.run("list", "--json", "--namespace", ns).out()
                .replaceAll("(?s).*?\"savepointId\": \"([^\"]+)\".*", "$1");
        String list = ToolRun.run("list", "--json", "--namespace", ns).out();
        String inspect = ToolRun.run("inspect", "--json", "--namespace", ns, ToolRun.JOB, id).out();
        String verify = ToolRun.run("verify", "--json", "--namespace", ns).out();

        String pipelines = "\"pipelines\": [\n";
        assertThat(list).contains(pipelines, "\"bytes\": ");
        assertThat(inspect).contains(pipelines, "\"bytes\": ", "\"properties\": {");
        assertThat(verify).contains(pipelines, "\"bytes\": ");
    }

    @Test
    void aCorruptedSavepointWithDecodeAndJsonStillPrintsItsMetadataWithTheReason() throws Exception {
        namespace = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        Path payload = ListInspectVerifyTest.flipMiddleOfFirstPayload(sp);

        ToolRun.Result r = ToolRun.run("inspect", "--decode", "--json", "--namespace", namespace.toString(), ToolRun.JOB,
                sp.savepointId());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.CORRUPTED);
        assertThat(r.out().strip()).startsWith("{\n  \"schemaVersion\": 3,\n  \"command\": \"inspect\",\n  \"error\": null,")
                .contains("\"kind\": \"manual\"", "\"manifest\": [", "\"statusChecked\": \"payloads\"",
                        "\"status\": \"corrupted\"", "\"file\": \"" + payload + "\"", "\"checkpoints\": null");
        assertThat(r.err()).contains("corrupted");
    }

    @Test
    void withoutACommandOneLineNamesEveryCommand() {
        ToolRun.Result r = ToolRun.run();
        ToolRun.Result json = ToolRun.run("--json");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().strip()).as("one line, not the whole usage").doesNotContain("\n")
                .isEqualTo("Cannot run keepsake: name a command (list, inspect, verify, delete, gc, migrate,"
                        + " prepare-restore, demo, completion); keepsake --help describes them");
        assertThat(json.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(json.out()).contains("\"type\": \"usage error\"", "prepare-restore");
    }

    @Test
    void usageErrorsAndNotFoundAreJsonToo() {
        ToolRun.Result usage = ToolRun.run("list", "--json", "--no-such-flag");
        ToolRun.Result notFound = ToolRun.run("verify", "--json", "--namespace", temp.resolve("missing").toString());

        assertThat(usage.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(usage.out()).contains("\"schemaVersion\": 3", "\"exitCode\": 2", "\"type\": \"invalid argument\"");
        assertThat(notFound.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(notFound.out()).contains("\"command\": \"verify\"", "\"exitCode\": 3", "\"type\": \"not found\"");
    }

    @Test
    void aJobWithoutSavepointsIsNotFoundForListAndVerifyAlike() throws Exception {
        seed();
        String other = "700000000000000999";

        ToolRun.Result list = ToolRun.run("list", "--namespace", namespace.toString(), other);
        ToolRun.Result verify = ToolRun.run("verify", "--namespace", namespace.toString(), other);

        assertThat(list.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(verify.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
    }

    @Test
    void aSecondDeleteIsNotFoundUnlessIgnored() throws Exception {
        namespace = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        String ns = namespace.toString();

        ToolRun.Result first = ToolRun.run("delete", "--yes", "--namespace", ns, ToolRun.JOB, sp.savepointId());
        ToolRun.Result second = ToolRun.run("delete", "--yes", "--namespace", ns, ToolRun.JOB, sp.savepointId());
        ToolRun.Result ignored = ToolRun.run("delete", "--yes", "--ignore-not-found", "--namespace", ns, ToolRun.JOB,
                sp.savepointId());

        assertThat(first.exitCode()).isZero();
        assertThat(second.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(second.err()).contains("not found", "does not exist");
        assertThat(ignored.exitCode()).as(ignored.err()).isZero();
        assertThat(ignored.out()).contains("Nothing to delete (--ignore-not-found)");
    }

    @Test
    void listVerifyReadsPayloadsAndExitsLikeVerify() throws Exception {
        namespace = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(namespace, 6);
        Path payload = ListInspectVerifyTest.flipMiddleOfFirstPayload(sp);

        ToolRun.Result metadataOnly = ToolRun.run("list", "--namespace", namespace.toString());
        ToolRun.Result withVerify = ToolRun.run("list", "--verify", "--namespace", namespace.toString());
        ToolRun.Result verify = ToolRun.run("verify", "--namespace", namespace.toString());

        assertThat(metadataOnly.exitCode()).as("metadata is intact").isZero();
        assertThat(metadataOnly.out()).contains("ok", "STATUS checked metadata only; add --verify");
        assertThat(withVerify.exitCode()).isEqualTo(ExitCodes.CORRUPTED).isEqualTo(verify.exitCode());
        assertThat(withVerify.out()).contains("corrupted: ", payload.toString(), "metadata and every payload");
    }
}
