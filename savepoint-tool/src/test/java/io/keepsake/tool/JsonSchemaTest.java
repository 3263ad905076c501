package io.keepsake.tool;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.internal.MetadataCodec;
import io.keepsake.tool.internal.DemoState;
import io.keepsake.wire.LegacyCheckpointCodec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every document {@code --json} prints, on success and on error, validates against
 * docs/keepsake-output.schema.json with additional properties refused (so every field the tool
 * prints is in the schema), and the schema rejects a document that leaves a field out or has the
 * shape an older version printed. The published schema itself accepts fields it does not list,
 * since fields may be added within a schema version and readers must ignore the ones they do not know.
 */
class JsonSchemaTest {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    /** The published schema: it allows fields it does not list. */
    private static Schema published;
    /** The same schema with additional properties refused everywhere, for the tool's own output. */
    private static Schema schema;

    @TempDir
    Path temp;

    /** The commands whose result document, and whose error document, a test validated. */
    private final Set<String> results = new java.util.TreeSet<>();
    private final Set<String> errors = new java.util.TreeSet<>();

    @BeforeAll
    static void loadSchema() throws Exception {
        Path file = Path.of("..", "docs", "keepsake-output.schema.json");
        String text = Files.readString(file);
        published = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(text);
        JsonNode strict = MAPPER.readTree(text);
        refuseAdditionalProperties(strict);
        schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(MAPPER.writeValueAsString(strict));
    }

    /** Turns every {@code "additionalProperties": true} in a schema into {@code false}. */
    private static void refuseAdditionalProperties(JsonNode node) {
        if (node instanceof ObjectNode object) {
            JsonNode additional = object.get("additionalProperties");
            if (additional != null && additional.isBoolean() && additional.asBoolean()) {
                object.put("additionalProperties", false);
            }
        }
        for (JsonNode child : node) {
            refuseAdditionalProperties(child);
        }
    }

    /** What the published schema finds wrong with a document; empty when it is valid. */
    private static List<String> publishedProblems(JsonNode doc) {
        List<String> problems = new ArrayList<>();
        for (Error e : published.validate(doc)) {
            problems.add(e.toString());
        }
        return problems;
    }

    /** What the schema finds wrong with a document; empty when it is valid. */
    private static List<String> problems(JsonNode doc) {
        List<String> problems = new ArrayList<>();
        for (Error e : schema.validate(doc)) {
            problems.add(e.toString());
        }
        return problems;
    }

    /** Runs the tool, checks stdout is one valid document with the expected exit code, and returns it. */
    private JsonNode valid(int exitCode, String... args) {
        ToolRun.Result r = ToolRun.run(args);
        assertThat(r.exitCode()).as("%s\nstdout: %s\nstderr: %s", String.join(" ", args), r.out(), r.err())
                .isEqualTo(exitCode);
        JsonNode doc = MAPPER.readTree(r.out());
        assertThat(problems(doc)).as("%s\n%s", String.join(" ", args), r.out()).isEmpty();
        assertThat(doc.get("schemaVersion").asInt()).isEqualTo(3);
        String command = doc.get("command").asString();
        if (!doc.get("error").isNull()) {
            errors.add(command);
        } else if (!doc.has("usage") && !doc.has("version")) {
            results.add(command);
        }
        return doc;
    }

    private static void writeLegacy(Path namespace, String job, long last) throws Exception {
        try (CheckpointStorage storage = ToolRun.open(namespace)) {
            for (long c = 1; c <= last; c++) {
                for (int p = 1; p <= 2; p++) {
                    CompletedCheckpoint cp = DemoState.checkpoint(Long.parseLong(job), p, c, CheckpointType.CHECKPOINT_TYPE);
                    storage.storeCheckPoint(new PipelineState(job, p, c, LegacyCheckpointCodec.encodeCheckpoint(cp)));
                }
            }
        }
    }

