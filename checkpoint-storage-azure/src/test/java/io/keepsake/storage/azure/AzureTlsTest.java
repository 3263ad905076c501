package io.keepsake.storage.azure;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.keepsake.fixtures.SystemProperties;
import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.storage.CheckpointStorage;
import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The backend over HTTPS, as every real Azure endpoint is, on the JDK's TLS: the build leaves Netty's
 * native TLS library out. Azurite serves a certificate made for the test; with it trusted a savepoint
 * commits and reads back, and without it the storage refuses to open rather than talk to a server it
 * cannot authenticate.
 */
class AzureTlsTest {

    @TempDir
    Path dir;

    private static void run(Path workDir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
    }

    /** A self-signed certificate for 127.0.0.1 in {@code <name>.cert.pem}, its key in {@code <name>.key.pem}. */
    private void certificate(String name) throws Exception {
        run(dir, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key.pem", "-out",
                name + ".cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost");
    }

    private static SavepointHandle commitOne(CheckpointStorage storage, byte[] payload) throws IOException {
        try (SavepointWriter w = ((SavepointStorage) storage).beginSavepoint(new SavepointRequest("1001", "sp-tls",
                SavepointKind.MANUAL, "test", "engine-wire-v1", System.currentTimeMillis(), Map.of()))) {
            try (OutputStream out = w.openPayload(1, 7)) {
                out.write(payload);
            }
            return w.commit(System.currentTimeMillis());
        }
    }

    @Test
    void aSavepointCommitsAndReadsBackOverHttpsAndAServerWithAnotherCertificateIsRefused() throws Exception {
        certificate("trusted");
        certificate("other");
        run(dir, "keytool", "-importcert", "-noprompt", "-alias", "azurite", "-file", "trusted.cert.pem", "-keystore",
                "trust.p12", "-storetype", "PKCS12", "-storepass", "changeit");
        // before any TLS client of this JVM is made: the JDK and Netty read the trust store once
        try (SystemProperties trust = SystemProperties.set(Map.of("javax.net.ssl.trustStore",
                dir.resolve("trust.p12").toString(), "javax.net.ssl.trustStorePassword", "changeit",
                "javax.net.ssl.trustStoreType", "PKCS12"));
             AzuriteServer server = AzuriteServer.startTls(dir.resolve("trusted.cert.pem"),
                     dir.resolve("trusted.key.pem"));
             AzuriteServer impostor = AzuriteServer.startTls(dir.resolve("other.cert.pem"),
                     dir.resolve("other.key.pem"))) {
            assertThat(server.endpoint().getScheme()).isEqualTo("https");
            new BlobServiceClientBuilder().endpoint(server.endpoint().toString())
                    .credential(new StorageSharedKeyCredential(AzuriteServer.ACCOUNT, AzuriteServer.ACCOUNT_KEY))
                    .buildClient().createBlobContainer("tls");
            Map<String, String> keys = AzuriteServer.factoryKeysFor(server.endpoint(), "azure://tls/ns");
            byte[] payload = "state over TLS".getBytes(StandardCharsets.UTF_8);
            try (CheckpointStorage storage = CheckpointStorageFactories.find("azure").create(keys)) {
                SavepointHandle h = commitOne(storage, payload);
                assertThat(h.location()).startsWith("azure://tls/ns/savepoint/1001/");
                assertThat(((SavepointStorage) storage).readSavepoint("1001", "sp-tls").payloadOfPipeline(1))
                        .isEqualTo(payload);
            }

            Map<String, String> toImpostor = AzuriteServer.factoryKeysFor(impostor.endpoint(), "azure://tls/ns");
            toImpostor.put("azure.max.tries", "1");
            assertThatThrownBy(() -> CheckpointStorageFactories.find("azure").create(toImpostor).close())
                    .as("a server whose certificate is not trusted")
                    .hasMessageContaining("SSLHandshakeException")
                    .hasMessageContaining("azure.endpoint=" + impostor.endpoint())
                    .hasMessageNotContaining("corrupt");
        }
    }
}
