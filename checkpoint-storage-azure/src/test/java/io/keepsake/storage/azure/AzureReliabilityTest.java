package io.keepsake.storage.azure;

import io.keepsake.fixtures.tck.FileSystemTreeAccess;
import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.ReliabilitySuites;
import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.fixtures.tck.TreeAccess;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;

/**
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on Azurite, one
 * server for the whole class, opened only through the factory id {@code azure}; child JVMs reach
 * the server over HTTP with the same keys.
 */
class AzureReliabilityTest extends ReliabilitySuites {

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    @Override
    protected ReliabilityBackend backend() {
        return new ReliabilityBackend() {
            @Override
            public StorageTarget freshTarget(Path scratch) {
                return new StorageTarget("azure", azurite.keys(AzuritePerTestClass.freshDirectory("reliability")
                        + "/ns"));
            }

            @Override
            public TreeAccess tree() {
                return new FileSystemTreeAccess(azurite.fs());
            }

            @Override
            public String fileSystemRoot() {
                return AzurePath.SCHEME + AzuritePerTestClass.CONTAINER + "/";
            }
        };
    }

    @Nested class Concurrency extends ReliabilitySuites.Concurrency { }
    @Nested class MultiProcess extends ReliabilitySuites.MultiProcess { }
    @Nested class Kill extends ReliabilitySuites.Kill { }
    @Nested class Regressions extends ReliabilitySuites.Regressions { }
}
