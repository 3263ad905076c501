package io.keepsake.tool;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.fixtures.tck.ChildRun;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sound savepoint whose one state object ({@value #STATE_MIB} MiB) does not fit the heap of the
 * tool's JVM ({@value #XMX_MIB} MiB): {@code verify}, which keeps no state, passes there, and
 * {@code inspect --decode} reports that the JVM ran out of heap, with exit code 6, a document that
 * validates against the schema, and no word of corruption.
 */
class SmallHeapDecodeTest {

    private static final int STATE_MIB = 64;
    private static final int XMX_MIB = 48;
    private static final String JOB = "4343";

    @TempDir
    static Path temp;
    private static Path namespace;
    private static SavepointHandle savepoint;

    @BeforeAll
    static void saveOneLargeStateObject() throws Exception {
        namespace = temp.resolve("ns");
        try (KeepsakeStorage storage = (KeepsakeStorage) CheckpointStorageFactories.find("localfile")
                .create(Map.of("namespace", namespace.toString()))) {
            byte[] state = new byte[STATE_MIB * 1024 * 1024];
            new SplittableRandom(7).nextBytes(state);
            ActionStateKey key = ActionStateKey.of("large");
            ActionState action = new ActionState(key, List.of(new ActionSubtaskState(key, 0, List.of(state))), null, 1);
            CompletedCheckpoint cp = new CompletedCheckpoint(Long.parseLong(JOB), 1, 7, 1_700_000_000_000L,
                    CheckpointType.SAVEPOINT_TYPE, 1_700_000_000_100L, Map.of(key, action), Map.of());
            try (SavepointSaveSession session = SavepointSaveSession.builder(storage, JOB, List.of(1)).open()) {
                session.report(cp);
                session.pipelineSuspended(1);
                savepoint = session.commit();
            }
        }
    }

    @Test
    void verifyPassesInTheSmallHeap() throws Exception {
        ChildRun run = tool("verify", "verify", "--backend", "localfile", "--namespace", namespace.toString(), JOB,
                savepoint.savepointId());

        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.out()).contains(savepoint.savepointId(), "OK");
    }

    @Test
    void inspectDecodeReportsTheExhaustedHeapWithItsOwnExitCodeAndNoCorruption() throws Exception {
        ChildRun run = tool("inspect-json", "inspect", "--decode", "--json", "--backend", "localfile", "--namespace",
                namespace.toString(), JOB, savepoint.savepointId());

        assertThat(run.exit()).as(run.toString()).isEqualTo(ExitCodes.RESOURCES_EXHAUSTED).isEqualTo(6);
        JsonNode doc = JsonMapper.builder().build().readTree(run.out());
        List<String> problems = new ArrayList<>();
        for (Error e : schema().validate(doc)) {
            problems.add(e.toString());
        }
        assertThat(problems).as(run.out()).isEmpty();
        assertThat(doc.get("status").asString()).isEqualTo("resources exhausted");
        assertThat(doc.get("file").isNull()).as("file names only a file that failed to verify").isTrue();
        assertThat(doc.get("manifest")).hasSize(1);
        assertThat(doc.get("reason").asString()).contains(savepoint.savepointId(), "job " + JOB, "OutOfMemoryError",
                "-Xmx", savepoint.meta().manifest().get(0).file());
        assertThat(run.err()).startsWith("keepsake inspect: resources exhausted: ");
        assertThat(run.out() + run.err()).doesNotContainIgnoringCase("corrupt");
    }

    @Test
    void inspectDecodeAsTextSaysTheSame() throws Exception {
        ChildRun run = tool("inspect-text", "inspect", "--decode", "--backend", "localfile", "--namespace",
                namespace.toString(), JOB, savepoint.savepointId());

        assertThat(run.exit()).as(run.toString()).isEqualTo(6);
        assertThat(run.out()).contains("resources exhausted: Cannot read savepoint " + savepoint.savepointId(), "-Xmx");
        assertThat(run.out() + run.err()).doesNotContainIgnoringCase("corrupt");
    }

    private static Schema schema() throws IOException {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(Files.readString(Path.of("..", "docs", "keepsake-output.schema.json")));
    }

    /** Runs the tool in a child JVM with the small heap (and without -XX:+ExitOnOutOfMemoryError). */
    private static ChildRun tool(String name, String... args) throws IOException, InterruptedException {
        return ChildRun.withHeap(temp, name, XMX_MIB, KeepsakeCli.class, args);
    }
}
