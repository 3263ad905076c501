package io.keepsake.reader;

import example.EngineIntegrationExample;
import io.keepsake.engine.CheckpointType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** README's "Using it from an engine" is {@link EngineIntegrationExample}, verbatim, and it runs. */
class ReadmeExampleTest {

    private static final Path SOURCE = Path.of("src/test/java/example/EngineIntegrationExample.java");
    private static final Path README = Path.of("../README.md");

    @TempDir
    Path temp;

    @Test
    void theReadmeShowsExactlyTheExampleSourceFromItsImportsOn() throws Exception {
        String source = Files.readString(SOURCE);
        String fromImports = source.substring(source.indexOf("import "));
        String readme = Files.readString(README);
        assertThat(readme).contains("```java\n" + fromImports + "```\n");
    }

    @Test
    void theExampleRecoversTheSavepointAndRestoresItByPath() throws Exception {
        EngineIntegrationExample.Outcome outcome = EngineIntegrationExample.run(temp.resolve("ns").toString(), "12",
                TestCheckpoints.of(12, 1, 3, CheckpointType.CHECKPOINT_TYPE),
                TestCheckpoints.of(12, 2, 3, CheckpointType.CHECKPOINT_TYPE),
                TestCheckpoints.savepointOf(12, 1, 4), TestCheckpoints.savepointOf(12, 2, 4));

        Map<Integer, ?> expected = Map.of(1, TestCheckpoints.savepointOf(12, 1, 4), 2, TestCheckpoints.savepointOf(12, 2, 4));
        assertThat(outcome.recovered().checkpoints()).isEqualTo(expected);
        assertThat(outcome.recovered().source()).isEqualTo(RestoredState.Source.SAVEPOINT);
        assertThat(outcome.nextCheckpointId()).isEqualTo(5);
        assertThat(outcome.restored().checkpoints()).isEqualTo(expected);
        assertThat(outcome.restored().savepoint()).contains(outcome.savepoint());
    }
}
