package io.keepsake.bench;

import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.NameNodeRpcServer;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.MetricType;
import org.apache.hadoop.metrics2.impl.MetricsCollectorImpl;
import org.apache.hadoop.metrics2.impl.MetricsRecordImpl;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Counts the calls a mini cluster's NameNode has processed on its client RPC server, per method,
 * from the server's own detailed RPC metrics (the per-method {@code ...NumOps} counters). Calls
 * a DataNode makes (heartbeats, block reports, received-block notices) are left out: they come
 * on their own schedule, not from the client.
 *
 * <p>Not thread-safe.
 */
final class NameNodeCalls {

    /** Methods of the DataNode protocol, which the client's calls do not include. */
    private static final Set<String> DATANODE_METHODS = Set.of("SendHeartbeat", "BlockReceivedAndDeleted",
            "BlockReport", "CacheReport", "RegisterDatanode", "VersionRequest", "ErrorReport", "SendLifeline",
            "CommitBlockSynchronization", "ReportBadBlocks");

    private final RPC.Server server;

    /** Reads the counters of the cluster's first NameNode. */
    NameNodeCalls(MiniDFSCluster cluster) {
        this.server = ((NameNodeRpcServer) cluster.getNameNode().getRpcServer()).getClientRpcServer();
    }

    /** The client calls processed so far, by method name. */
    Map<String, Long> snapshot() {
        MetricsCollectorImpl collector = new MetricsCollectorImpl();
        server.getRpcDetailedMetrics().getOverallRpcProcessingRates().snapshot(collector.addRecord("calls"), true);
        Map<String, Long> counts = new TreeMap<>();
        for (MetricsRecordImpl record : collector.getRecords()) {
            for (AbstractMetric metric : record.metrics()) {
                String name = metric.name();
                if (metric.type() == MetricType.COUNTER && name.endsWith("NumOps")) {
                    String method = name.substring(0, name.length() - "NumOps".length());
                    if (method.startsWith("Overall")) {
                        method = method.substring("Overall".length());
                    }
                    if (!DATANODE_METHODS.contains(method)) {
                        counts.merge(method, metric.value().longValue(), Long::sum);
                    }
                }
            }
        }
        return counts;
    }

    /** {@code after - before} per method, without zero entries. */
    static Map<String, Long> difference(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> diff = new TreeMap<>();
        after.forEach((method, count) -> {
            long d = count - before.getOrDefault(method, 0L);
            if (d != 0) {
                diff.put(method, d);
            }
        });
        return diff;
    }
}
