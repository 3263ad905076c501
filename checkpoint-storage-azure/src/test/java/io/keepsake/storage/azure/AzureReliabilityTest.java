package io.keepsake.storage.azure;

import io.keepsake.fixtures.tck.FileSystemTreeAccess;
import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.ReliabilitySuites;
import io.keepsake.fixtures.tck.ServerReliabilityBackend;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

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
        return new ServerReliabilityBackend(azurite::target, new FileSystemTreeAccess(azurite.fs()),
                AzurePath.SCHEME + AzuritePerTestClass.CONTAINER + "/");
    }

    @Nested class Concurrency extends ReliabilitySuites.Concurrency { }
    @Nested class MultiProcess extends ReliabilitySuites.MultiProcess { }
    @Nested class Kill extends ReliabilitySuites.Kill { }
    @Nested class Regressions extends ReliabilitySuites.Regressions { }
}
