package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.BackendContractTest;
import io.keepsake.reader.SavepointReaderRegistry;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole backend contract kit, fault-injection sweep included, on a real (in-process) HDFS,
 * and both savepoint format versions through the reader registry on the same cluster.
 */
class HdfsContractTest extends BackendContractTest {

    @RegisterExtension
    static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();

    HdfsContractTest() {
        super(hdfs::fs, name -> hdfs.fs().normalizeRoot(hdfs.freshDirectory("/" + name)),
                SavepointReaderRegistry.standard()::read);
    }

    @Nested class FormatVersions extends BackendContractTest.FormatVersions { }
}
