package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.ReliabilityBackend;
import io.keepsake.fixtures.tck.ReliabilitySuites;
import io.keepsake.fixtures.tck.ServerReliabilityBackend;
import io.keepsake.fixtures.tck.StorageTarget;
import io.keepsake.fixtures.tck.TreeAccess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reliability suites (concurrency, multi-process, SIGKILL, regressions) on a real
 * in-process HDFS, one cluster for the whole class, opened only through the factory id
 * {@code hdfs}; child JVMs reach the cluster over its NameNode address.
 */
class HdfsReliabilityTest extends ReliabilitySuites {

    @RegisterExtension
    static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();

    private static TreeAccess tree;

    @BeforeAll
    static void openTree() throws Exception {
        tree = new HadoopTreeAccess(hdfs.superuser());
    }

    @Override
    protected ReliabilityBackend backend() {
        return new ServerReliabilityBackend(name -> new StorageTarget("hdfs", hdfs.factoryKeys(hdfs.freshDirectory(name)
                + "/ns")), tree, hdfs.uri() + "/");
    }

    @Nested class Concurrency extends ReliabilitySuites.Concurrency { }
    @Nested class MultiProcess extends ReliabilitySuites.MultiProcess { }
    @Nested class Kill extends ReliabilitySuites.Kill { }
    @Nested class Regressions extends ReliabilitySuites.Regressions { }
}
