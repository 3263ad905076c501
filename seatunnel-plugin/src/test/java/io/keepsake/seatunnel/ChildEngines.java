package io.keepsake.seatunnel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** What the tests do with an engine running in a child JVM: read what it prints, and SIGKILL it. */
final class ChildEngines {

    private ChildEngines() {
    }

    /** The child's standard output, line by line as it comes, read by a daemon thread named {@code thread}. */
    static BlockingQueue<String> lines(Process child, String thread) {
        return lines(child, thread, new LinkedBlockingQueue<>());
    }

    /**
     * Adds the child's standard output to {@code lines}, line by line as it comes, from a daemon thread
     * named {@code thread}; returns {@code lines}, which must take adds from that thread.
     */
    static <C extends Collection<String>> C lines(Process child, String thread, C lines) {
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the child was killed
            }
        }, thread);
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** SIGKILL, and waits for the process to be gone. */
    static void kill(Process child) throws InterruptedException {
        child.destroyForcibly();
        if (!child.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("The child engine did not die after SIGKILL");
        }
    }
}
