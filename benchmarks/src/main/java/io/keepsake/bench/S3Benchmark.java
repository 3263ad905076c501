package io.keepsake.bench;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.SavepointWriter;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.s3.S3FileSystem;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedPart;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The S3 backend against the raw AWS SDK on the same in-process server (S3Proxy 4.0.0, its
 * in-memory transient-nio2 store, over HTTP on 127.0.0.1), in one JVM and one run: a savepoint of
 * 4 pipelines x 64 MiB (256 MiB) written through {@code SavepointWriter} (payloads streamed in
 * 1 MiB writes, SHA-256 while streaming, 8 MiB parts, conditional publication of
 * {@code _metadata.ser}) vs the same bytes put as 4 objects with the SDK's multipart upload and
 * the same part size; restore (every payload streamed with its length and SHA-256 checked) vs a
 * raw {@code GetObject} of each object; and the requests each makes. Rounds are interleaved
 * (keepsake first in odd rounds, raw first in even ones); each figure is the median of the rounds
 * with their minimum and maximum. Not a JMH benchmark: one operation takes seconds, and the
 * server shares the JVM, so the ratios are what to read, not the absolute figures.
 */
public final class S3Benchmark {

    private static final String BUCKET = "bench";
    private static final String ACCESS = "bench-access";
    private static final String SECRET = "bench-secret-key";
    private static final int PIPELINES = 4;
    private static final int PAYLOAD = 64 << 20;
    private static final int PART = S3FileSystem.DEFAULT_PART_SIZE;
    private static final int WRITE = 1 << 20;

    private S3Benchmark() {
    }

