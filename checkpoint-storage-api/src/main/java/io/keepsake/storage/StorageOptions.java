package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The configuration keys every backend shares, parsed from the engine's string map with the
 * backend's own keys. The caller's map is copied, never mutated; unknown keys, missing required
 * keys and malformed values are an {@link InvalidStorageArgumentException}, never a silent default.
 *
 * @param namespace           the checkpoint root ({@code namespace}, required)
 * @param storageType         {@code storage.type}, when given
 * @param savepointPath       {@code savepoint.path}, when given; else {@code <namespace>/savepoint}
 * @param periodicMaxRetained {@code savepoint.periodic.max-retained}; 0 keeps every periodic savepoint
 * @param backendOptions      the remaining keys, which the backend declared as its own
 * @param leaseTimeoutMillis  {@code savepoint.lease-timeout-ms}: how long an attempt in flight stays
 *                            protected from every process's garbage collection without renewal
 * @param formatVersion       {@code savepoint.format-version}: the savepoint format version written,
 *                            {@link Versions#CURRENT_FORMAT_VERSION} unless an older build must read them
 * @param verifyThreads       {@code savepoint.verify-threads}: the threads that check the chunks of
 *                            format-version-2 payloads while they are read; one per processor by default
 */
public record StorageOptions(String namespace, String storageType, String savepointPath, int periodicMaxRetained,
                             Map<String, String> backendOptions, long leaseTimeoutMillis, int formatVersion,
                             int verifyThreads) {

    /** The key of the checkpoint root (required). */
    public static final String NAMESPACE = "namespace";
    /** The key of the storage type, which must match the backend. */
    public static final String STORAGE_TYPE = "storage.type";
    /** The key of the savepoint root; default {@code <namespace>/savepoint}. */
    public static final String SAVEPOINT_PATH = "savepoint.path";
    /** The key of the number of periodic savepoints kept per job; 0 keeps all. */
    public static final String PERIODIC_MAX_RETAINED = "savepoint.periodic.max-retained";
    /** The key of the lease timeout of an in-flight savepoint attempt, in milliseconds. */
    public static final String LEASE_TIMEOUT = "savepoint.lease-timeout-ms";
    /**
     * The key of the savepoint format version written: 2 (the default) or 1, for a rollback to a
     * build that reads only version 1. Reading is not affected: every version in the window reads.
     */
    public static final String FORMAT_VERSION = "savepoint.format-version";
    /** The key of the number of threads that verify chunks while a payload is read; default one per processor. */
    public static final String VERIFY_THREADS = "savepoint.verify-threads";

    /**
     * {@code create-roots}: {@code true} (the default) creates missing roots when the storage is
     * opened; {@code false} opens it without writing anything, for readers such as the operator
     * tool's read-only commands and accounts that may only read. With {@code false} a missing
     * {@code namespace}, or a missing {@code savepoint.path} that was given explicitly, is a
     * {@link StorageRootNotFoundException}; a missing default savepoint root reads as empty. Factories
     * built on {@code spi.FileSystemStorageFactory} understand it; it is not part of
     * {@link #COMMON_KEYS}, because it says how to open a storage, not what the storage is.
     */
    public static final String CREATE_ROOTS = "create-roots";

    /** The default {@link #LEASE_TIMEOUT}: one minute. */
    public static final long DEFAULT_LEASE_TIMEOUT_MILLIS = 60_000;

    /** How {@link #parse} reads {@link #PERIODIC_MAX_RETAINED}. */
    private static final ConfigOption<Integer> PERIODIC_MAX_RETAINED_OPTION = ConfigOption.integer(PERIODIC_MAX_RETAINED,
            "the number of periodic savepoints kept per job; 0 keeps all", 0, "must be a non-negative integer")
            .check(n -> n >= 0, "must be a non-negative integer");
    /** How {@link #parse} reads {@link #LEASE_TIMEOUT}. */
    private static final ConfigOption<Long> LEASE_TIMEOUT_OPTION = ConfigOption.longInteger(LEASE_TIMEOUT,
            "how long an attempt in flight stays protected from garbage collection without renewal, in milliseconds",
            DEFAULT_LEASE_TIMEOUT_MILLIS, "must be an integer of at least 100 milliseconds")
            .check(n -> n >= 100, "must be an integer of at least 100 milliseconds");
    /** How {@link #parse} reads {@link #FORMAT_VERSION}. */
    private static final ConfigOption<Integer> FORMAT_VERSION_OPTION = integerFromTo(FORMAT_VERSION,
            "the savepoint format version written", Versions.CURRENT_FORMAT_VERSION, Versions.OLDEST_FORMAT_VERSION,
            Versions.CURRENT_FORMAT_VERSION);
    /** How {@link #parse} reads {@link #VERIFY_THREADS}; absent, one per processor. */
    private static final ConfigOption<Integer> VERIFY_THREADS_OPTION = integerFromTo(VERIFY_THREADS,
            "the threads that verify chunks while a payload is read", null, 1, 1024);

    /** Keys every backend accepts. */
    public static final Set<String> COMMON_KEYS = Set.of(NAMESPACE, STORAGE_TYPE, SAVEPOINT_PATH, PERIODIC_MAX_RETAINED,
            LEASE_TIMEOUT, FORMAT_VERSION, VERIFY_THREADS);

    /**
     * Checks the namespace, the lease timeout, the format version and the thread count, and copies
     * the backend's options.
     *
     * @throws InvalidStorageArgumentException naming the key whose value is out of range
     */
    public StorageOptions {
        Arguments.requireNonNull("configure storage", NAMESPACE, namespace);
        Arguments.requireNonNull("configure storage", "backendOptions", backendOptions);
        backendOptions = Collections.unmodifiableMap(new TreeMap<>(backendOptions));
        if (leaseTimeoutMillis < 100) {
            throw new InvalidStorageArgumentException("Cannot configure storage: " + LEASE_TIMEOUT
                    + " must be at least 100 (" + leaseTimeoutMillis + ")");
        }
        if (formatVersion < Versions.OLDEST_FORMAT_VERSION || formatVersion > Versions.CURRENT_FORMAT_VERSION) {
            throw new InvalidStorageArgumentException("Cannot configure storage: " + FORMAT_VERSION + " must be "
                    + Versions.OLDEST_FORMAT_VERSION + " to " + Versions.CURRENT_FORMAT_VERSION + " (" + formatVersion + ")");
        }
        if (verifyThreads < 1) {
            throw new InvalidStorageArgumentException("Cannot configure storage: " + VERIFY_THREADS
                    + " must be at least 1 (" + verifyThreads + ")");
        }
    }

    /** Options with the format version this build writes and a verifier thread per processor. */
    public StorageOptions(String namespace, String storageType, String savepointPath, int periodicMaxRetained,
                          Map<String, String> backendOptions, long leaseTimeoutMillis) {
        this(namespace, storageType, savepointPath, periodicMaxRetained, backendOptions, leaseTimeoutMillis,
                Versions.CURRENT_FORMAT_VERSION, defaultVerifyThreads());
    }

    /** The default of {@link #VERIFY_THREADS}: the processors available to this JVM. */
    public static int defaultVerifyThreads() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** Options with only the roots given, everything else at its default. */
    public static StorageOptions of(String namespace, String savepointPath, int periodicMaxRetained) {
        return new StorageOptions(namespace, null, savepointPath, periodicMaxRetained, Map.of(),
                DEFAULT_LEASE_TIMEOUT_MILLIS);
    }

    /** These options, writing savepoints in {@code formatVersion}. */
    public StorageOptions withFormatVersion(int formatVersion) {
        return new StorageOptions(namespace, storageType, savepointPath, periodicMaxRetained, backendOptions,
                leaseTimeoutMillis, formatVersion, verifyThreads);
    }

    /** These options, verifying chunks on {@code verifyThreads} threads. */
    public StorageOptions withVerifyThreads(int verifyThreads) {
        return new StorageOptions(namespace, storageType, savepointPath, periodicMaxRetained, backendOptions,
                leaseTimeoutMillis, formatVersion, verifyThreads);
    }

    /**
     * Parses a configuration map.
     *
     * @param config          the engine's map; copied, never mutated
     * @param backend         the backend's factory id, for messages
     * @param backendKeys     exact keys the backend accepts besides the common ones
     * @param backendPrefixes key prefixes the backend accepts (such as {@code seatunnel.hadoop.})
     * @param storageTypes    the {@code storage.type} values the backend accepts
     * @throws InvalidStorageArgumentException when a key is unknown, a value is missing or malformed
     */
    public static StorageOptions parse(Map<String, String> config, String backend, Set<String> backendKeys,
                                       List<String> backendPrefixes, Set<String> storageTypes) {
        String what = backend + " storage";
        Map<String, String> copy = copyWithoutNulls(config, what);
        Map<String, String> own = backendOptions(copy, what, backendKeys, backendPrefixes);
        String namespace = copy.get(NAMESPACE);
        if (namespace == null || namespace.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot configure " + what + ": the key is required ("
                    + NAMESPACE + ")");
        }
        String type = copy.get(STORAGE_TYPE);
        if (type != null && !storageTypes.contains(type)) {
            throw new InvalidStorageArgumentException("Cannot configure " + what + ": " + STORAGE_TYPE + "="
                    + type + " conflicts with this backend, which accepts " + new TreeSet<>(storageTypes));
        }
        String savepointPath = copy.get(SAVEPOINT_PATH);
        if (savepointPath != null && savepointPath.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot configure " + what + ": the value is blank ("
                    + SAVEPOINT_PATH + ")");
        }
        Integer threads = VERIFY_THREADS_OPTION.read(copy, what);
        return new StorageOptions(namespace, type, savepointPath, PERIODIC_MAX_RETAINED_OPTION.read(copy, what), own,
                LEASE_TIMEOUT_OPTION.read(copy, what), FORMAT_VERSION_OPTION.read(copy, what),
                threads == null ? defaultVerifyThreads() : threads);
    }

    /** A sorted copy of {@code config}, which must have neither a null key nor a null value. */
    private static Map<String, String> copyWithoutNulls(Map<String, String> config, String what) {
        if (config == null) {
            throw new InvalidStorageArgumentException("Cannot configure " + what + ": the configuration is null");
        }
        // Checked before the sorted copy, which would fail on a null key with a message naming nothing.
        for (Map.Entry<String, String> e : config.entrySet()) {
            if (e.getKey() == null) {
                throw new InvalidStorageArgumentException("Cannot configure " + what + ": a key is null"
                        + (e.getValue() == null ? "" : " (its value is " + e.getValue() + ")"));
            }
        }
        Map<String, String> copy = new TreeMap<>(config);
        for (Map.Entry<String, String> e : copy.entrySet()) {
            if (e.getValue() == null) {
                throw new InvalidStorageArgumentException("Cannot configure " + what + ": no value for key ("
                        + e.getKey() + ")");
            }
        }
        return copy;
    }

    /** The backend's own keys of {@code config}; any key neither common nor the backend's is refused. */
    private static Map<String, String> backendOptions(Map<String, String> config, String what, Set<String> backendKeys,
                                                      List<String> backendPrefixes) {
        Set<String> unknown = new TreeSet<>();
        Map<String, String> own = new TreeMap<>();
        for (Map.Entry<String, String> e : config.entrySet()) {
            String key = e.getKey();
            if (COMMON_KEYS.contains(key)) {
                continue;
            }
            if (backendKeys.contains(key) || backendPrefixes.stream().anyMatch(key::startsWith)) {
                own.put(key, e.getValue());
            } else {
                unknown.add(key);
            }
        }
        if (!unknown.isEmpty()) {
            Set<String> known = new TreeSet<>(COMMON_KEYS);
            known.addAll(backendKeys);
            backendPrefixes.forEach(p -> known.add(p + "*"));
            throw new InvalidStorageArgumentException("Cannot configure " + what + ": unknown key(s) " + unknown
                    + "; known keys are " + known);
        }
        return own;
    }

    /** An integer key refusing, with one message, text that is not an integer from {@code min} to {@code max}. */
    private static ConfigOption<Integer> integerFromTo(String key, String description, Integer defaultValue, int min,
                                                       int max) {
        String problem = "must be an integer from " + min + " to " + max;
        return ConfigOption.integer(key, description, defaultValue, problem).check(n -> n >= min && n <= max, problem);
    }
}
