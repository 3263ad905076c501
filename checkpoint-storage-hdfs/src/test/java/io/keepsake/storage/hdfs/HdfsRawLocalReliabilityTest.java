package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.ReliabilitySuites;
import org.junit.jupiter.api.Nested;

import java.util.Map;

/**
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on the HDFS
 * backend over {@code file://} (Hadoop's raw local file system), opened through the factory id
 * {@code hdfs} with {@code storage.type local}.
 */
class HdfsRawLocalReliabilityTest extends ReliabilitySuites {

    private static final ReliabilityBackend BACKEND = ReliabilityBackend.onLocalDisk("hdfs", Map.of("storage.type", "local"));

    @Override
    protected ReliabilityBackend backend() {
        return BACKEND;
    }

    @Nested class Concurrency extends ReliabilitySuites.Concurrency { }
    @Nested class MultiProcess extends ReliabilitySuites.MultiProcess { }
    @Nested class Kill extends ReliabilitySuites.Kill { }
    @Nested class Regressions extends ReliabilitySuites.Regressions { }
}