    /**
     * Prints the Markdown table. Arguments, both optional: a whole number of rounds (default 5),
     * and a file to write the table to as well.
     */
    public static void main(String[] args) throws Exception {
        int rounds = 5;
        java.nio.file.Path out = null;
        for (String a : args) {
            if (a.matches("\\d+")) {
                rounds = Integer.parseInt(a);
            } else {
                out = java.nio.file.Path.of(a);
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add("| S3 benchmark (" + rounds + " interleaved rounds) | params | median | min - max | unit |");
        lines.add("| --- | --- | ---: | ---: | --- |");
        lines.addAll(rows(rounds));
        for (String line : lines) {
            System.out.println(line);
        }
        if (out != null) {
            java.nio.file.Files.write(out, lines);
        }
    }

    /** Counts the HTTP requests a client sends (retries included). */
    private static final class Counter implements ExecutionInterceptor {
        final AtomicInteger requests = new AtomicInteger();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            requests.incrementAndGet();
        }

        /** Runs {@code run} as round {@code r} of {@code rates} (MiB/s) and returns the requests it sent. */
        int measure(double[] rates, int r, Run run) {
            int before = requests.get();
            rates[r] = mibPerSecond(run);
            return requests.get() - before;
        }
    }

    /**
     * Runs the benchmark and returns its Markdown table rows (without the header): save, restore,
     * their ratios to the raw SDK, and the requests per savepoint.
     *
     * @param rounds interleaved rounds, at least 1
     */
    public static List<String> rows(int rounds) throws Exception {
        Measured m = measure(rounds);
        String params = PIPELINES + " x " + (PAYLOAD >> 20) + " MiB, " + (PART >> 20) + " MiB parts";
        List<String> rows = new ArrayList<>();
        rows.add(row("S3Benchmark.keepsakeSave", params, m.save(), "MiB/s"));
        rows.add(row("S3Benchmark.rawMultipartPut", params, m.rawPut(), "MiB/s"));
        rows.add(row("save ratio keepsake / raw", "same round", m.saveRatio(), "x"));
        rows.add(row("S3Benchmark.keepsakeRestore", params + ", every byte verified", m.restore(), "MiB/s"));
        rows.add(row("S3Benchmark.rawGetObject", params, m.rawGet(), "MiB/s"));
        rows.add(row("restore ratio keepsake / raw", "same round", m.restoreRatio(), "x"));
        rows.add("| requests per savepoint | " + m.parts() + " parts | " + m.saveRequests() + " | raw: "
                + m.rawPutRequests() + " | requests |");
        rows.add("| requests per restore | " + PIPELINES + " payloads | " + m.restoreRequests() + " | raw: "
                + m.rawGetRequests() + " | requests |");
        return rows;
    }

    /** What the benchmark states: the savepoint's size, in pipelines and bytes per pipeline. */
    static String params() {
        return PIPELINES + " x " + (PAYLOAD >> 20) + " MiB, " + (PART >> 20) + " MiB parts";
    }

    /**
     * One run's figures, per interleaved round (MiB/s), and the requests of the last round.
     *
     * @param save            Keepsake's save (staged, SHA-256, conditional create of the metadata)
     * @param rawPut          the raw SDK multipart upload of the same bytes
     * @param restore         Keepsake's restore, every byte verified
     * @param rawGet          the raw SDK {@code GetObject} of the same objects
     * @param parts           parts of the savepoint's payloads
     * @param saveRequests    HTTP requests of one Keepsake save
     * @param rawPutRequests  HTTP requests of one raw upload of the same bytes
     * @param restoreRequests HTTP requests of one Keepsake restore
     * @param rawGetRequests  HTTP requests of one raw read
     */
    record Measured(double[] save, double[] rawPut, double[] restore, double[] rawGet, int parts, int saveRequests,
                    int rawPutRequests, int restoreRequests, int rawGetRequests) {

        double[] saveRatio() {
            return Spread.ratios(save, rawPut);
        }

        double[] restoreRatio() {
            return Spread.ratios(restore, rawGet);
        }
    }

    // About 71 lines: S3Proxy's start, the interleaved rounds and the teardown share the proxy and the counters.
    /**
     * Runs the benchmark on an in-process S3Proxy: one warm-up round, then {@code rounds} rounds in
     * which Keepsake and the raw SDK alternate going first.
     *
     * @param rounds interleaved rounds, at least 1
     */
    static Measured measure(int rounds) throws Exception {
        if (rounds < 1) {
            throw new IllegalArgumentException("Cannot benchmark: rounds must be at least 1 (" + rounds + ")");
        }
        S3Proxy proxy = S3Proxy.builder().blobStore(new TransientNio2BlobStore())
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET).build();
        proxy.start();
        while (!"STARTED".equals(proxy.getState())) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        URI endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
        Counter keepsakeCount = new Counter();
        Counter rawCount = new Counter();
        byte[][] payloads = new byte[PIPELINES][];
        Random random = new Random(42);
        for (int i = 0; i < PIPELINES; i++) {
            payloads[i] = new byte[PAYLOAD];
            random.nextBytes(payloads[i]);
        }
        double[] save = new double[rounds];
        double[] rawPut = new double[rounds];
        double[] restore = new double[rounds];
        double[] rawGet = new double[rounds];
        int keepsakeSaveRequests = 0;
        int keepsakeRestoreRequests = 0;
        int rawPutRequests = 0;
        int rawGetRequests = 0;
        try (S3Client raw = client(endpoint, rawCount);
             S3FileSystem fs = new S3FileSystem(client(endpoint, keepsakeCount), BUCKET, PART, true, endpoint.toString());
             KeepsakeStorage storage = KeepsakeStorage.open(fs, new StorageOptions("/bench/ns", null, null, 0, Map.of(),
                     StorageOptions.DEFAULT_LEASE_TIMEOUT_MILLIS))) {
            raw.createBucket(b -> b.bucket(BUCKET));
            // one warm-up round of each, not counted
            String warm = "warm";
            saveKeepsake(storage, warm, payloads);
            restoreKeepsake(storage, warm);
            putRaw(raw, warm, payloads);
            getRaw(raw, warm);
            storage.deleteSavepoint("1001", warm);
            deleteRaw(raw, warm);
            for (int r = 0; r < rounds; r++) {
                String id = "sp-" + r;
                boolean keepsakeFirst = r % 2 == 0;
                for (int step = 0; step < 2; step++) {
                    if ((step == 0) == keepsakeFirst) {
                        keepsakeSaveRequests = keepsakeCount.measure(save, r,
                                () -> saveKeepsake(storage, id, payloads));
                        keepsakeRestoreRequests = keepsakeCount.measure(restore, r,
                                () -> restoreKeepsake(storage, id));
                    } else {
                        rawPutRequests = rawCount.measure(rawPut, r, () -> putRaw(raw, id, payloads));
                        rawGetRequests = rawCount.measure(rawGet, r, () -> getRaw(raw, id));
                    }
                }
                storage.deleteSavepoint("1001", id);
                deleteRaw(raw, id);
            }
        } finally {
            proxy.stop();
        }
        int parts = PIPELINES * (int) Math.ceil((double) PAYLOAD / PART);
        return new Measured(save, rawPut, restore, rawGet, parts, keepsakeSaveRequests, rawPutRequests,
                keepsakeRestoreRequests, rawGetRequests);
    }

