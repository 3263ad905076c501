package io.keepsake.seatunnel;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.instance.impl.HazelcastInstanceFactory;
import com.hazelcast.core.HazelcastInstance;
import org.apache.seatunnel.common.config.Common;
import org.apache.seatunnel.common.config.DeployMode;
import org.apache.seatunnel.engine.client.SeaTunnelClient;
import org.apache.seatunnel.engine.client.job.ClientJobProxy;
import org.apache.seatunnel.engine.common.config.ConfigProvider;
import org.apache.seatunnel.engine.common.config.EngineConfig;
import org.apache.seatunnel.engine.common.config.JobConfig;
import org.apache.seatunnel.engine.common.config.SeaTunnelConfig;
import org.apache.seatunnel.engine.common.config.server.CheckpointStorageConfig;
import org.apache.seatunnel.engine.common.runtime.ExecutionMode;
import org.apache.seatunnel.engine.server.SeaTunnelNodeContext;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The released SeaTunnel 2.3.8 Zeta engine embedded in the test JVM, as {@code seatunnel.sh -m local}
 * runs it: one member with role MASTER_AND_WORKER in LOCAL mode, on a cluster name of its own, and a
 * client connected to it. The checkpoint storage can be switched between jobs: the engine reads its
 * checkpoint storage config when a job is initialised.
 */
final class EmbeddedEngine implements AutoCloseable {

    static final Set<String> END_STATES = Set.of("FINISHED", "CANCELED", "FAILED", "SAVEPOINT_DONE", "UNKNOWABLE");

    private final SeaTunnelConfig config;
    private final HazelcastInstance member;
    private final SeaTunnelClient client;
    final long startMillis;

    private EmbeddedEngine(SeaTunnelConfig config, HazelcastInstance member, SeaTunnelClient client, long startMillis) {
        this.config = config;
        this.member = member;
        this.client = client;
        this.startMillis = startMillis;
    }

