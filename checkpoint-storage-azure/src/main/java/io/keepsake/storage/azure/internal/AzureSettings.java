package io.keepsake.storage.azure.internal;

import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import io.keepsake.storage.ConfigOption;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.StorageOptions;
import io.keepsake.storage.spi.objectstore.ObjectStoreValues;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The Azure backend's configuration, read from a table of options, and the SDK clients built from
 * it. Credentials come from {@value #ACCOUNT_KEY}, {@value #SAS_TOKEN} or Hadoop's keys for the
 * same account ({@code fs.azure.account.key.<account>.dfs.core.windows.net} or
 * {@code .blob.core.windows.net}, {@code fs.azure.sas.fixed.token.<account>.dfs.core.windows.net},
 * {@code fs.azure.sas.<container>.<account>.blob.core.windows.net}), else from
 * {@code DefaultAzureCredential} (environment, workload or managed identity, Azure CLI);
 * {@value #CREDENTIAL} picks one explicitly. Secrets are never part of a message. Not API.
 *
 * @param account           the storage account ({@value #ACCOUNT})
 * @param endpoint          the Blob service endpoint ({@value #ENDPOINT}, default {@code https://<account>.blob.core.windows.net})
 * @param container         the container of paths starting with {@code /} ({@value #CONTAINER}), or null
 * @param credential        the credential source
 * @param secret            the account key or SAS token, or null for {@link Credential#DEFAULT}
 * @param credentialSource  which key gave the credential, for messages (never the secret)
 * @param blockSize         bytes per staged block, a whole multiple of the savepoint chunk size; files up to it are one Put Blob
 * @param tryTimeout        how long one try of a request may take
 * @param maxTries          tries per request, the first included
 * @param conditionalWrites false only with {@value #CONDITIONAL_WRITES}{@code =unsupported}
 */
public record AzureSettings(String account, URI endpoint, String container, Credential credential, String secret,
                            String credentialSource, int blockSize, Duration tryTimeout, int maxTries,
                            boolean conditionalWrites) {

    /** The storage account name. */
    public static final String ACCOUNT = "azure.account.name";
    /** The Blob service endpoint (Azurite: {@code http://127.0.0.1:10000/devstoreaccount1}). */
    public static final String ENDPOINT = "azure.endpoint";
    /** The container of absolute paths ({@code /prefix}). */
    public static final String CONTAINER = "azure.container";
    /** The account's shared key. */
    public static final String ACCOUNT_KEY = "azure.account.key";
    /** A SAS token (with or without the leading {@code ?}). */
    public static final String SAS_TOKEN = "azure.sas.token";
    /** Which credential signs requests: {@code account-key}, {@code sas} or {@code default}. */
    public static final String CREDENTIAL = "azure.credential";
    /** Bytes per staged block. */
    public static final String BLOCK_SIZE = "azure.block.size";
    /** How long one try of a request may take. */
    public static final String TRY_TIMEOUT = "azure.try.timeout";
    /** Tries per request. */
    public static final String MAX_TRIES = "azure.max.tries";
    /** {@code required} (the default) or {@code unsupported}; see {@code S3}'s key of the same meaning. */
    public static final String CONDITIONAL_WRITES = "azure.conditional-writes";

    /** Every key of this backend besides the common ones and Hadoop's {@value #HADOOP_PREFIX} keys. */
    public static final Set<String> KEYS = Set.of(ACCOUNT, ENDPOINT, CONTAINER, ACCOUNT_KEY, SAS_TOKEN, CREDENTIAL,
            BLOCK_SIZE, TRY_TIMEOUT, MAX_TRIES, CONDITIONAL_WRITES);
    /** Hadoop's Azure keys, of which those naming this account's key or SAS token are read and the rest ignored. */
    public static final String HADOOP_PREFIX = "fs.azure.";
    /** The {@code storage.type} values this backend accepts. */
    public static final Set<String> STORAGE_TYPES = Set.of("azure", "abfs", "abfss", "wasb", "wasbs");
    /** The default bytes per block: 8 MiB. */
    public static final int DEFAULT_BLOCK_SIZE = 8 << 20;

    private static final String WHAT = "azure storage";
    // Azure: lower-case letters and digits, 3 to 24 of them; the emulator's devstoreaccount1 fits.
    private static final Pattern ACCOUNT_NAME = Pattern.compile("[a-z0-9]{3,24}");

    /** Where a credential comes from. */
    public enum Credential {
        /** The account's shared key. */
        ACCOUNT_KEY,
        /** A SAS token. */
        SAS,
        /** {@code DefaultAzureCredential}: environment, workload or managed identity, Azure CLI. */
        DEFAULT
    }

    private static final ConfigOption<String> ACCOUNT_OPTION = ConfigOption.text(ACCOUNT,
            "the storage account name", null).check(a -> ACCOUNT_NAME.matcher(a).matches(),
            "must be 3 to 24 lower-case letters and digits");
    private static final ConfigOption<String> CONTAINER_OPTION = ConfigOption.text(CONTAINER,
            "the container of absolute paths", null).check(c -> !c.isEmpty() && !c.contains("/"),
            "must name one container");
    private static final ConfigOption<Credential> CREDENTIAL_OPTION = ConfigOption.of(CREDENTIAL,
            "account-key, sas or default (DefaultAzureCredential)", null, "must be account-key, sas or default",
            v -> Credential.valueOf(v.toUpperCase(Locale.ROOT).replace("ACCOUNT-KEY", "ACCOUNT_KEY")));
    private static final ConfigOption<Long> BLOCK_SIZE_OPTION = ConfigOption.of(BLOCK_SIZE,
            "bytes per staged block (rounded up to whole 1 MiB chunks)", (long) DEFAULT_BLOCK_SIZE,
            "is not a size such as 8388608, 8M or 16M", ObjectStoreValues::size)
            .check(n -> n >= 1 && n <= 2000L << 20, "must be between 1 byte and 2000M");
    private static final ConfigOption<Duration> TRY_TIMEOUT_OPTION = ConfigOption.of(TRY_TIMEOUT,
            "how long one try of a request may take", Duration.ofSeconds(60),
            "is not a duration such as 60000 (ms), 60s or 1m", ObjectStoreValues::duration)
            .check(d -> d.toSeconds() >= 1, "must be at least one second");
    private static final ConfigOption<Integer> MAX_TRIES_OPTION = ConfigOption.integer(MAX_TRIES,
            "tries per request", 4, "is not a whole number").check(n -> n >= 1 && n <= 20, "must be between 1 and 20");
    private static final ConfigOption<Boolean> CONDITIONAL_WRITES_OPTION = ConfigOption.of(CONDITIONAL_WRITES,
            "required: the service must refuse a second conditional create of a blob; unsupported: accept one that"
                    + " does not", true, "must be required or unsupported", ObjectStoreValues::conditionalWrites);

    /**
     * Parses the backend's keys.
     *
     * @throws InvalidStorageArgumentException when a value is malformed or missing, naming its key (never a secret)
     */
    public static AzureSettings from(StorageOptions options) {
        Map<String, String> o = options.backendOptions();
        String account = ACCOUNT_OPTION.read(o, WHAT);
        if (account == null) {
            throw new InvalidStorageArgumentException("Cannot configure azure storage: " + ACCOUNT
                    + " is required (the storage account name)");
        }
        URI endpoint = endpoint(o.get(ENDPOINT), account);
        String container = CONTAINER_OPTION.read(o, WHAT);
        int blockSize = ObjectStoreValues.chunkAligned(BLOCK_SIZE_OPTION.read(o, WHAT));
        Secret secret = credential(o, account, CREDENTIAL_OPTION.read(o, WHAT));
        return new AzureSettings(account, endpoint, container, secret.kind(), secret.value(), secret.source(),
                blockSize, TRY_TIMEOUT_OPTION.read(o, WHAT), MAX_TRIES_OPTION.read(o, WHAT),
                CONDITIONAL_WRITES_OPTION.read(o, WHAT));
    }

    /** A credential, the secret it holds and the key that gave it. */
    private record Secret(Credential kind, String value, String source) {
    }

    /** The credential the keys give; with {@code chosen} null, the first of account key, SAS token and the default chain. */
    private static Secret credential(Map<String, String> o, String account, Credential chosen) {
        String keyName = firstPresent(o, ACCOUNT_KEY, HADOOP_PREFIX + "account.key." + account + ".dfs.core.windows.net",
                HADOOP_PREFIX + "account.key." + account + ".blob.core.windows.net");
        String sasName = firstPresent(o, SAS_TOKEN, HADOOP_PREFIX + "sas.fixed.token." + account + ".dfs.core.windows.net");
        if (sasName == null) {
            String suffix = "." + account + ".blob.core.windows.net";
            sasName = o.keySet().stream().filter(k -> k.startsWith(HADOOP_PREFIX + "sas.") && k.endsWith(suffix)
                    && !k.startsWith(HADOOP_PREFIX + "sas.fixed.")).sorted().findFirst().orElse(null);
        }
        Credential kind = chosen != null ? chosen
                : keyName != null ? Credential.ACCOUNT_KEY : sasName != null ? Credential.SAS : Credential.DEFAULT;
        return switch (kind) {
            case ACCOUNT_KEY -> ACCOUNT_KEY_SECRET.read(o, keyName, account);
            case SAS -> SAS_SECRET.read(o, sasName, account);
            case DEFAULT -> new Secret(kind, null, "DefaultAzureCredential (no " + ACCOUNT_KEY + " or " + SAS_TOKEN
                    + " given)");
        };
    }

    /**
     * How a secret of one credential is read: the {@value #CREDENTIAL} value that picks it, its key
     * and Hadoop's key of the same meaning, how its value is written down and how it is checked.
     *
     * @param kind      the credential
     * @param choice    the {@value #CREDENTIAL} value of the credential
     * @param key       this backend's key of the secret
     * @param hadoopKey Hadoop's key of the secret, before {@code <account>.dfs.core.windows.net}
     * @param normal    the value as it is used, from the trimmed value
     * @param valid     whether the used value can be the secret
     * @param invalid   what is wrong with a value {@code valid} refuses, for the message
     */
    private record SecretRule(Credential kind, String choice, String key, String hadoopKey,
                              UnaryOperator<String> normal, Predicate<String> valid, String invalid) {

        /** The secret under {@code name}, the key that gave it. */
        Secret read(Map<String, String> o, String name, String account) {
            if (name == null) {
                throw new InvalidStorageArgumentException("Cannot configure azure storage: " + CREDENTIAL + "=" + choice
                        + " needs " + key + " (or " + hadoopKey + account + ".dfs.core.windows.net)");
            }
            String value = normal.apply(o.get(name).trim());
            if (!valid.test(value)) {
                throw new InvalidStorageArgumentException("Cannot configure azure storage: " + name + " " + invalid
                        + " (its value is not shown)");
            }
            return new Secret(kind, value, name + " (account " + account + ")");
        }
    }

    private static final SecretRule ACCOUNT_KEY_SECRET = new SecretRule(Credential.ACCOUNT_KEY, "account-key",
            ACCOUNT_KEY, "fs.azure.account.key.", key -> key, AzureSettings::isBase64, "is not a base64 account key");
    private static final SecretRule SAS_SECRET = new SecretRule(Credential.SAS, "sas", SAS_TOKEN,
            "fs.azure.sas.fixed.token.", token -> token.startsWith("?") ? token.substring(1) : token,
            token -> token.contains("sig="), "is not a SAS token: it has no sig=");

    private static String firstPresent(Map<String, String> o, String... keys) {
        for (String k : keys) {
            if (o.get(k) != null && !o.get(k).isBlank()) {
                return k;
            }
        }
        return null;
    }

    private static boolean isBase64(String value) {
        try {
            return Base64.getDecoder().decode(value).length > 0;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static URI endpoint(String value, String account) {
        if (value == null || value.isBlank()) {
            return URI.create("https://" + account + ".blob.core.windows.net");
        }
        URI uri;
        try {
            uri = new URI(value.trim());
        } catch (URISyntaxException e) {
            throw new InvalidStorageArgumentException("Cannot configure azure storage: " + ENDPOINT
                    + " is not an address (" + value + ")");
        }
        if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
            throw new InvalidStorageArgumentException("Cannot configure azure storage: " + ENDPOINT
                    + " must be an http or https address with a host (" + value + ")");
        }
        if (uri.getQuery() != null) {
            throw new InvalidStorageArgumentException("Cannot configure azure storage: " + ENDPOINT
                    + " must not carry a query; give a SAS token in " + SAS_TOKEN + " (the query is not shown)");
        }
        return uri;
    }

    /** Where the service is, for messages. */
    public String endpointText() {
        return endpoint.toString();
    }

    /** A client for normal work. */
    public BlobServiceClient client() {
        return client(tryTimeout, maxTries, null);
    }

    /** A client that gives up in seconds, for the checks at creation. */
    public BlobServiceClient probeClient() {
        Duration timeout = tryTimeout.compareTo(Duration.ofSeconds(10)) < 0 ? tryTimeout : Duration.ofSeconds(10);
        return client(timeout, Math.min(maxTries, 2), null);
    }

    /**
     * A client with {@code tries} tries of at most {@code timeout} each; {@code policy}, when not
     * null, sees every try of every request (tests count them with it).
     */
    public BlobServiceClient client(Duration timeout, int tries, HttpPipelinePolicy policy) {
        BlobServiceClientBuilder b = new BlobServiceClientBuilder().endpoint(endpoint.toString())
                .retryOptions(new RequestRetryOptions(RetryPolicyType.EXPONENTIAL, tries,
                        Duration.ofSeconds(Math.max(1, timeout.toSeconds())), Duration.ofMillis(100),
                        Duration.ofSeconds(5), null));
        switch (credential) {
            case ACCOUNT_KEY -> b.credential(new StorageSharedKeyCredential(account, secret));
            case SAS -> b.sasToken(secret);
            case DEFAULT -> b.credential(new DefaultAzureCredentialBuilder().build());
        }
        if (policy != null) {
            b.addPolicy(policy);
        }
        return b.buildClient();
    }
}
