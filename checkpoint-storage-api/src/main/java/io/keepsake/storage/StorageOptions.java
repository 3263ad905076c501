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
        if (config == null) {
            throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: the configuration is null");
        }
        // Checked before the sorted copy, which would fail on a null key with a message naming nothing.
        for (Map.Entry<String, String> e : config.entrySet()) {
            if (e.getKey() == null) {
                throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: a key is null"
                        + (e.getValue() == null ? "" : " (its value is " + e.getValue() + ")"));
            }
        }
        Map<String, String> copy = new TreeMap<>(config);
        Set<String> unknown = new TreeSet<>();
        Map<String, String> own = new TreeMap<>();
        for (Map.Entry<String, String> e : copy.entrySet()) {
            String key = e.getKey();
            if (key == null) {
                throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: a key is null");
            }
            if (e.getValue() == null) {
                throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: no value for key ("
                        + key + ")");
            }
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
            throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: unknown key(s) "
                    + unknown + "; known keys are " + known);
        }
        String namespace = copy.get(NAMESPACE);
        if (namespace == null || namespace.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: the key is required ("
                    + NAMESPACE + ")");
        }
        String type = copy.get(STORAGE_TYPE);
        if (type != null && !storageTypes.contains(type)) {
            throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: " + STORAGE_TYPE + "="
                    + type + " conflicts with this backend, which accepts " + new TreeSet<>(storageTypes));
        }
        String savepointPath = copy.get(SAVEPOINT_PATH);
        if (savepointPath != null && savepointPath.isBlank()) {
            throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: the value is blank ("
                    + SAVEPOINT_PATH + ")");
        }
        int retained = 0;
        String retainedValue = copy.get(PERIODIC_MAX_RETAINED);
        if (retainedValue != null) {
            try {
                retained = Integer.parseInt(retainedValue.trim());
            } catch (NumberFormatException e) {
                retained = -1;
            }
            if (retained < 0) {
                throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: "
                        + PERIODIC_MAX_RETAINED + " must be a non-negative integer (" + retainedValue + ")");
            }
        }
        long lease = DEFAULT_LEASE_TIMEOUT_MILLIS;
        String leaseValue = copy.get(LEASE_TIMEOUT);
        if (leaseValue != null) {
            try {
                lease = Long.parseLong(leaseValue.trim());
            } catch (NumberFormatException e) {
                lease = -1;
            }
            if (lease < 100) {
                throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: " + LEASE_TIMEOUT
                        + " must be an integer of at least 100 milliseconds (" + leaseValue + ")");
            }
        }
        int version = intValue(copy, backend, FORMAT_VERSION, Versions.CURRENT_FORMAT_VERSION,
                Versions.OLDEST_FORMAT_VERSION, Versions.CURRENT_FORMAT_VERSION);
        int threads = intValue(copy, backend, VERIFY_THREADS, defaultVerifyThreads(), 1, 1024);
        return new StorageOptions(namespace, type, savepointPath, retained, own, lease, version, threads);
    }

    /** An integer key's value between {@code min} and {@code max}, or {@code otherwise} when it is absent. */
    private static int intValue(Map<String, String> config, String backend, String key, int otherwise, int min,
                                int max) {
        String value = config.get(key);
        if (value == null) {
            return otherwise;
        }
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            parsed = min - 1;
        }
        if (parsed < min || parsed > max) {
            throw new InvalidStorageArgumentException("Cannot configure " + backend + " storage: " + key
                    + " must be an integer from " + min + " to " + max + " (" + value + ")");
        }
        return parsed;
    }
}
