package io.keepsake.storage.localfile;

import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.ReliabilitySuites;

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
}
