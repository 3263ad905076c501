package io.keepsake.seatunnel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The child JVM of {@link SigkillRestoreTest}: an embedded engine with the Keepsake plugin runs a
 * streaming job with a short checkpoint interval until it is killed. It prints {@code JOB <id>}
 * once the job runs; when the file {@code <namespace>.savepoint-now} appears it triggers a
 * savepoint and prints {@code SAVING}; with the third argument {@code then-restore} it restores the
 * job from that savepoint ({@code -r}) and prints {@code RESTORED}, so the job checkpoints on. It
 * never exits on its own.
 *
 * <p>Arguments: namespace, job file, optionally {@code then-restore}.
 */
public final class CrashingEngineMain {

    private CrashingEngineMain() {
    }

    public static void main(String[] args) throws Exception {
        Path namespace = Path.of(args[0]);
        Path conf = Path.of(args[1]);
        EmbeddedEngine engine = EmbeddedEngine.start();
        engine.useStorage("keepsake", Map.of("namespace", namespace.toString()), 3);
        long jobId = engine.submitRunning(conf, Duration.ofSeconds(60));
        System.out.println("JOB " + jobId);
        System.out.flush();
        Path trigger = Path.of(namespace + ".savepoint-now");
        EmbeddedEngine.await("the savepoint trigger", Duration.ofMinutes(5), () -> Files.exists(trigger));
        System.out.println("SAVING");
        System.out.flush();
        engine.savepoint(jobId);
        System.out.println("SAVED");
        System.out.flush();
        if (args.length > 2 && args[2].equals("then-restore")) {
            engine.restoreRunning(conf, jobId, Duration.ofSeconds(180));
            System.out.println("RESTORED");
            System.out.flush();
        }
        new java.util.concurrent.CountDownLatch(1).await(); // the parent owns this process's lifetime: it kills it
    }
}