    /** Starts a member and a client; the storage is chosen afterwards with {@link #useStorage}. */
    static EmbeddedEngine start() {
        long t0 = System.nanoTime();
        Common.setDeployMode(DeployMode.CLIENT);
        String cluster = "keepsake-it-" + UUID.randomUUID();
        SeaTunnelConfig config = ConfigProvider.locateAndGetSeaTunnelConfig();
        config.getHazelcastConfig().setClusterName(cluster);
        masterAndWorker(config.getEngineConfig(), ExecutionMode.LOCAL);
        config.getHazelcastConfig().getNetworkConfig().setPortAutoIncrement(true);
        HazelcastInstance member = HazelcastInstanceFactory.newHazelcastInstance(config.getHazelcastConfig(),
                "keepsake-it-" + cluster.substring(cluster.length() - 8), new SeaTunnelNodeContext(config));
        ClientConfig clientConfig = ConfigProvider.locateAndGetClientConfig();
        clientConfig.setClusterName(cluster);
        int port = member.getCluster().getLocalMember().getSocketAddress().getPort();
        clientConfig.getNetworkConfig().setAddresses(List.of("localhost:" + port));
        SeaTunnelClient client = new SeaTunnelClient(clientConfig);
        return new EmbeddedEngine(config, member, client, (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * A client of a cluster whose members run elsewhere (see {@link EngineCluster}); {@code config}
     * is what the client submits jobs with, as {@code seatunnel.sh} reads it from its own config.
     */
    static EmbeddedEngine connect(SeaTunnelConfig config, String cluster, List<String> addresses) {
        long t0 = System.nanoTime();
        Common.setDeployMode(DeployMode.CLIENT);
        ClientConfig clientConfig = ConfigProvider.locateAndGetClientConfig();
        clientConfig.setClusterName(cluster);
        clientConfig.getNetworkConfig().setAddresses(addresses);
        SeaTunnelClient client = new SeaTunnelClient(clientConfig);
        return new EmbeddedEngine(config, null, client, (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * Makes the member master and worker in {@code mode}, as {@code seatunnel.sh -m local} (LOCAL) or
     * {@code seatunnel-cluster.sh} (CLUSTER) does. The setters are looked up because 2.3.4's engine
     * has neither (its members are always both, and it has no mode to set); the tests compile and run
     * against 2.3.8 and 2.3.4.
     */
    static void masterAndWorker(EngineConfig engine, ExecutionMode mode) {
        try {
            for (Class<?> nested : EngineConfig.class.getClasses()) {
                if (nested.isEnum() && nested.getSimpleName().equals("ClusterRole")) {
                    Object role = Arrays.stream(nested.getEnumConstants())
                            .filter(c -> ((Enum<?>) c).name().equals("MASTER_AND_WORKER")).findFirst().orElseThrow();
                    EngineConfig.class.getMethod("setClusterRole", nested).invoke(engine, role);
                }
            }
            Optional<Method> setMode = Arrays.stream(EngineConfig.class.getMethods())
                    .filter(m -> m.getName().equals("setMode")).findFirst();
            if (setMode.isPresent()) {
                setMode.get().invoke(engine, mode);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot configure the embedded engine's member", e);
        }
    }

    /** Chooses the checkpoint storage of the jobs submitted from now on. */
    void useStorage(String type, Map<String, String> pluginConfig, int maxRetained) {
        CheckpointStorageConfig storage = config.getEngineConfig().getCheckpointConfig().getStorage();
        storage.setStorage(type);
        storage.setStoragePluginConfig(Map.copyOf(pluginConfig));
        storage.setMaxRetainedCheckpoints(maxRetained);
    }

    /** Submits a job (as {@code seatunnel.sh -c conf}); returns its job id. */
    long submit(Path conf) throws Exception {
        ClientJobProxy proxy = client.createExecutionContext(conf.toString(), jobConfig(conf), config).execute();
        return proxy.getJobId();
    }

    /** Submits a job and waits until it is RUNNING; returns its job id. */
    long submitRunning(Path conf, Duration wait) throws Exception {
        long jobId = submit(conf);
        awaitStatus(jobId, "RUNNING", wait);
        return jobId;
    }

    /** Restores a job from its latest state and waits until it is RUNNING again. */
    void restoreRunning(Path conf, long jobId, Duration wait) throws Exception {
        restore(conf, jobId);
        awaitStatus(jobId, "RUNNING", wait);
    }

    /** Restores a job from its latest state (as {@code seatunnel.sh -c conf -r jobId}). */
    long restore(Path conf, long jobId) throws Exception {
        String stopped = status(jobId);
        boolean afterStop = "CANCELED".equals(stopped) || "SAVEPOINT_DONE".equals(stopped);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
            ClientJobProxy proxy = client.restoreExecutionContext(conf.toString(), jobConfig(conf), config, jobId).execute();
            if (!afterStop) {
                return proxy.getJobId();
            }
            // Right after a cancel or a stop-with-savepoint the engine may still hold the old run and
            // answer "The job ... is currently running; no need to submit again", leaving the job in
            // its end state (seen after SAVEPOINT_DONE on a loaded cluster): wait for the new run to
            // show, and submit again if it never does.
            if (poll(Duration.ofSeconds(10), () -> !stopped.equals(status(jobId)))) {
                return proxy.getJobId();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Job " + jobId + " stayed " + stopped + " after restores for 120 s");
            }
        }
    }

    /**
     * Submits one restore of a job from its latest state (as {@code seatunnel.sh -c conf -r jobId}) and
     * returns when the engine took it, without waiting for the job to leave its previous end state.
     */
    void restoreOnce(Path conf, long jobId) throws Exception {
        client.restoreExecutionContext(conf.toString(), jobConfig(conf), config, jobId).execute();
    }

    /** Triggers a savepoint (as {@code seatunnel.sh -s jobId}) and waits for SAVEPOINT_DONE. */
    void savepoint(long jobId) {
        client.getJobClient().savePointJob(jobId);
        awaitStatus(jobId, "SAVEPOINT_DONE", Duration.ofSeconds(60));
    }

    /** Asks for a savepoint (as {@code seatunnel.sh -s jobId}) and returns when the engine answers. */
    void requestSavepoint(long jobId) {
        client.getJobClient().savePointJob(jobId);
    }

    /**
     * What asking for a savepoint until the engine accepted it came to.
     *
     * @param accepted    whether the engine accepted a request within the time
     * @param asks        how many requests were made
     * @param lastRefusal the engine's last refusal, or null when it refused none
     */
    record SavepointAsks(boolean accepted, int asks, RuntimeException lastRefusal) {
    }

    /**
     * Asks for a savepoint (as {@code seatunnel.sh -s jobId}) again while the engine refuses it, for
     * up to {@code timeout}: the engine refuses while a (re)started pipeline's tasks are not all
     * ready ("Task not all ready, savepoint error").
     */
    SavepointAsks requestSavepointUntilAccepted(long jobId, Duration timeout) {
        RuntimeException[] refused = {null};
        int[] asks = {0};
        boolean accepted = poll(timeout, () -> {
            asks[0]++;
            try {
                requestSavepoint(jobId);
                return true;
            } catch (RuntimeException e) {
                refused[0] = e;
                return false;
            }
        });
        return new SavepointAsks(accepted, asks[0], refused[0]);
    }

    /**
     * Asks for a savepoint (as {@code seatunnel.sh -s jobId}) from another thread, waiting at most
     * {@code answer} for the engine's answer, then waits up to {@code end} for the job to reach
     * {@code status}; returns the milliseconds from the request to that status.
     */
    long savepointEndingIn(long jobId, String status, Duration answer, Duration end) throws Exception {
        long t0 = System.nanoTime();
        CompletableFuture.runAsync(() -> requestSavepoint(jobId)).get(answer.toSeconds(), TimeUnit.SECONDS);
        awaitStatus(jobId, status, end);
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** The engine's detailed status of a job, as {@code seatunnel.sh -j jobId} prints it. */
    String detail(long jobId) {
        return client.getJobClient().getJobDetailStatus(jobId);
    }

    /** Cancels a job (as {@code seatunnel.sh -can jobId}) and waits for CANCELED. */
    void cancel(long jobId) {
        client.getJobClient().cancelJob(jobId);
        awaitStatus(jobId, "CANCELED", Duration.ofSeconds(60));
    }

    String status(long jobId) {
        return client.getJobClient().getJobStatus(jobId);
    }

    /** Polls the job's status until it is {@code expected}; fails at once on another end state. */
    void awaitStatus(long jobId, String expected, Duration timeout) {
        String[] last = {null};
        await("job " + jobId + " to reach " + expected, timeout, () -> {
            last[0] = status(jobId);
            if (!expected.equals(last[0]) && END_STATES.contains(last[0])) {
                throw new AssertionError("Job " + jobId + " ended " + last[0] + " while waiting for " + expected
                        + ": " + client.getJobClient().getJobDetailStatus(jobId));
            }
            return expected.equals(last[0]);
        }, () -> "last status " + last[0]);
    }

    /** Polls a condition with a deadline (the only wait the tests use). */
    static void await(String what, Duration timeout, BooleanSupplier condition) {
        await(what, timeout, condition, () -> "");
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition,
                              java.util.function.Supplier<String> detail) {
        if (!poll(timeout, condition)) {
            throw new AssertionError("Timed out after " + timeout + " waiting for " + what + " " + detail.get());
        }
    }

    /**
     * Checks {@code condition} every 50 ms until it holds (true) or {@code timeout} passed (false).
     * The engine offers no notification for a job's status, so its state is polled; the timeout
     * only bounds a test that would otherwise hang.
     */
    static boolean poll(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            if (Thread.currentThread().isInterrupted()) {
                throw new AssertionError("Interrupted while polling the engine");
            }
        }
        return true;
    }

    private static JobConfig jobConfig(Path conf) {
        JobConfig jobConfig = new JobConfig();
        jobConfig.setName(conf.getFileName().toString());
        return jobConfig;
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            if (member != null) {
                member.shutdown();
            }
        }
    }
}
