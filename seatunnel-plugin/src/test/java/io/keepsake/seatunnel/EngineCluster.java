package io.keepsake.seatunnel;

import org.apache.seatunnel.engine.common.config.ConfigProvider;
import org.apache.seatunnel.engine.common.config.SeaTunnelConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Two SeaTunnel engine members, each in a child JVM running {@link ClusterMemberMain}, forming one
 * Hazelcast cluster on 127.0.0.1 (a cluster name of its own per instance, TCP-IP join with both ports
 * listed, multicast off), and a client in the test JVM connected to both. The members share one
 * Keepsake {@code plugin-config}. Member {@code a} starts first and is the cluster's master until it
 * dies. Each member writes its engine log (checkpoint manager and coordinator at INFO) and the
 * plugin's log below {@code logDir}. {@link #close()} SIGKILLs every member still alive, so a failing
 * test leaves no process behind.
 */
final class EngineCluster implements AutoCloseable {

    static final Duration START = Duration.ofMinutes(3);

    /** One member: its child process, its port and everything it printed. */
    record Member(String name, int port, Process process, List<String> lines, Path engineLog, Path pluginLog) {

        boolean printed(String line) {
            return lines.contains(line);
        }

        /** The membership the member last printed ({@code CLUSTER size=.. master=..}); its log shares stdout. */
        String lastView() {
            String view = "";
            for (String line : lines) {
                if (line.startsWith("CLUSTER ")) {
                    view = line;
                }
            }
            return view;
        }

        String engineLogText() {
            try {
                return Files.exists(engineLog) ? Files.readString(engineLog) : "";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private final String name;
    private final Path logDir;
    private final List<String> memberArgs;
    private final List<Integer> ports;
    private final List<Member> members = new ArrayList<>();
    private EmbeddedEngine client;

    private EngineCluster(String name, Path logDir, List<Integer> ports, List<String> memberArgs) {
        this.name = name;
        this.logDir = logDir;
        this.ports = ports;
        this.memberArgs = memberArgs;
    }

    /** Starts member a, then member b once a is master, then the client once both see two members. */
    static EngineCluster start(Path logDir, Map<String, String> pluginConfig, int maxRetained) throws Exception {
        return start(logDir, "keepsake", pluginConfig, maxRetained);
    }

    /**
     * The same with the members' {@code checkpoint.storage.type} set to {@code storageType} (a
     * test-only storage registered on the members' class path, for one).
     */
    static EngineCluster start(Path logDir, String storageType, Map<String, String> pluginConfig, int maxRetained)
            throws Exception {
        String name = "keepsake-cluster-" + UUID.randomUUID();
        List<Integer> ports = List.of(freePort(), freePort());
        List<String> args = new ArrayList<>(List.of(name, "", ports.stream().map(String::valueOf)
                .collect(Collectors.joining(",")), Integer.toString(maxRetained), storageType));
        pluginConfig.forEach((k, v) -> args.add(k + "=" + v));
        Files.createDirectories(logDir);
        EngineCluster cluster = new EngineCluster(name, logDir, ports, args);
        try {
            cluster.startBoth();
        } catch (Throwable t) {
            cluster.close();
            throw t;
        }
        return cluster;
    }

    /** Starts both members (as after a restart of the whole cluster) and connects a new client. */
    void startBoth() throws Exception {
        Member a = startMember("a", ports.get(0));
        awaitLine(a, "CLUSTER size=1 master=true", START);
        Member b = startMember("b", ports.get(1));
        awaitLine(a, "CLUSTER size=2 master=true", START);
        awaitLine(b, "CLUSTER size=2 master=false", START);
        SeaTunnelConfig config = ConfigProvider.locateAndGetSeaTunnelConfig();
        client = EmbeddedEngine.connect(config, name,
                ports.stream().map(p -> "127.0.0.1:" + p).toList());
    }

    private Member startMember(String member, int port) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String run = member + "-" + members.size();
        Path engineLog = logDir.resolve("member-" + run + "-engine.log");
        Path pluginLog = logDir.resolve("member-" + run + "-plugin.log");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m",
                "-Dkeepsake.plugin.log=" + pluginLog, "-Dkeepsake.engine.log=" + engineLog,
                "-cp", System.getProperty("java.class.path"), ClusterMemberMain.class.getName()));
        List<String> args = new ArrayList<>(memberArgs);
        args.set(1, Integer.toString(port));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(logDir.resolve("member-" + run + ".err").toFile());
        Process process = pb.start();
        List<String> lines = ChildEngines.lines(process, "member-" + run + "-stdout", new CopyOnWriteArrayList<>());
        Member m = new Member(member, port, process, lines, engineLog, pluginLog);
        members.add(m);
        return m;
    }

    /** Waits until the member printed {@code line}; fails early if it died. */
    static void awaitLine(Member member, String line, Duration timeout) {
        EmbeddedEngine.await("member " + member.name() + " to print '" + line + "'", timeout, () -> {
            if (member.printed(line)) {
                return true;
            }
            if (!member.process().isAlive()) {
                throw new AssertionError("Member " + member.name() + " exited with " + member.process().exitValue()
                        + " before printing '" + line + "'; it printed " + member.lines());
            }
            return false;
        });
    }

    EmbeddedEngine client() {
        return client;
    }

    /** The live member that is the cluster's master (the oldest member), as it last said. */
    Member master() {
        return live().stream().filter(m -> m.lastView().endsWith("master=true"))
                .findFirst().orElseThrow(() -> new AssertionError("No live member says it is master: " + live()));
    }

    /** The live member that is not {@code member}. */
    Member otherThan(Member member) {
        return live().stream().filter(m -> m != member).findFirst()
                .orElseThrow(() -> new AssertionError("No live member besides " + member.name() + ": " + live()));
    }

    List<Member> live() {
        return members.stream().filter(m -> m.process().isAlive()).toList();
    }

    /** Kills the member with SIGKILL and waits until the process is gone; returns System.nanoTime() then. */
    static long kill(Member member) throws InterruptedException {
        member.process().destroyForcibly();
        if (!member.process().waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("Member " + member.name() + " did not die after SIGKILL");
        }
        return System.nanoTime();
    }

    /** SIGKILLs every member still alive (the whole cluster going down) and closes the client. */
    void killAll() throws InterruptedException {
        if (client != null) {
            try {
                client.close();
            } catch (RuntimeException ignored) {
                // the client of a dead cluster may fail to close cleanly; the members are what matter
            }
            client = null;
        }
        for (Member m : members) {
            if (m.process().isAlive()) {
                kill(m);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        killAll();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
