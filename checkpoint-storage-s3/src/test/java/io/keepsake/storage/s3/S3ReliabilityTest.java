package io.keepsake.storage.s3;

import io.keepsake.fixtures.tck.FileSystemTreeAccess;
import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.ReliabilitySuites;
import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.fixtures.tck.TreeAccess;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;

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
        return new ReliabilityBackend() {
            @Override
            public StorageTarget freshTarget(Path scratch) {
                String dir = S3ProxyServer.freshDirectory("reliability");
                return new StorageTarget("s3", server.factoryKeys(
                        dir.substring((S3Path.SCHEME + S3ProxyServer.BUCKET).length()) + "/ns"));
            }

            @Override
            public TreeAccess tree() {
                return new FileSystemTreeAccess(server.fs());
            }

            @Override
            public String fileSystemRoot() {
                return S3Path.SCHEME + S3ProxyServer.BUCKET + "/";
            }
        };
    }

    @Nested class Concurrency extends ReliabilitySuites.Concurrency { }
    @Nested class MultiProcess extends ReliabilitySuites.MultiProcess { }
    @Nested class Kill extends ReliabilitySuites.Kill { }
    @Nested class Regressions extends ReliabilitySuites.Regressions { }
}
