package io.keepsake.storage.azure;

import io.keepsake.fixtures.tck.BackendContractTest;
import io.keepsake.fixtures.tck.ObjectStoreContractTest;
import io.keepsake.reader.SavepointReaderRegistry;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole backend contract kit, fault-injection sweep included (every third operation), on
 * Azurite, and both savepoint format versions through the reader registry on the same server.
 */
class AzureContractTest extends ObjectStoreContractTest {

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    AzureContractTest() {
        super(azurite::fs, name -> azurite.fs().normalizeRoot(AzuritePerTestClass.freshDirectory(name)),
                SavepointReaderRegistry.standard()::read);
    }

    @Nested class FormatVersions extends BackendContractTest.FormatVersions { }
}
