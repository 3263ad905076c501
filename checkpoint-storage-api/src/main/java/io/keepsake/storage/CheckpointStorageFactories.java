package io.keepsake.storage;

import io.keepsake.storage.internal.Arguments;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Finds {@link CheckpointStorageFactory} providers through {@link ServiceLoader}. The loader
 * walks the iterator itself: a provider that fails to load is reported and skipped; two
 * providers with one id is an error naming both; an unknown id is an error listing the ids found.
 * An id is looked up as given and, failing that, by its {@linkplain #canonicalId canonical form},
 * so {@code local}, {@code file} and {@code LocalFile} all find the {@code localfile} factory, as
 * they do in the operator tool's {@code --backend}.
 */
public final class CheckpointStorageFactories {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointStorageFactories.class);

    /**
     * The other names of factory ids, the one alias table of the library and the tool: the local
     * file-system backend is also {@code local} and {@code file}, as SeaTunnel's {@code storage.type}
     * spells it.
     */
    public static final Map<String, String> ALIASES = Map.of("local", "localfile", "file", "localfile");

    private CheckpointStorageFactories() {
    }

    /**
     * The factory with the given id, from the thread's context class loader.
     *
     * @throws InvalidStorageArgumentException when no provider, or more than one, has that id
     */
    public static CheckpointStorageFactory find(String id) {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return find(id, cl != null ? cl : CheckpointStorageFactories.class.getClassLoader());
    }

    /** The factory with the given id, from {@code classLoader}. */
    public static CheckpointStorageFactory find(String id, ClassLoader classLoader) {
        return select(id, ServiceLoader.load(CheckpointStorageFactory.class, classLoader).iterator());
    }

    /**
     * Every loadable factory by id.
     *
     * @throws InvalidStorageArgumentException when two providers share an id
     */
    public static Map<String, CheckpointStorageFactory> discover(Iterator<CheckpointStorageFactory> providers) {
        Map<String, CheckpointStorageFactory> byId = new TreeMap<>();
        while (true) {
            CheckpointStorageFactory factory;
            try {
                if (!providers.hasNext()) {
                    break;
                }
                factory = providers.next();
            } catch (ServiceConfigurationError | LinkageError e) {
                LOG.warn("Skipping a checkpoint storage provider that failed to load: {}", e.toString());
                continue;
            }
            String id = factory.factoryIdentifier();
            CheckpointStorageFactory previous = byId.putIfAbsent(id, factory);
            if (previous != null) {
                throw new InvalidStorageArgumentException("Cannot choose checkpoint storage provider: two providers"
                        + " declare the id '" + id + "' (" + previous.getClass().getName() + " and "
                        + factory.getClass().getName() + ")");
            }
        }
        return byId;
    }

    /**
     * The factory id {@code id} names: trimmed, lower-cased, and an {@linkplain #ALIASES alias}
     * replaced by the id it stands for; any other name is returned lower-cased.
     *
     * @throws InvalidStorageArgumentException when {@code id} is null
     */
    public static String canonicalId(String id) {
        Arguments.requireNonNull("find checkpoint storage", "id", id);
        String lower = id.trim().toLowerCase(Locale.ROOT);
        return ALIASES.getOrDefault(lower, lower);
    }

    /** Picks the provider with {@code id} out of an explicit provider list (the override for tests). */
    public static CheckpointStorageFactory select(String id, Iterator<CheckpointStorageFactory> providers) {
        Arguments.requireNonNull("find checkpoint storage", "id", id);
        Arguments.requireNonNull("find checkpoint storage '" + id + "'", "providers",
                providers);
        Map<String, CheckpointStorageFactory> byId = discover(providers);
        CheckpointStorageFactory factory = byId.get(id);
        if (factory == null) {
            factory = byId.get(canonicalId(id));
        }
        if (factory == null) {
            throw new InvalidStorageArgumentException("Cannot find checkpoint storage '" + id + "': the providers found"
                    + " are " + byId.keySet() + "; put the backend's jar on the classpath");
        }
        return factory;
    }
}