    @Test
    void everyCommandsOutputValidatesOnSuccessAndOnError() throws Exception {
        Path namespace = temp.resolve("ns");
        String ns = namespace.toString();
        SavepointHandle good = ToolRun.savepoint(namespace, 6);
        SavepointHandle badPayload = ToolRun.savepoint(namespace, 7);
        SavepointHandle badMetadata = ToolRun.savepoint(namespace, 8);
        Path payload = ListInspectVerifyTest.flipMiddleOfFirstPayload(badPayload);
        ListInspectVerifyTest.flipByte(Path.of(badMetadata.location(), "_metadata.ser"), 20);
        SavepointMeta m = ToolRun.savepoint(namespace, 9).meta();
        SavepointMeta future = new SavepointMeta(99, m.savepointId(), m.jobId(), m.kind(), "keepsake-9.0",
                m.triggerTimestamp(), m.completedTimestamp(), m.payloadFormat(), m.manifest(), m.properties());
        Path jobDir = namespace.resolve("savepoint").resolve(ToolRun.JOB);
        Files.write(jobDir.resolve(m.savepointId()).resolve(MetadataCodec.FILE_NAME), MetadataCodec.encode(future));
        Files.createDirectories(jobDir.resolve("sp-half-written"));
        Files.createDirectories(jobDir.resolve("sp-someone-elses"));
        Files.writeString(jobDir.resolve("sp-someone-elses").resolve("notes.txt"), "mine");
        String legacyJob = "700000000000000456";
        writeLegacy(namespace, legacyJob, 2);
        String job = ToolRun.JOB;

        JsonNode list = valid(ExitCodes.CORRUPTED, "list", "--json", "--namespace", ns);
        assertThat(list.get("savepoints").findValuesAsString("status"))
                .contains("ok", "incomplete", "foreign", "corrupted", "incompatible");
        assertThat(list.get("checkpointJobs")).hasSize(1);
        valid(ExitCodes.CORRUPTED, "list", "--json", "--verify", "--namespace", ns);
        valid(ExitCodes.NOT_FOUND, "list", "--json", "--namespace", ns, "700000000000000999");

        JsonNode inspect = valid(ExitCodes.OK, "inspect", "--json", "--decode", "--namespace", ns, job,
                good.savepointId());
        assertThat(inspect.get("checkpoints")).hasSize(2);
        valid(ExitCodes.OK, "inspect", "--json", good.location());
        JsonNode chunks = valid(ExitCodes.OK, "inspect", "--json", "--chunks", good.location());
        assertThat(chunks.get("manifest").get(0).get("chunks")).isNotEmpty();
        JsonNode corrupted = valid(ExitCodes.CORRUPTED, "inspect", "--json", "--decode", "--namespace", ns, job,
                badPayload.savepointId());
        assertThat(corrupted.get("manifest")).hasSize(2);
        assertThat(corrupted.get("file").asString()).isEqualTo(payload.toString());
        valid(ExitCodes.CORRUPTED, "inspect", "--json", "--namespace", ns, job, badMetadata.savepointId());
        valid(ExitCodes.NOT_FOUND, "inspect", "--json", "--namespace", ns, job, "sp-none");
        JsonNode incompatible = valid(ExitCodes.INCOMPATIBLE, "inspect", "--json", "--decode", "--namespace", ns, job,
                m.savepointId());
        assertThat(incompatible.get("formatVersion").asInt()).isEqualTo(99);

        JsonNode verify = valid(ExitCodes.CORRUPTED, "verify", "--json", "--namespace", ns);
        assertThat(verify.get("skipped").asInt()).isEqualTo(2);
        valid(ExitCodes.OK, "verify", "--json", "--namespace", ns, job, good.savepointId());
        valid(ExitCodes.NOT_FOUND, "verify", "--json", "--namespace", temp.resolve("missing").toString());

        valid(ExitCodes.OK, "migrate", "--json", "--dry-run", "--namespace", ns, legacyJob);
        valid(ExitCodes.OK, "migrate", "--json", "--namespace", ns, legacyJob);
        JsonNode again = valid(ExitCodes.OK, "migrate", "--json", "--namespace", ns, legacyJob);
        assertThat(again.get("jobs").get(0).get("status").asString()).isEqualTo("already-migrated");
        valid(ExitCodes.USAGE, "migrate", "--json", "--namespace", ns);
        SavepointHandle version1 = ToolRun.savepoint(namespace, 10, Map.of("savepoint.format-version", "1"));
        valid(ExitCodes.OK, "migrate", "--json", "--dry-run", "--namespace", ns, job, "--upgrade", version1.savepointId());
        JsonNode upgraded = valid(ExitCodes.OK, "migrate", "--json", "--namespace", ns, job, "--upgrade",
                version1.savepointId());
        assertThat(upgraded.get("upgrades").get(0).get("status").asString()).isEqualTo("upgraded");
        valid(ExitCodes.NOT_FOUND, "migrate", "--json", "--namespace", ns, job, "--upgrade", "sp-none");

        JsonNode prepared = valid(ExitCodes.OK, "prepare-restore", "--json", "--namespace", ns, job,
                good.savepointId());
        assertThat(prepared.get("prepared")).hasSize(2);
        valid(ExitCodes.CORRUPTED, "prepare-restore", "--json", "--namespace", ns, job, badPayload.savepointId());

        valid(ExitCodes.OK, "gc", "--json", "--dry-run", "--older-than", "0", "--namespace", ns);
        JsonNode gc = valid(ExitCodes.OK, "gc", "--json", "--older-than", "0", "--namespace", ns);
        assertThat(gc.get("deleted").findValuesAsString("path")).contains(jobDir.resolve("sp-half-written").toString());
        assertThat(gc.get("kept").findValuesAsString("path")).contains(jobDir.resolve("sp-someone-elses").toString());
        valid(ExitCodes.USAGE, "gc", "--json", "--older-than", "soon", "--namespace", ns);

        valid(ExitCodes.OK, "delete", "--json", "--yes", "--namespace", ns, job, good.savepointId());
        valid(ExitCodes.OK, "delete", "--json", "--yes", "--ignore-not-found", "--namespace", ns, job, good.savepointId());
        valid(ExitCodes.NOT_FOUND, "delete", "--json", "--yes", "--namespace", ns, job, good.savepointId());
        valid(ExitCodes.USAGE, "delete", "--json", "--namespace", ns, job, badPayload.savepointId());
        JsonNode all = valid(ExitCodes.OK, "delete", "--json", "--yes", "--all", "--namespace", ns, job);
        assertThat(all.get("kept").findValuesAsString("path")).contains(jobDir.resolve("sp-someone-elses").toString());

        valid(ExitCodes.OK, "demo", "--json", "--work-dir", temp.resolve("demo").toString());
        valid(ExitCodes.OK, "completion", "--json");

        for (String command : KeepsakeCli.commandLine().getSubcommands().keySet()) {
            if (command.equals("help")) {
                continue;
            }
            JsonNode help = valid(ExitCodes.OK, command, "--help", "--json");
            assertThat(help.get("usage").asString()).contains("Usage:");
            valid(ExitCodes.OK, command, "--version", "--json");
        }
        valid(ExitCodes.OK, "--help", "--json");
        JsonNode version = valid(ExitCodes.OK, "--version", "--json");
        assertThat(version.get("version").asString()).isNotBlank();
        JsonNode unknown = valid(ExitCodes.USAGE, "frobnicate", "--json");
        assertThat(unknown.get("error").get("message").asString()).contains("frobnicate");
        valid(ExitCodes.USAGE, "list", "--json", "--no-such-flag");
        valid(ExitCodes.USAGE, "--json");
        valid(ExitCodes.OK, "help", "list", "--json");
        valid(ExitCodes.USAGE, "--json", "list", "--namespace", ns);

        Files.writeString(Files.createDirectories(temp.resolve("busy")).resolve("precious.txt"), "keep me");
        valid(ExitCodes.USAGE, "demo", "--json", "--work-dir", temp.resolve("busy").toString());
        valid(ExitCodes.USAGE, "completion", "--json", "--no-such-flag");

        Set<String> commands = new java.util.TreeSet<>(KeepsakeCli.commandLine().getSubcommands().keySet());
        commands.remove("help");
        assertThat(results).as("commands whose result was validated").isEqualTo(commands);
        assertThat(errors).as("commands whose error document was validated").containsAll(commands)
                .contains("keepsake");
    }

