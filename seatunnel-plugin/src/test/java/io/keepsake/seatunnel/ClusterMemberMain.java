package io.keepsake.seatunnel;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceFactory;
import org.apache.seatunnel.common.config.Common;
import org.apache.seatunnel.common.config.DeployMode;
import org.apache.seatunnel.engine.common.config.ConfigProvider;
import org.apache.seatunnel.engine.common.config.EngineConfig;
import org.apache.seatunnel.engine.common.config.SeaTunnelConfig;
import org.apache.seatunnel.engine.common.config.server.CheckpointStorageConfig;
import org.apache.seatunnel.engine.common.runtime.ExecutionMode;
import org.apache.seatunnel.engine.server.SeaTunnelNodeContext;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One member of a two-member SeaTunnel engine cluster, in a child JVM of {@link EngineCluster}: role
 * MASTER_AND_WORKER in CLUSTER mode, Hazelcast bound to 127.0.0.1 on a fixed port, TCP-IP join with
 * the explicit member list, multicast and auto-detection off, and the Keepsake plugin as checkpoint
 * storage. It prints {@code CLUSTER size=<n> master=<bool>} whenever the membership it sees changes
 * (the first line once it has started) and never exits on its own: the parent kills it.
 *
 * <p>Arguments: cluster name, own port, all members' ports (comma separated), max-retained, the
 * checkpoint storage type ({@code keepsake}, or a test-only type), then {@code key=value} entries of
 * the storage's {@code plugin-config}.
 */
public final class ClusterMemberMain {

    private ClusterMemberMain() {
    }

    public static void main(String[] args) throws Exception {
        String cluster = args[0];
        int port = Integer.parseInt(args[1]);
        List<String> members = Arrays.stream(args[2].split(",")).map(p -> "127.0.0.1:" + p).toList();
        int maxRetained = Integer.parseInt(args[3]);
        String storageType = args[4];
        Map<String, String> pluginConfig = new HashMap<>();
        for (String entry : Arrays.asList(args).subList(5, args.length)) {
            int eq = entry.indexOf('=');
            pluginConfig.put(entry.substring(0, eq), entry.substring(eq + 1));
        }

        Common.setDeployMode(DeployMode.CLUSTER);
        SeaTunnelConfig config = ConfigProvider.locateAndGetSeaTunnelConfig();
        EngineConfig engine = config.getEngineConfig();
        EmbeddedEngine.masterAndWorker(engine, ExecutionMode.CLUSTER);
        CheckpointStorageConfig storage = engine.getCheckpointConfig().getStorage();
        storage.setStorage(storageType);
        storage.setStoragePluginConfig(pluginConfig);
        storage.setMaxRetainedCheckpoints(maxRetained);

        Config hz = config.getHazelcastConfig();
        hz.setClusterName(cluster);
        // A member that died is noticed by its closed connections within a second or two; the
        // heartbeat bound is the fallback and is kept short so a hung member is also dropped.
        hz.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        hz.setProperty("hazelcast.max.no.heartbeat.seconds", "15");
        NetworkConfig network = hz.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).setInterfaces(List.of("127.0.0.1"));
        network.getRestApiConfig().setEnabled(false);
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(members);

        HazelcastInstance member = HazelcastInstanceFactory.newHazelcastInstance(hz, "keepsake-member-" + port,
                new SeaTunnelNodeContext(config));
        String last = "";
        CountDownLatch never = new CountDownLatch(1);
        while (!never.await(0, TimeUnit.MILLISECONDS)) {
            var view = member.getCluster().getMembers();
            boolean master = view.iterator().next().localMember();
            String now = "CLUSTER size=" + view.size() + " master=" + master;
            if (!now.equals(last)) {
                System.out.println(now);
                System.out.flush();
                last = now;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }
}
