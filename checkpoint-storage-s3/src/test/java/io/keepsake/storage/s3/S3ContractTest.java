package io.keepsake.storage.s3;

import io.keepsake.fixtures.tck.BackendContractTest;
import io.keepsake.fixtures.tck.ObjectStoreContractTest;
import io.keepsake.reader.SavepointReaderRegistry;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole backend contract kit, fault-injection sweep included (every third operation; S3HttpFaultTest
 * spoils every request of the same scenario), on an in-process S3Proxy, and both savepoint format
 * versions through the reader registry on the same server.
 */
class S3ContractTest extends ObjectStoreContractTest {

    @RegisterExtension
    static final S3ProxyPerClass server = new S3ProxyPerClass();

    S3ContractTest() {
        super(server::fs, name -> server.fs().normalizeRoot(S3ProxyServer.freshDirectory(name)),
                SavepointReaderRegistry.standard()::read);
    }

    @Nested class FormatVersions extends BackendContractTest.FormatVersions { }
}
