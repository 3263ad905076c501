package io.keepsake.seatunnel;

import java.nio.file.Path;

/** The engine's checkpoint manager and coordinators' lines in this JVM (see log4j2-test.properties). */
final class EngineLog {

    static final Path FILE = Path.of(System.getProperty("keepsake.engine.log", "target/engine-coordination.log"));

    private EngineLog() {
    }

    static String text() {
        return PluginLog.read(FILE);
    }
}
