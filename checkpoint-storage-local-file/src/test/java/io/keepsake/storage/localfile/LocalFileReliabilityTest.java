package io.keepsake.storage.localfile;

import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.ReliabilitySuites;
import org.junit.jupiter.api.Nested;

import java.util.Map;

/**
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on the local
 * backend, opened only through its factory id {@code localfile}.
 */
class LocalFileReliabilityTest extends ReliabilitySuites {

    private static final ReliabilityBackend BACKEND = ReliabilityBackend.onLocalDisk("localfile", Map.of());

    @Override
    protected ReliabilityBackend backend() {
        return BACKEND;
    }

    @Nested class Concurrency extends ReliabilitySuites.Concurrency { }
    @Nested class MultiProcess extends ReliabilitySuites.MultiProcess { }
    @Nested class Kill extends ReliabilitySuites.Kill { }
    @Nested class Regressions extends ReliabilitySuites.Regressions { }
}
