package io.keepsake.storage.azure;

import io.keepsake.fixtures.azure.AzuriteServer;
import io.keepsake.fixtures.http.FaultyHttpProxy;
import io.keepsake.fixtures.http.FaultyHttpProxyPerClass;
import io.keepsake.fixtures.tck.PayloadBytes;
import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.spi.StorageFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.keepsake.fixtures.tck.PayloadBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lost responses: a proxy between the SDK and Azurite lets the service apply a publishing request
 * (the Put Blob of {@code _metadata.ser}, or the Put Block List of a payload staged in blocks) and
 * drops its response. With the SDK retrying (the retry meets the condition's refusal) or not (the
 * request fails), the stream reads the blob back, finds its own write id and reports success; the
 * savepoint is committed and reads back whole. A blob of another writer is still refused.
 */
class AzureLostResponseTest {

    private static final String JOB = "7001";

    @RegisterExtension
    static final AzuritePerTestClass azurite = new AzuritePerTestClass();

    @RegisterExtension
    static final FaultyHttpProxyPerClass proxied = new FaultyHttpProxyPerClass(() -> azurite.endpoint());

    private static URI proxied() {
        return URI.create(proxied.proxy().endpoint() + "/" + AzuriteServer.ACCOUNT);
    }

    private static Map<Integer, byte[]> payloads() {
        Map<Integer, byte[]> m = new LinkedHashMap<>();
        m.put(1, bytes(1, 1000));
        m.put(2, bytes(2, 2 * AzuritePerTestClass.BLOCK + 1000));
        return m;
    }

    private static KeepsakeStorage open(StorageFileSystem fs, String ns) {
        return KeepsakeStorage.open(fs, new StorageOptions(ns, null, null, 0, Map.of(), 600_000));
    }

    /** The index of the first request of a clean commit whose line contains every marker. */
    private static int indexOf(List<String> markers) throws IOException {
        String ns = azurite.fs().normalizeRoot(AzuritePerTestClass.freshDirectory("lost-find") + "/ns");
        try (AzureFileSystem fs = AzuritePerTestClass.newFileSystem(proxied(), 1, null); KeepsakeStorage s = open(fs, ns)) {
            proxied.proxy().disarm();
            PayloadBytes.commit(s, JOB, "sp-new", payloads());
            return proxied.indexOf(markers);
        }
    }

    @ParameterizedTest(name = "{0} with {1} tries")
    @CsvSource({
            "_metadata.ser, 4", // the Put Blob of the metadata, the SDK retrying
            "_metadata.ser, 1", // the same without retries
            "comp=blocklist, 4", // the Put Block List of a payload, recognised as its own blob
            "comp=blocklist, 1"})
    void aLostResponseIsCommitted(String marker, int tries) throws IOException {
        List<String> markers = List.of("PUT ", marker);
        int k = indexOf(markers);
        String ns = azurite.fs().normalizeRoot(AzuritePerTestClass.freshDirectory("lost") + "/ns");
        FaultyHttpProxy proxy = proxied.proxy();
        List<String> seen;
        try (AzureFileSystem fs = AzuritePerTestClass.newFileSystem(proxied(), tries, null);
             KeepsakeStorage s = open(fs, ns)) {
            proxy.arm(k, FaultyHttpProxy.Fault.DROP_RESPONSE);
            try {
                PayloadBytes.commit(s, JOB, "sp-new", payloads());
            } finally {
                seen = proxy.requests();
                proxy.disarm();
            }
        }
        assertThat(seen.get(k - 1)).as("the spoiled request").contains(markers);
        try (KeepsakeStorage after = open(azurite.fs(), ns)) {
            var content = after.readSavepoint(JOB, "sp-new");
            payloads().forEach((pid, b) -> assertThat(content.payloadOfPipeline(pid)).isEqualTo(b));
        }
    }

    @Test
    void anotherWritersBlobIsStillRefusedNamingThePath() throws IOException {
        AzureFileSystem fs = azurite.fs();
        String dir = AzuritePerTestClass.freshDirectory("taken");
        String small = fs.child(dir, "small");
        String large = fs.child(dir, "large");
        for (String f : List.of(small, large)) {
            try (var out = fs.create(f, true)) {
                out.write(bytes(5, 10));
                out.sync();
            }
        }
        assertThatThrownBy(() -> {
            try (var out = fs.create(small, true)) {
                out.write(bytes(6, 10));
                out.sync();
            }
        }).isInstanceOf(FileAlreadyExistsException.class).hasMessageContaining(small);
        assertThatThrownBy(() -> {
            try (var out = fs.create(large, true)) {
                out.write(bytes(7, 2 * fs.blockSize() + 1));
                out.sync();
            }
        }).isInstanceOf(FileAlreadyExistsException.class).hasMessageContaining(large);
        try (var in = fs.open(large)) {
            assertThat(in.readAllBytes()).isEqualTo(bytes(5, 10));
        }
    }
}
