package io.keepsake.bench;

import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.NameNodeRpcServer;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsTag;

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
        Map<String, Long> counts = new TreeMap<>();
        server.getRpcDetailedMetrics().getOverallRpcProcessingRates().snapshot(new Collector(counts), true);
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

    /** Collects the {@code <Method>NumOps} counters of client methods. */
    private static final class Collector extends MetricsRecordBuilder {

        private final Map<String, Long> counts;

        Collector(Map<String, Long> counts) {
            this.counts = counts;
        }

        @Override
        public MetricsRecordBuilder addCounter(MetricsInfo info, long value) {
            String name = info.name();
            if (name.endsWith("NumOps")) {
                String method = name.substring(0, name.length() - "NumOps".length());
                if (method.startsWith("Overall")) {
                    method = method.substring("Overall".length());
                }
                if (!DATANODE_METHODS.contains(method)) {
                    counts.merge(method, value, Long::sum);
                }
            }
            return this;
        }

        @Override
        public MetricsRecordBuilder addCounter(MetricsInfo info, int value) {
            return addCounter(info, (long) value);
        }

        @Override
        public MetricsRecordBuilder tag(MetricsInfo info, String value) {
            return this;
        }

        @Override
        public MetricsRecordBuilder add(MetricsTag tag) {
            return this;
        }

        @Override
        public MetricsRecordBuilder add(AbstractMetric metric) {
            return this;
        }

        @Override
        public MetricsRecordBuilder setContext(String value) {
            return this;
        }

        @Override
        public MetricsRecordBuilder addGauge(MetricsInfo info, int value) {
            return this;
        }

        @Override
        public MetricsRecordBuilder addGauge(MetricsInfo info, long value) {
            return this;
        }

        @Override
        public MetricsRecordBuilder addGauge(MetricsInfo info, float value) {
            return this;
        }

        @Override
        public MetricsRecordBuilder addGauge(MetricsInfo info, double value) {
            return this;
        }

        @Override
        public MetricsCollector parent() {
            return null;
        }
    }
}
