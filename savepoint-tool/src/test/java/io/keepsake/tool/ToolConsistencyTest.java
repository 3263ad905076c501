package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.tool.internal.DemoState;
import io.keepsake.wire.LegacyCheckpointCodec;
import io.keepsake.engine.CheckpointType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where {@code --json} goes, one shape for "not found", one meaning per JSON field name, and
 * savepoint roots and paths read the way an operator types them.
 */
class ToolConsistencyTest {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final String OTHER_JOB = "700000000000000999";

    @TempDir
    Path temp;

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }

    @Test
    void helpWithJsonPrintsTheHelpDocumentOfTheCommandNamed() {
        ToolRun.Result r = ToolRun.run("help", "list", "--json");
        ToolRun.Result top = ToolRun.run("help", "--json");
        ToolRun.Result unknown = ToolRun.run("help", "frobnicate", "--json");

        assertThat(r.exitCode()).as(r.err()).isZero();
        JsonNode doc = MAPPER.readTree(r.out());
        assertThat(doc.get("command").asString()).isEqualTo("list");
        assertThat(doc.get("error").isNull()).isTrue();
        assertThat(doc.get("usage").asString()).startsWith("Usage: keepsake list");
        assertThat(MAPPER.readTree(top.out()).get("usage").asString()).startsWith("Usage: keepsake ");
        assertThat(unknown.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(MAPPER.readTree(unknown.out()).get("error").get("message").asString()).contains("frobnicate");
    }

    @Test
    void jsonBeforeTheCommandIsRefusedSayingWhereItGoes() throws Exception {
        Path ns = temp.resolve("ns");
        ToolRun.savepoint(ns, 6);

        ToolRun.Result r = ToolRun.run("--json", "list", "--namespace", ns.toString());

        assertThat(r.exitCode()).as(r.out()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("usage error", "keepsake list --json");
        JsonNode doc = MAPPER.readTree(r.out());
        assertThat(doc.get("error").get("exitCode").asInt()).isEqualTo(ExitCodes.USAGE);
        assertThat(doc.get("error").get("message").asString()).contains("put it after the command name");
    }

    @Test
    void notFoundIsTheSameErrorDocumentForListInspectAndVerify() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);
        String n = ns.toString();
        List<String[]> asked = List.of(
                new String[] {"inspect", "--json", "--namespace", n, ToolRun.JOB, "sp-none"},
                new String[] {"verify", "--json", "--namespace", n, ToolRun.JOB, "sp-none"},
                new String[] {"verify", "--json", "--namespace", n, OTHER_JOB},
                new String[] {"list", "--json", "--namespace", n, OTHER_JOB},
                new String[] {"list", "--json", "--namespace", n, ToolRun.JOB, OTHER_JOB});
        for (String[] args : asked) {
            ToolRun.Result r = ToolRun.run(args);

            String what = String.join(" ", args);
            assertThat(r.exitCode()).as(what + "\n" + r.out()).isEqualTo(ExitCodes.NOT_FOUND);
            JsonNode doc = MAPPER.readTree(r.out());
            assertThat(fieldNames(doc)).as(what).containsExactly("schemaVersion", "command", "error");
            assertThat(doc.get("error").get("type").asString()).as(what).isEqualTo("not found");
            assertThat(doc.get("error").get("exception").asString()).as(what).isEqualTo("SavepointNotFoundException");
            assertThat(doc.get("error").get("exitCode").asInt()).as(what).isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(r.err()).as(what).contains("not found");
        }
        ToolRun.Result text = ToolRun.run("list", "--namespace", n, ToolRun.JOB, OTHER_JOB);
        assertThat(text.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(text.out()).as("text still lists what was found").contains(sp.savepointId());
        assertThat(text.err()).contains("not found: Cannot list job " + OTHER_JOB + ": it has no savepoint");
    }

    @Test
    void fileNamesAFileThatFailedToVerifyAndTheOtherFilesHaveTheirOwnNames() throws Exception {
        Path ns = temp.resolve("ns");
        SavepointHandle sp = ToolRun.savepoint(ns, 6);
        String legacyJob = "700000000000000456";
        try (CheckpointStorage storage = ToolRun.open(ns)) {
            storage.storeCheckPoint(new PipelineState(legacyJob, 1, 1, LegacyCheckpointCodec.encodeCheckpoint(
                    DemoState.checkpoint(Long.parseLong(legacyJob), 1, 1, CheckpointType.CHECKPOINT_TYPE))));
        }

        JsonNode inspect = MAPPER.readTree(ToolRun.run("inspect", "--json", "--namespace", ns.toString(), ToolRun.JOB,
                sp.savepointId()).out());
        JsonNode list = MAPPER.readTree(ToolRun.run("list", "--json", "--namespace", ns.toString()).out());

        JsonNode entry = inspect.get("manifest").get(0);
        assertThat(entry.get("payloadFile").asString()).isEqualTo(sp.meta().manifest().get(0).file());
        assertThat(entry.get("chunkSize").asInt()).isPositive();
        assertThat(inspect.get("file").isNull()).as("nothing failed to verify").isTrue();
        JsonNode latest = list.get("checkpointJobs").get(0).get("latestCheckpoints").get(0);
        assertThat(Path.of(latest.get("checkpointFile").asString())).exists();
        assertThat(list.get("savepoints").get(0).get("file").isNull()).isTrue();
    }

    @Test
    void aNamespaceUriChoosesTheBackendItNames() {
        ToolRun.Result oss = ToolRun.run("list", "--namespace", "oss://bucket/st/checkpoint");
        ToolRun.Result local = ToolRun.run("list", "--backend", "localfile", "--namespace", "hdfs://nn:8020/st");

        assertThat(oss.exitCode()).as(oss.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(oss.err()).as("the hdfs backend's refusal, not the local one's").contains("oss://",
                "hdfs.allow-non-atomic-scheme=true").doesNotContain("absolute");
        assertThat(local.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(local.err()).contains("--backend hdfs", "hdfs://nn:8020/st");
    }

    @Test
    void theHdfsBackendTakesItsAddressFromTheNamespaceUri() {
        // Port 1 on the loopback refuses at once: the storage got as far as contacting the address.
        ToolRun.Result r = ToolRun.run("list", "--backend", "hdfs", "--namespace", "hdfs://127.0.0.1:1/st/checkpoint",
                "-D", "seatunnel.hadoop.ipc.client.connect.max.retries=0");

        assertThat(r.exitCode()).as(r.err()).isNotEqualTo(ExitCodes.USAGE).isNotZero();
        assertThat(r.err()).contains("127.0.0.1:1").doesNotContain("fs.defaultFS");
    }

    @Test
    void aJobFolderGivenAsASavepointPathSaysWhatToType() throws Exception {
        Path ns = temp.resolve("ns");
        ToolRun.savepoint(ns, 6);
        String jobFolder = ns.resolve("savepoint").resolve(ToolRun.JOB).toString();

        ToolRun.Result verify = ToolRun.run("verify", jobFolder);
        ToolRun.Result inspect = ToolRun.run("inspect", jobFolder);

        assertThat(verify.exitCode()).as(verify.err()).isEqualTo(ExitCodes.USAGE);
        String typed = "keepsake verify --namespace " + ns + " " + ToolRun.JOB;
        assertThat(verify.err()).contains("folder of job " + ToolRun.JOB, typed);
        ToolRun.Result suggested = ToolRun.run(typed.substring("keepsake ".length()).split(" "));
        assertThat(suggested.exitCode()).as(suggested.err()).isZero();
        assertThat(inspect.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(inspect.err()).contains("keepsake list --namespace " + ns + " " + ToolRun.JOB,
                "keepsake inspect " + jobFolder + "/<savepoint>");

        Path custom = temp.resolve("ns2");
        Path root = temp.resolve("elsewhere").resolve("sp");
        SavepointHandle moved = ToolRun.savepoint(custom, 7, java.util.Map.of("savepoint.path", root.toString()));
        ToolRun.Result other = ToolRun.run("verify", Path.of(moved.location()).getParent().toString());
        assertThat(other.exitCode()).as(other.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(other.err()).contains("--savepoint-path " + root + " " + ToolRun.JOB);
    }

    @Test
    void aDryRunOverARootKeepsakeNeverMarkedSaysNothingWouldGoAndExitsZero() throws Exception {
        Path ns = temp.resolve("ns");
        Path photos = Files.createDirectories(ns.resolve("savepoint").resolve("alice").resolve("photos"));
        Files.write(photos.resolve("cat.jpg"), new byte[] {1, 2, 3});

        ToolRun.Result dry = ToolRun.run("gc", "--dry-run", "--older-than", "0s", "--namespace", ns.toString());
        ToolRun.Result json = ToolRun.run("gc", "--dry-run", "--json", "--older-than", "0s", "--namespace",
                ns.toString());
        ToolRun.Result real = ToolRun.run("gc", "--older-than", "0s", "--namespace", ns.toString());

        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("nothing would be removed", "holds no Keepsake savepoints")
                .doesNotContain("commit one savepoint");
        assertThat(json.exitCode()).isZero();
        assertThat(MAPPER.readTree(json.out()).get("candidates")).isEmpty();
        assertThat(real.exitCode()).as("a real gc still refuses").isEqualTo(ExitCodes.FAILURE);
        assertThat(photos.resolve("cat.jpg")).exists();

        Path old = temp.resolve("old");
        ToolRun.savepoint(old, 6);
        Files.delete(old.resolve("savepoint").resolve(".keepsake-root"));
        ToolRun.Result unmarked = ToolRun.run("gc", "--dry-run", "--older-than", "0s", "--namespace", old.toString());
        assertThat(unmarked.exitCode()).as(unmarked.err()).isZero();
        assertThat(unmarked.out()).as("savepoints that are there are not denied").contains("nothing would be removed",
                "holds 1 savepoint(s) with Keepsake metadata").doesNotContain("holds no Keepsake savepoints");
    }
}
