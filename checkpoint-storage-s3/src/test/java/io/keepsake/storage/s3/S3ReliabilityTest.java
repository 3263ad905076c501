package io.keepsake.storage.s3;

import io.keepsake.fixtures.tck.FileSystemTreeAccess;
import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.ReliabilitySuites;
import io.keepsake.fixtures.tck.ServerReliabilityBackend;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on an
 * in-process S3Proxy, one server for the whole class, opened only through the factory id
 * {@code s3} with SeaTunnel's keys; child JVMs reach the server over HTTP with the same keys.
 */
class S3ReliabilityTest extends ReliabilitySuites {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    @Override
    protected ReliabilityBackend backend() {
        return new ServerReliabilityBackend(server::target, new FileSystemTreeAccess(server.fs()),
                S3Path.SCHEME + S3ProxyServer.BUCKET + "/");
    }

    @Nested class Concurrency extends ReliabilitySuites.Concurrency { }
    @Nested class MultiProcess extends ReliabilitySuites.MultiProcess { }
    @Nested class Kill extends ReliabilitySuites.Kill { }
    @Nested class Regressions extends ReliabilitySuites.Regressions { }
}
