package io.keepsake.seatunnel;

import org.apache.seatunnel.engine.server.checkpoint.CheckpointManager;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * An embedded SeaTunnel 2.3.8 engine in a child JVM, for the overlay tests: with the overlay when the
 * class path holds it, without when {@link OverlayChild} leaves it out. It prints
 * {@code ENGINE-CLASS <where CheckpointManager was loaded from>}, then runs one action:
 * <ul>
 *   <li>{@code savepoint}: submits the job, prints {@code JOB <id>}, waits for a checkpoint of every
 *   pipeline, stops it with a savepoint, prints {@code SAVED} and exits;</li>
 *   <li>{@code request-savepoint}: the same, but asks for the savepoint without waiting for it, prints
 *   {@code REQUESTED} and waits to be killed;</li>
 *   <li>{@code restore}: restores job {@code job=<id>} ({@code -r}), prints {@code RESTORED}, waits for a
 *   checkpoint of every pipeline above {@code above=<id>}, cancels it, prints {@code CANCELED} and exits.</li>
 * </ul>
 * Arguments: action, job file, storage type, then {@code key=value} pairs: {@code pipelines}, {@code job},
 * {@code above}, and every other pair is the storage's plugin-config.
 */
public final class OverlayChildMain {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private OverlayChildMain() {
    }

    public static void main(String[] args) throws Exception {
        String action = args[0];
        Path conf = Path.of(args[1]);
        String type = args[2];
        Map<String, String> storage = new HashMap<>();
        Map<String, String> own = new HashMap<>();
        for (int i = 3; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (kv[0].equals("pipelines") || kv[0].equals("job") || kv[0].equals("above")) {
                own.put(kv[0], kv[1]);
            } else {
                storage.put(kv[0], kv[1]);
            }
        }
        int pipelines = Integer.parseInt(own.getOrDefault("pipelines", "2"));
        Namespace ns = new Namespace(Path.of(storage.get("namespace")));
        say("ENGINE-CLASS " + CheckpointManager.class.getProtectionDomain().getCodeSource().getLocation());
        EmbeddedEngine engine = EmbeddedEngine.start();
        engine.useStorage(type, storage, 5);
        switch (action) {
            case "savepoint", "request-savepoint" -> {
                long jobId = engine.submitRunning(conf, WAIT);
                say("JOB " + jobId);
                EmbeddedEngine.await("a checkpoint of every pipeline", WAIT, () -> {
                    for (int p = 1; p <= pipelines; p++) {
                        if (ns.maxCheckpointId(jobId, p) < 1) {
                            return false;
                        }
                    }
                    return true;
                });
                if (action.equals("savepoint")) {
                    engine.savepoint(jobId);
                    say("SAVED");
                    engine.close();
                    System.exit(0);
                }
                engine.requestSavepoint(jobId);
                say("REQUESTED");
                new java.util.concurrent.CountDownLatch(1).await(); // the parent kills this JVM
            }
            case "restore" -> {
                long jobId = Long.parseLong(own.get("job"));
                long above = Long.parseLong(own.getOrDefault("above", "0"));
                engine.restoreRunning(conf, jobId, WAIT);
                say("RESTORED");
                EmbeddedEngine.await("a checkpoint of every pipeline above " + above, WAIT, () -> {
                    for (int p = 1; p <= pipelines; p++) {
                        if (ns.maxCheckpointId(jobId, p) <= above) {
                            return false;
                        }
                    }
                    return true;
                });
                engine.cancel(jobId);
                say("CANCELED");
                engine.close();
                System.exit(0);
            }
            default -> throw new IllegalArgumentException("unknown action " + action);
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
