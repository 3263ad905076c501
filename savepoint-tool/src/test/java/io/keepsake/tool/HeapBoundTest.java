package io.keepsake.tool;

import io.keepsake.fixtures.tck.ChildRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Saving, restoring and verifying stay within a bounded heap: each runs in a child JVM whose
 * {@code -Xmx} is the state plus {@value #EXTRA_MIB} MiB (save, restore: the decoded state itself
 * must fit) or a small fixed heap (verify, which keeps no state). The default run uses 256 MiB of
 * state and verifies with {@code -Xmx48m}; the reliability profile uses 1 GiB and {@code -Xmx128m}
 * ({@code keepsake.heap.state.mib}, {@code keepsake.heap.verify.xmx.mib}). The children run the
 * serial collector: G1 refuses allocations at the occupancy a state-plus-64-MiB heap has (about
 * 80 %), which would measure the collector rather than Keepsake. An OutOfMemoryError ends a child
 * with exit code 3.
 */
class HeapBoundTest {

    private static final int EXTRA_MIB = 64;

    @Test
    void saveRestoreAndVerifyFitTheirHeap(@TempDir Path dir) throws Exception {
        long stateMib = Long.getLong("keepsake.heap.state.mib", 256);
        long verifyMib = Long.getLong("keepsake.heap.verify.xmx.mib", 48);
        Path namespace = dir.resolve("ns");
        String job = "4242";

        ChildRun saved = java(dir, "save", stateMib + EXTRA_MIB, HeapBoundChild.class.getName(), "save",
                namespace.toString(), job, Long.toString(stateMib));
        assertThat(saved.exit()).as("save with -Xmx%dm: %s%s", stateMib + EXTRA_MIB, saved.out(), saved.err()).isZero();
        String savepointId = saved.out().strip().substring("saved ".length());

        ChildRun verified = java(dir, "verify", verifyMib, KeepsakeCli.class.getName(), "verify", "--backend",
                "localfile", "--namespace", namespace.toString(), job, savepointId);
        assertThat(verified.exit()).as("verify with -Xmx%dm: %s%s", verifyMib, verified.out(), verified.err()).isZero();
        assertThat(verified.out()).contains(savepointId).contains("ok");

        ChildRun restored = java(dir, "restore", stateMib + EXTRA_MIB, HeapBoundChild.class.getName(), "restore",
                namespace.toString(), job, savepointId);
        assertThat(restored.exit()).as("restore with -Xmx%dm: %s%s", stateMib + EXTRA_MIB, restored.out(), restored.err()).isZero();
        assertThat(restored.out().strip()).isEqualTo("restored " + stateMib * 1024 * 1024);
    }

    /** Runs {@code mainClass} in a child JVM with {@code -Xmx<xmxMib>m}, which exits on running out of heap. */
    private static ChildRun java(Path dir, String name, long xmxMib, String mainClass, String... args)
            throws IOException, InterruptedException {
        return ChildRun.run(dir, name, List.of("-Xmx" + xmxMib + "m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError"),
                Duration.ofMinutes(10), mainClass, args);
    }
}
