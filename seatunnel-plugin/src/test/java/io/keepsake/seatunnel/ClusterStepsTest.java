package io.keepsake.seatunnel;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ClusterSteps.Failover#leftByTheKilledMaster}: which files a gc may take after the master's SIGKILL. */
class ClusterStepsTest {

    private static final String JOB_DIR = "hdfs://localhost:1/ns-1/977/";
    private static final ClusterSteps.Failover FAILOVER = new ClusterSteps.Failover(977, 5_000, Map.of(1, 2L, 2, 2L));

    @Test
    void theTemporaryFileOfTheCheckpointTheKilledMasterWasWritingIsItsLeftover() {
        assertThat(FAILOVER.leftByTheKilledMaster(JOB_DIR + ".4999-56-1-3.ser.tmp")).isTrue();
    }

    @Test
    void anythingElseIsNot() {
        assertThat(FAILOVER.leftByTheKilledMaster(JOB_DIR + ".5001-56-1-3.ser.tmp")).as("named after the kill").isFalse();
        assertThat(FAILOVER.leftByTheKilledMaster(JOB_DIR + ".4999-56-1-2.ser.tmp")).as("a completed checkpoint's").isFalse();
        assertThat(FAILOVER.leftByTheKilledMaster(JOB_DIR + ".4999-56-3-3.ser.tmp")).as("another pipeline's").isFalse();
        assertThat(FAILOVER.leftByTheKilledMaster(JOB_DIR + "4999-56-1-3.ser")).as("a checkpoint file").isFalse();
        assertThat(FAILOVER.leftByTheKilledMaster("hdfs://localhost:1/ns-1/978/.4999-56-1-3.ser.tmp"))
                .as("another job's").isFalse();
        assertThat(FAILOVER.leftByTheKilledMaster("hdfs://localhost:1/ns-1/savepoint/977/.staging/x.lease"))
                .as("a savepoint attempt's").isFalse();
    }
}
