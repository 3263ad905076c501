package io.keepsake.storage.hdfs;

import io.keepsake.fixtures.tck.FormatVersionsOnFileSystem;
import io.keepsake.fixtures.tck.StorageFaultContractTest;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole backend contract kit, fault-injection sweep included, on a real (in-process) HDFS,
 * and both savepoint format versions through the reader registry on the same cluster.
 */
class HdfsContractTest extends StorageFaultContractTest {

    @RegisterExtension
    static final MiniHdfsPerClass hdfs = new MiniHdfsPerClass();

    @Override
    protected StorageFileSystem fileSystem() {
        return hdfs.fs();
    }

    @Override
    protected String newBaseDirectory() {
        return hdfs.fs().normalizeRoot(hdfs.freshDirectory("/tck"));
    }

    /** Format versions 1 and 2 written into one root of this cluster, read through the reader registry. */
    @Nested
    class FormatVersions extends FormatVersionsOnFileSystem {
        FormatVersions() {
            super(hdfs.fs(), () -> hdfs.fs().normalizeRoot(hdfs.freshDirectory("/versions")),
                    SavepointReaderRegistry.standard()::read);
        }
    }
}