    @Test
    void theSchemaRejectsAFieldLeftOutAndTheOldShapesAndReadersAcceptAnAddedField() throws Exception {
        Path namespace = temp.resolve("ns");
        ToolRun.savepoint(namespace, 6);
        ObjectNode list = (ObjectNode) valid(ExitCodes.OK, "list", "--json", "--namespace", namespace.toString());

        ObjectNode leftOut = list.deepCopy();
        ((ObjectNode) leftOut.get("savepoints").get(0)).remove("file");
        ObjectNode extra = list.deepCopy();
        extra.put("totalBytes", 1);
        ObjectNode wrongType = list.deepCopy();
        ((ObjectNode) wrongType.get("savepoints").get(0)).put("pipelines", "1,2");
        ObjectNode noError = list.deepCopy();
        noError.remove("error");
        ObjectNode gcOfVersion1 = MAPPER.createObjectNode();
        gcOfVersion1.put("schemaVersion", 3).put("command", "gc").putNull("error");
        gcOfVersion1.put("savepointRoot", "/r").put("olderThan", "1h").put("olderThanMillis", 3_600_000L)
                .put("dryRun", false).putNull("candidates");
        ((ArrayNode) gcOfVersion1.putArray("deleted")).add("/r/job/sp-a");
        gcOfVersion1.putArray("kept");
        gcOfVersion1.putArray("failed");

        assertThat(problems(leftOut)).isNotEmpty();
        assertThat(publishedProblems(leftOut)).isNotEmpty();
        assertThat(problems(extra)).as("the tool's output lists no field the schema does not").isNotEmpty();
        assertThat(publishedProblems(extra)).as("a field added within version 2 is accepted").isEmpty();
        ObjectNode extraInRecord = list.deepCopy();
        ((ObjectNode) extraInRecord.get("savepoints").get(0)).put("addedLater", "x");
        assertThat(publishedProblems(extraInRecord)).as("also in a nested record").isEmpty();
        assertThat(problems(wrongType)).isNotEmpty();
        assertThat(problems(noError)).isNotEmpty();
        assertThat(problems(gcOfVersion1)).as("gc's deleted is a list of records, not of paths").isNotEmpty();
        ((ArrayNode) gcOfVersion1.get("deleted")).removeAll().addObject().putNull("job").putNull("savepointId")
                .put("path", "/r/job/sp-a").putNull("reason");
        assertThat(problems(gcOfVersion1)).as("the same document with a removal record").isEmpty();
    }
}
