package io.keepsake.storage.azure;

import com.azure.storage.common.sas.AccountSasPermission;
import com.azure.storage.common.sas.AccountSasResourceType;
import com.azure.storage.common.sas.AccountSasService;
import com.azure.storage.common.sas.AccountSasSignatureValues;
import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageException;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.StorageRootNotFoundException;
import io.keepsake.storage.azure.internal.AzureSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The factory id {@code azure} through ServiceLoader, the path forms it reads (azure://, and
 * Hadoop's abfs[s]:// and wasb[s]:// of the configured account), every credential source that
 * works against Azurite (account key, Hadoop's account-key key, SAS token), and typed errors that
 * name the key or path and never print a secret.
 */
class AzureStorageFactoryTest {

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    private static final String CONTAINER = AzuritePerTestClass.CONTAINER;

    private static KeepsakeStorage open(Map<String, String> keys) throws CheckpointStorageException {
        return (KeepsakeStorage) CheckpointStorageFactories.find("azure").create(keys);
    }

    private static Map<String, String> keys(String namespace) {
        return new HashMap<>(azurite.keys(namespace));
    }

    /** A checkpoint round trip through the storage. */
    private static void roundTrip(CheckpointStorage s) throws Exception {
        s.storeCheckPoint(new PipelineState("1", 1, 1, new byte[] {1, 2, 3}));
        assertThat(s.getLatestCheckpoint("1")).isNotEmpty();
    }

    @Test
    void theFactoryIdIsAzureAndTheHadoopPathFormsOfTheAccountNameTheSamePlace() throws Exception {
        assertThat(CheckpointStorageFactories.find("azure")).isInstanceOf(AzureStorageFactory.class);
        String prefix = AzuritePerTestClass.freshDirectory("paths").substring(("azure://" + CONTAINER + "/").length());
        String canonical = "azure://" + CONTAINER + "/" + prefix + "/ns";
        for (String form : new String[] {canonical,
                "abfs://" + CONTAINER + "@" + AzuriteServer.ACCOUNT + ".dfs.core.windows.net/" + prefix + "/ns/",
                "abfss://" + CONTAINER + "@" + AzuriteServer.ACCOUNT + ".dfs.core.windows.net/" + prefix + "/ns",
                "wasb://" + CONTAINER + "@" + AzuriteServer.ACCOUNT + ".blob.core.windows.net/" + prefix + "/ns",
                "wasbs://" + CONTAINER + "@" + AzuriteServer.ACCOUNT + ".blob.core.windows.net/" + prefix + "/ns"}) {
            try (KeepsakeStorage s = open(keys(form))) {
                assertThat(s.namespace()).as(form).isEqualTo(canonical);
                roundTrip(s);
            }
        }
        Map<String, String> absolute = keys("/" + prefix + "/ns");
        absolute.put(AzureSettings.CONTAINER, CONTAINER);
        try (KeepsakeStorage s = open(absolute)) {
            assertThat(s.namespace()).isEqualTo(canonical);
        }
    }

    @Test
    void aHadoopPathOfAnotherAccountIsRefusedNamingThePathAndTheKey() {
        String path = "abfss://" + CONTAINER + "@otheraccount.dfs.core.windows.net/x";
        assertThatThrownBy(() -> open(keys(path))).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining(path).hasMessageContaining("otheraccount").hasMessageContaining("namespace");
        assertThatThrownBy(() -> open(keys("abfs://" + CONTAINER + "/x"))).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("container@account");
        assertThatThrownBy(() -> open(keys("/x"))).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining(AzureSettings.CONTAINER);
    }

    @Test
    void hadoopsAccountKeyAndASasTokenSignAsWellAsTheAccountKey() throws Exception {
        String ns = AzuritePerTestClass.freshDirectory("creds") + "/ns";
        Map<String, String> hadoop = keys(ns);
        String key = hadoop.remove(AzureSettings.ACCOUNT_KEY);
        hadoop.put("fs.azure.account.key." + AzuriteServer.ACCOUNT + ".dfs.core.windows.net", key);
        hadoop.put("fs.azure.account.auth.type", "SharedKey");
        try (KeepsakeStorage s = open(hadoop)) {
            roundTrip(s);
        }
        String sas = AzuritePerTestClass.client(azurite.endpoint(), 2, null).generateAccountSas(
                new AccountSasSignatureValues(OffsetDateTime.now().plusHours(1), AccountSasPermission.parse("rwdlacup"),
                        AccountSasService.parse("b"), AccountSasResourceType.parse("sco")));
        Map<String, String> withSas = keys(ns);
        withSas.remove(AzureSettings.ACCOUNT_KEY);
        withSas.put(AzureSettings.SAS_TOKEN, "?" + sas);
        try (KeepsakeStorage s = open(withSas)) {
            roundTrip(s);
        }
    }

    @Test
    void malformedOrMissingSettingsAreTypedNamingTheKeyAndNeverTheSecret() {
        String ns = AzuritePerTestClass.freshDirectory("bad") + "/ns";
        Map<String, String> noAccount = keys(ns);
        noAccount.remove(AzureSettings.ACCOUNT);
        assertThatThrownBy(() -> open(noAccount)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining(AzureSettings.ACCOUNT);

        Map<String, String> badKey = keys(ns);
        badKey.put(AzureSettings.ACCOUNT_KEY, "not base64 secret!");
        assertThatThrownBy(() -> open(badKey)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining(AzureSettings.ACCOUNT_KEY).hasMessageNotContaining("secret!");

        Map<String, String> sasWithout = keys(ns);
        sasWithout.put(AzureSettings.CREDENTIAL, "sas");
        assertThatThrownBy(() -> open(sasWithout)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining(AzureSettings.SAS_TOKEN);

        Map<String, String> unknown = keys(ns);
        unknown.put("azure.bogus", "1");
        assertThatThrownBy(() -> open(unknown)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining("azure.bogus");

        Map<String, String> block = keys(ns);
        block.put(AzureSettings.BLOCK_SIZE, "lots");
        assertThatThrownBy(() -> open(block)).isInstanceOf(InvalidStorageArgumentException.class)
                .hasMessageContaining(AzureSettings.BLOCK_SIZE);
    }

    @Test
    void aWrongKeyAMissingContainerAndAnUnreachableEndpointFailTypedAtOpen() {
        String ns = AzuritePerTestClass.freshDirectory("open") + "/ns";
        String wrongKey = "d3JvbmcgYnV0IHdlbGwgZm9ybWVkIGtleQ==";
        Map<String, String> wrong = keys(ns);
        wrong.put(AzureSettings.ACCOUNT_KEY, wrongKey);
        assertThatThrownBy(() -> open(wrong)).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining("refused the credentials").hasMessageContaining(AzureSettings.ACCOUNT_KEY)
                .hasMessageNotContaining(wrongKey);

        assertThatThrownBy(() -> open(keys("azure://no-such-container/ns")))
                .isInstanceOf(StorageRootNotFoundException.class).hasMessageContaining("no-such-container");

        Map<String, String> unreachable = keys(ns);
        unreachable.put(AzureSettings.ENDPOINT, "http://127.0.0.1:1/" + AzuriteServer.ACCOUNT);
        unreachable.put(AzureSettings.MAX_TRIES, "1");
        assertThatThrownBy(() -> open(unreachable)).isInstanceOf(CheckpointStorageException.class)
                .hasMessageContaining(AzureSettings.ENDPOINT);
    }

    @Test
    void theConditionalWriteProbeRunsOncePerContainerAndLeavesNothing() throws Exception {
        ConditionalWriteProbe.forget();
        int before = ConditionalWriteProbe.runs();
        String ns = AzuritePerTestClass.freshDirectory("probe") + "/ns";
        try (KeepsakeStorage s = open(keys(ns))) {
            assertThat(azurite.fs().listNames(s.namespace())).noneMatch(n -> n.startsWith(ConditionalWriteProbe.PROBE_PREFIX));
        }
        try (KeepsakeStorage s = open(keys(ns))) {
            roundTrip(s);
        }
        assertThat(ConditionalWriteProbe.runs() - before).as("probes run").isEqualTo(1);
    }
}
