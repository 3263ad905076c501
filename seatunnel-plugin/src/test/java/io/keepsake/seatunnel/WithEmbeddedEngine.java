package io.keepsake.seatunnel;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class that runs its tests on one embedded engine of its own ({@link EmbeddedEngine#start()}):
 * started before the first test of the extending class and closed after its last. The extending
 * classes of this module and of seatunnel-engine-overlay (through this module's test-jar) run one at
 * a time, so the one static field serves each in turn. Its tests may take a fresh namespace and
 * the savepoints in it as parameters ({@link ScenarioNamespace}).
 */
@ExtendWith(ScenarioNamespace.class)
abstract class WithEmbeddedEngine {

    static EmbeddedEngine engine;

    @BeforeAll
    static void startEngine() {
        engine = EmbeddedEngine.start();
    }

    @AfterAll
    static void stopEngine() {
        if (engine != null) {
            engine.close();
            engine = null;
        }
    }
}
