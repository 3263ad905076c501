package io.keepsake.storage.s3.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.ConfigOption;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.spi.objectstore.ObjectStoreValues;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.auth.credentials.InstanceProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.auth.credentials.SystemPropertyCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The S3 backend's configuration, parsed from SeaTunnel's keys for its {@code s3} checkpoint
 * storage ({@code s3.bucket}, {@code fs.s3a.*}), and the SDK clients built from it. Not API.
 *
 * @param bucket              the default bucket ({@code s3.bucket}, with or without {@code s3a://})
 * @param endpoint            {@code fs.s3a.endpoint} as a URI, or null for AWS's own endpoint
 * @param region              the signing region
 * @param pathStyle           {@code fs.s3a.path.style.access}
 * @param credentials         what signs the requests
 * @param credentialsSource   which keys or chain gave the credentials, for messages
 * @param partSize            {@code fs.s3a.multipart.size} in bytes, rounded up to a whole multiple of the
 *                            savepoint chunk size (1 MiB) so that parts hold whole chunks
 * @param connectTimeout      {@code fs.s3a.connection.establish.timeout}
 * @param socketTimeout       {@code fs.s3a.connection.timeout}
 * @param maxAttempts         {@code fs.s3a.attempts.maximum}: tries per request, the first included
 * @param conditionalWrites   false only with {@code s3.conditional-writes=unsupported}
 */
public record S3Settings(String bucket, URI endpoint, String region, boolean pathStyle,
                         AwsCredentialsProvider credentials, String credentialsSource, int partSize,
                         Duration connectTimeout, Duration socketTimeout, int maxAttempts, boolean conditionalWrites) {

    /** The bucket key, as SeaTunnel writes it ({@code s3a://bucket}). */
    public static final String BUCKET = "s3.bucket";
    /** The endpoint key. */
    public static final String ENDPOINT = "fs.s3a.endpoint";
    /** The region key. */
    public static final String REGION = "fs.s3a.endpoint.region";
    /** The access key id. */
    public static final String ACCESS_KEY = "fs.s3a.access.key";
    /** The secret key. */
    public static final String SECRET_KEY = "fs.s3a.secret.key";
    /** The session token, for temporary credentials. */
    public static final String SESSION_TOKEN = "fs.s3a.session.token";
    /** The credential providers, comma-separated class names as Hadoop's S3A takes them. */
    public static final String CREDENTIALS_PROVIDER = "fs.s3a.aws.credentials.provider";
    /** Path-style addressing ({@code http://endpoint/bucket/key}), for most S3-compatible servers. */
    public static final String PATH_STYLE = "fs.s3a.path.style.access";
    /** Whether an endpoint without a scheme is https. */
    public static final String SSL = "fs.s3a.connection.ssl.enabled";
    /** Bytes per multipart part. */
    public static final String PART_SIZE = "fs.s3a.multipart.size";
    /** Connect timeout. */
    public static final String CONNECT_TIMEOUT = "fs.s3a.connection.establish.timeout";
    /** Read timeout. */
    public static final String SOCKET_TIMEOUT = "fs.s3a.connection.timeout";
    /** Tries per request. */
    public static final String ATTEMPTS = "fs.s3a.attempts.maximum";
    /**
     * {@code required} (the default): creation checks that the store refuses a second conditional
     * create of one key and fails otherwise; {@code unsupported}: the user accepts a store without
     * conditional writes, where must-create is check-then-write and two racing commits of one
     * savepoint id could both appear to win.
     */
    public static final String CONDITIONAL_WRITES = "s3.conditional-writes";

    /** Every key of this backend besides the common ones. */
    public static final Set<String> KEYS = Set.of(BUCKET, ENDPOINT, REGION, ACCESS_KEY, SECRET_KEY, SESSION_TOKEN,
            CREDENTIALS_PROVIDER, PATH_STYLE, SSL, PART_SIZE, CONNECT_TIMEOUT, SOCKET_TIMEOUT, ATTEMPTS,
            CONDITIONAL_WRITES);

    private static final Logger LOG = LoggerFactory.getLogger(S3Settings.class);

    /** The {@code storage.type} values this backend accepts. */
    public static final Set<String> STORAGE_TYPES = Set.of("s3", "s3a");

    /**
     * The package of SDK v2's credential providers, as users write it. Built at run time: the SeaTunnel
     * plugin jar relocates the SDK, and its shading rewrites every string constant that starts with the
     * SDK's package, which would turn the names users configure into the relocated ones.
     */
    private static final String SDK_V2_CREDENTIALS = String.join(".", "software", "amazon", "awssdk", "auth",
            "credentials", "");
    private static final Map<String, String> PROVIDERS = providers();

    /** What messages say is being configured. */
    private static final String WHAT = "s3 storage";

    // The keys with a value of their own, as from() reads them; the credential keys are read together below.
    private static final ConfigOption<String> BUCKET_OPTION = ConfigOption.of(BUCKET,
            "the default bucket, with or without s3a://", null, "must name a bucket, such as s3a://my-bucket",
            S3Settings::bucketName);
    private static final ConfigOption<Boolean> SSL_OPTION = ConfigOption.bool(SSL,
            "whether an endpoint without a scheme is https", true);
    private static final ConfigOption<String> REGION_OPTION = ConfigOption.text(REGION, "the signing region",
            "us-east-1").check(r -> !r.isEmpty(), "is blank");
    private static final ConfigOption<Boolean> PATH_STYLE_OPTION = ConfigOption.bool(PATH_STYLE,
            "path-style addressing (http://endpoint/bucket/key)", false);
    private static final ConfigOption<Long> PART_SIZE_OPTION = ConfigOption.of(PART_SIZE, "bytes per multipart part",
            8L << 20, "is not a size such as 8388608, 8M or 16M", ObjectStoreValues::size)
            .check(n -> n >= 5 << 20, "must be at least 5M, the smallest part S3 accepts");
    private static final ConfigOption<Duration> CONNECT_TIMEOUT_OPTION = duration(CONNECT_TIMEOUT, "connect timeout",
            Duration.ofSeconds(10));
    private static final ConfigOption<Duration> SOCKET_TIMEOUT_OPTION = duration(SOCKET_TIMEOUT, "read timeout",
            Duration.ofSeconds(60));
    // read as a long and narrowed to the int the SDK takes
    private static final ConfigOption<Integer> ATTEMPTS_OPTION = ConfigOption.of(ATTEMPTS, "tries per request", 4,
            "is not a whole number", v -> (int) Long.parseLong(v)).check(n -> n >= 1 && n <= 20, "must be between 1 and 20");
    private static final ConfigOption<Boolean> CONDITIONAL_WRITES_OPTION = ConfigOption.of(CONDITIONAL_WRITES,
            "required: the store must refuse a second conditional create of a key; unsupported: accept one that does"
                    + " not", true, "must be required or unsupported", ObjectStoreValues::conditionalWrites);

    /**
     * Parses the backend's keys.
     *
     * @throws InvalidStorageArgumentException when a value is malformed, a pair is incomplete or a provider unknown
     */
    public static S3Settings from(StorageOptions options) {
        Map<String, String> o = options.backendOptions();
        String bucket = BUCKET_OPTION.read(o, WHAT);
        URI endpoint = endpoint(o.get(ENDPOINT), SSL_OPTION.read(o, WHAT));
        String region = REGION_OPTION.read(o, WHAT);
        Credentials credentials = credentials(o);
        long configuredPart = PART_SIZE_OPTION.read(o, WHAT);
        int partSize = ObjectStoreValues.chunkAligned(configuredPart);
        if (partSize != configuredPart) {
            LOG.info("S3 storage: {}={} is not a whole multiple of the savepoint chunk size ({} bytes); parts of"
                    + " {} bytes are used, so every part holds whole chunks", PART_SIZE, o.get(PART_SIZE),
                    ChunkDigests.CHUNK_SIZE, partSize);
        }
        Duration connect = CONNECT_TIMEOUT_OPTION.read(o, WHAT);
        Duration socket = SOCKET_TIMEOUT_OPTION.read(o, WHAT);
        int attempts = ATTEMPTS_OPTION.read(o, WHAT);
        boolean conditional = CONDITIONAL_WRITES_OPTION.read(o, WHAT);
        return new S3Settings(bucket, endpoint, region, PATH_STYLE_OPTION.read(o, WHAT), credentials.provider(),
                credentials.source(), partSize, connect, socket, attempts, conditional);
    }

    /** A bucket as SeaTunnel writes it ({@code s3a://bucket/}), without the scheme and trailing slashes. */
    private static String bucketName(String value) {
        String bucket = value.replaceFirst("(?i)^s3[an]?://", "");
        while (bucket.endsWith("/")) {
            bucket = bucket.substring(0, bucket.length() - 1);
        }
        if (bucket.isEmpty() || bucket.contains("/")) {
            throw new IllegalArgumentException(value);
        }
        return bucket;
    }

    /** The endpoint address, https unless {@code ssl} is false when it has no scheme; null when not given. */
    private static URI endpoint(String value, boolean ssl) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String e = value.trim();
        if (!e.contains("://")) {
            e = (ssl ? "https://" : "http://") + e;
        }
        URI endpoint;
        try {
            endpoint = new URI(e);
        } catch (URISyntaxException ex) {
            throw invalid(ENDPOINT, "is not an address", value);
        }
        if (endpoint.getHost() == null) {
            throw invalid(ENDPOINT, "has no host", value);
        }
        return endpoint;
    }

    /** What signs the requests, and which keys or chain gave it, for messages. */
    private record Credentials(AwsCredentialsProvider provider, String source) {
    }

    /** The credentials from the provider list, else from the key pair, else the SDK's default chain. */
    private static Credentials credentials(Map<String, String> o) {
        String access = o.get(ACCESS_KEY);
        String secret = o.get(SECRET_KEY);
        if ((access == null) != (secret == null)) {
            throw new InvalidStorageArgumentException("Cannot configure s3 storage: " + ACCESS_KEY + " and " + SECRET_KEY
                    + " go together; only " + (access == null ? SECRET_KEY : ACCESS_KEY) + " is given");
        }
        String token = o.get(SESSION_TOKEN);
        String providers = o.get(CREDENTIALS_PROVIDER);
        if (providers != null && !providers.isBlank()) {
            List<AwsCredentialsProvider> chain = new ArrayList<>();
            for (String name : providers.split(",")) {
                chain.add(provider(name.trim(), access, secret, token));
            }
            AwsCredentialsProvider provider = chain.size() == 1 ? chain.get(0)
                    : AwsCredentialsProviderChain.builder().credentialsProviders(chain).build();
            return new Credentials(provider, CREDENTIALS_PROVIDER + "=" + providers.trim());
        }
        if (access != null) {
            return new Credentials(token == null
                    ? StaticCredentialsProvider.create(AwsBasicCredentials.create(access, secret))
                    : StaticCredentialsProvider.create(AwsSessionCredentials.create(access, secret, token)),
                    ACCESS_KEY + "=" + access);
        }
        return new Credentials(DefaultCredentialsProvider.builder().build(),
                "the SDK's default credential chain (no " + ACCESS_KEY + " given)");
    }

    /** Where the store is, as messages name it. */
    public String describe() {
        return (endpoint == null ? "AWS S3 in " + region : endpoint.toString())
                + (bucket == null ? "" : ", bucket " + bucket);
    }

    /** The endpoint as configured, for messages. */
    public String endpointText() {
        return endpoint == null ? "AWS S3 in " + region : endpoint.toString();
    }

    /** A client for normal work. */
    public S3Client client() {
        return client(connectTimeout, socketTimeout, maxAttempts, null);
    }

    /**
     * A client that gives up quickly, for the checks at creation: a wrong endpoint fails in
     * seconds instead of after the normal retries and timeouts.
     */
    public S3Client probeClient() {
        Duration connect = connectTimeout.compareTo(Duration.ofSeconds(5)) < 0 ? connectTimeout : Duration.ofSeconds(5);
        Duration socket = socketTimeout.compareTo(Duration.ofSeconds(15)) < 0 ? socketTimeout : Duration.ofSeconds(15);
        return client(connect, socket, 3, Duration.ofSeconds(20));
    }

    private S3Client client(Duration connect, Duration socket, int attempts, Duration callTimeout) {
        var builder = S3Client.builder()
                .httpClientBuilder(Apache5HttpClient.builder().connectionTimeout(connect).socketTimeout(socket)
                        .connectionAcquisitionTimeout(socket).expectContinueEnabled(false))
                .region(Region.of(region))
                .credentialsProvider(credentials)
                .forcePathStyle(pathStyle)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // No "Expect: 100-continue": some S3-compatible servers answer a small PUT at once.
                .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(false).build())
                .overrideConfiguration(c -> {
                    c.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(attempts).build());
                    if (callTimeout != null) {
                        c.apiCallTimeout(callTimeout);
                    }
                });
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        return builder.build();
    }

    private static Map<String, String> providers() {
        Map<String, String> m = new TreeMap<>();
        m.put("org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider", "keys");
        m.put("org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider", "session");
        m.put("org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider", "anonymous");
        m.put("com.amazonaws.auth.EnvironmentVariableCredentialsProvider", "environment");
        m.put(SDK_V2_CREDENTIALS + "EnvironmentVariableCredentialsProvider", "environment");
        m.put("com.amazonaws.auth.SystemPropertiesCredentialsProvider", "system-properties");
        m.put(SDK_V2_CREDENTIALS + "SystemPropertyCredentialsProvider", "system-properties");
        m.put("com.amazonaws.auth.InstanceProfileCredentialsProvider", "instance-profile");
        m.put("org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider", "instance-profile");
        m.put(SDK_V2_CREDENTIALS + "InstanceProfileCredentialsProvider", "instance-profile");
        m.put("com.amazonaws.auth.profile.ProfileCredentialsProvider", "profile");
        m.put(SDK_V2_CREDENTIALS + "ProfileCredentialsProvider", "profile");
        m.put("com.amazonaws.auth.DefaultAWSCredentialsProviderChain", "default");
        m.put(SDK_V2_CREDENTIALS + "DefaultCredentialsProvider", "default");
        return m;
    }

    private static AwsCredentialsProvider provider(String name, String access, String secret, String token) {
        String kind = PROVIDERS.get(name);
        if (kind == null) {
            throw new InvalidStorageArgumentException("Cannot configure s3 storage: unknown credentials provider in "
                    + CREDENTIALS_PROVIDER + " (" + name + "); known are " + PROVIDERS.keySet());
        }
        return switch (kind) {
            case "keys", "session" -> {
                if (access == null) {
                    throw new InvalidStorageArgumentException("Cannot configure s3 storage: " + name + " needs "
                            + ACCESS_KEY + " and " + SECRET_KEY + " (" + CREDENTIALS_PROVIDER + ")");
                }
                if (kind.equals("session") && token == null) {
                    throw new InvalidStorageArgumentException("Cannot configure s3 storage: " + name + " needs "
                            + SESSION_TOKEN + " (" + CREDENTIALS_PROVIDER + ")");
                }
                yield StaticCredentialsProvider.create(kind.equals("keys") ? AwsBasicCredentials.create(access, secret)
                        : AwsSessionCredentials.create(access, secret, token));
            }
            case "anonymous" -> AnonymousCredentialsProvider.create();
            case "environment" -> EnvironmentVariableCredentialsProvider.create();
            case "system-properties" -> SystemPropertyCredentialsProvider.create();
            case "instance-profile" -> InstanceProfileCredentialsProvider.create();
            case "profile" -> ProfileCredentialsProvider.create();
            default -> DefaultCredentialsProvider.builder().build();
        };
    }

    /** A positive duration key: milliseconds, or a number with ms, s, m or h. */
    private static ConfigOption<Duration> duration(String key, String description, Duration fallback) {
        return ConfigOption.of(key, description, fallback, "is not a duration such as 5000 (ms), 5s or 1m",
                ObjectStoreValues::duration).check(d -> d.toMillis() >= 1, "must be positive");
    }

    private static InvalidStorageArgumentException invalid(String key, String why, String value) {
        return new InvalidStorageArgumentException("Cannot configure s3 storage: " + key + " " + why + " (" + value + ")");
    }
}
