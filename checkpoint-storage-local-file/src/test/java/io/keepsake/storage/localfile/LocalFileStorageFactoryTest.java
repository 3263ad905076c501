package io.keepsake.storage.localfile;

import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.CheckpointStorageFactory;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.SavepointStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalFileStorageFactoryTest {

    @TempDir
    Path temp;

    @Test
    void serviceLoaderFindsTheLocalFactoryAndItHasTheSavepointCapability() throws Exception {
        CheckpointStorageFactory factory = CheckpointStorageFactories.find("localfile");
        assertThat(factory).isInstanceOf(LocalFileStorageFactory.class);
        try (CheckpointStorage storage = factory.create(Map.of("namespace", temp.toString()))) {
            assertThat(storage).isInstanceOf(SavepointStorage.class);
            assertThat(((SavepointStorage) storage).savepointRoot()).isEqualTo(temp.resolve("savepoint").toString());
            storage.storeCheckPoint(new PipelineState("1", 1, 1, new byte[] {1}));
            assertThat(storage.getAllCheckpoints("1")).hasSize(1);
        }
    }

    /** The library accepts the backend names the operator tool accepts. */
    @Test
    void theToolsAliasesOfTheLocalBackendFindItToo() {
        for (String name : List.of("local", "file", "LocalFile", " localfile ")) {
            assertThat(CheckpointStorageFactories.find(name)).as(name).isInstanceOf(LocalFileStorageFactory.class);
        }
        assertThat(CheckpointStorageFactories.canonicalId("Local")).isEqualTo("localfile");
        assertThat(CheckpointStorageFactories.canonicalId("HDFS")).isEqualTo("hdfs");
    }

    @Test
    void anExactIdWinsOverItsCanonicalForm() {
        CheckpointStorageFactory local = idOnly("local");
        assertThat(CheckpointStorageFactories.select("local", List.of(new LocalFileStorageFactory(), local).iterator()))
                .isSameAs(local);
    }

    @Test
    void anUnknownKeyErrorListsCreateRootsAmongTheKnownKeys() {
        assertThatThrownBy(() -> new LocalFileStorageFactory().create(Map.of("namespace", temp.toString(),
                "create-root", "false")))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("unknown key(s) [create-root]")
                .hasMessageMatching("(?s).*known keys are \\[.*create-roots.*\\].*");
    }

    @Test
    void anUnknownIdListsTheIdsFound() {
        assertThatThrownBy(() -> CheckpointStorageFactories.find("s3-magic"))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("s3-magic").hasMessageContaining("localfile");
    }

    @Test
    void twoProvidersWithOneIdAreAnErrorNamingBoth() {
        CheckpointStorageFactory impostor = idOnly("localfile");
        assertThatThrownBy(() -> CheckpointStorageFactories.select("localfile",
                List.of(new LocalFileStorageFactory(), impostor).iterator()))
                .isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining(LocalFileStorageFactory.class.getName())
                .hasMessageContaining(impostor.getClass().getName());
    }

    @Test
    void aProviderThatFailsToLoadIsSkipped() {
        List<CheckpointStorageFactory> good = List.of(new LocalFileStorageFactory());
        var broken = new java.util.Iterator<CheckpointStorageFactory>() {
            int calls;

            @Override
            public boolean hasNext() {
                return calls < 2;
            }

            @Override
            public CheckpointStorageFactory next() {
                if (calls++ == 0) {
                    throw new java.util.ServiceConfigurationError("io.example.Missing: Provider not found");
                }
                return good.get(0);
            }
        };
        assertThat(CheckpointStorageFactories.select("localfile", broken)).isSameAs(good.get(0));
    }

    @Test
    void unknownMissingAndConflictingKeysAreClearErrors() {
        LocalFileStorageFactory f = new LocalFileStorageFactory();
        assertThatThrownBy(() -> f.create(Map.of("namespace", temp.toString(), "fs.defaultFS", "hdfs://x:1")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("fs.defaultFS");
        assertThatThrownBy(() -> f.create(Map.of("savepoint.path", temp.toString())))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("namespace");
        assertThatThrownBy(() -> f.create(Map.of("namespace", temp.toString(), "storage.type", "hdfs")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("storage.type=hdfs");
        assertThatThrownBy(() -> f.create(Map.of("namespace", temp.toString(), "savepoint.path", temp.toString())))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("savepoint.path");
        assertThatThrownBy(() -> f.create(Map.of("namespace", "relative/dir")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("absolute");
        assertThatThrownBy(() -> f.create(Map.of("namespace", temp.toString(), "savepoint.periodic.max-retained", "-2")))
                .isInstanceOf(InvalidStorageArgumentException.class).hasMessageContaining("max-retained");
    }

    @Test
    void theCallersMapIsNeverMutated() throws Exception {
        Map<String, String> config = new HashMap<>(Map.of("namespace", temp.toString(), "storage.type", "local",
                "savepoint.path", temp.resolve("sp").toString()));
        Map<String, String> copy = new HashMap<>(config);
        try (CheckpointStorage storage = new LocalFileStorageFactory().create(config)) {
            assertThat(((SavepointStorage) storage).savepointRoot()).isEqualTo(temp.resolve("sp").toString());
        }
        assertThat(config).isEqualTo(copy);
    }

    @Test
    void aRootThatIsAFileIsRefused() throws Exception {
        Path file = Files.writeString(temp.resolve("plain-file"), "x");
        assertThatThrownBy(() -> new LocalFileStorageFactory().create(Map.of("namespace", file.toString())))
                .hasMessageContaining(file.toString());
    }

    /** A factory with the id {@code id} that creates nothing. */
    private static CheckpointStorageFactory idOnly(String id) {
        return new CheckpointStorageFactory() {
            @Override
            public String factoryIdentifier() {
                return id;
            }

            @Override
            public CheckpointStorage create(Map<String, String> configuration) {
                throw new UnsupportedOperationException();
            }
        };
    }
}