    private static S3Client client(URI endpoint, Counter counter) {
        return S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS, SECRET)))
                .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(false).socketTimeout(Duration.ofMinutes(2)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(false).build())
                .overrideConfiguration(o -> o.addExecutionInterceptor(counter))
                .build();
    }

    /** An operation that moves the benchmark's 256 MiB. */
    @FunctionalInterface
    private interface Run {
        void run() throws IOException;
    }

    private static double mibPerSecond(Run run) {
        long start = System.nanoTime();
        try {
            run.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return (double) PIPELINES * PAYLOAD / (1 << 20) / seconds;
    }

    private static void saveKeepsake(KeepsakeStorage storage, String id, byte[][] payloads) throws IOException {
        try (SavepointWriter w = storage.beginSavepoint(new SavepointRequest("1001", id, SavepointKind.MANUAL,
                "bench", "bench-payload", 1L, Map.of()))) {
            for (int p = 0; p < PIPELINES; p++) {
                try (OutputStream out = w.openPayload(p + 1, 1)) {
                    for (int off = 0; off < PAYLOAD; off += WRITE) {
                        out.write(payloads[p], off, WRITE);
                    }
                }
            }
            w.commit(2L);
        }
    }

    private static void restoreKeepsake(KeepsakeStorage storage, String id) throws IOException {
        SavepointHandle h = storage.readMetadata("1001", id);
        byte[] buffer = new byte[WRITE];
        for (ManifestEntry e : h.meta().manifest()) {
            try (InputStream in = storage.openPayload(h, e)) {
                while (in.read(buffer) >= 0) {
                    // verified while read; the bytes are discarded
                }
            }
        }
    }

    private static void putRaw(S3Client raw, String id, byte[][] payloads) {
        for (int p = 0; p < PIPELINES; p++) {
            String key = "raw/" + id + "/pipeline-" + (p + 1);
            String upload = raw.createMultipartUpload(b -> b.bucket(BUCKET).key(key)).uploadId();
            List<CompletedPart> parts = new ArrayList<>();
            byte[] bytes = payloads[p];
            for (int off = 0, n = 1; off < PAYLOAD; off += PART, n++) {
                int from = off;
                int length = Math.min(PART, PAYLOAD - off);
                int number = n;
                String etag = raw.uploadPart(b -> b.bucket(BUCKET).key(key).uploadId(upload).partNumber(number),
                        RequestBody.fromContentProvider(() -> new ByteArrayInputStream(bytes, from, length), length,
                                "application/octet-stream")).eTag();
                parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
            }
            raw.completeMultipartUpload(b -> b.bucket(BUCKET).key(key).uploadId(upload)
                    .multipartUpload(m -> m.parts(parts)));
        }
    }

    private static void getRaw(S3Client raw, String id) throws IOException {
        byte[] buffer = new byte[WRITE];
        for (int p = 0; p < PIPELINES; p++) {
            String key = "raw/" + id + "/pipeline-" + (p + 1);
            try (InputStream in = raw.getObject(b -> b.bucket(BUCKET).key(key))) {
                while (in.read(buffer) >= 0) {
                    // read and discarded
                }
            }
        }
    }

    private static void deleteRaw(S3Client raw, String id) {
        for (int p = 0; p < PIPELINES; p++) {
            String key = "raw/" + id + "/pipeline-" + (p + 1);
            raw.deleteObject(b -> b.bucket(BUCKET).key(key));
        }
    }

    private static String row(String name, String params, double[] values, String unit) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        String format = unit.equals("x") ? "%.2f" : "%.1f";
        return "| " + name + " | " + params + " | " + String.format(Locale.ROOT, format, median) + " | "
                + String.format(Locale.ROOT, format, sorted[0]) + " - "
                + String.format(Locale.ROOT, format, sorted[sorted.length - 1]) + " | " + unit + " |";
    }
}
