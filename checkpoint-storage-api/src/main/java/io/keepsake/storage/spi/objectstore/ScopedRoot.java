package io.keepsake.storage.spi.objectstore;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.StorageOptions;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A root of a storage on an object store, with the bucket (or container) it lies in and the key
 * that configured it: what a backend checks once per bucket when it opens a storage.
 *
 * @param scope     the bucket or container
 * @param key       the option that named the root: {@value StorageOptions#NAMESPACE} or {@value StorageOptions#SAVEPOINT_PATH}
 * @param directory the root
 */
public record ScopedRoot(String scope, String key, String directory) {

    /**
     * One root per bucket of {@code storage}, ordered by bucket: the namespace, and the savepoint
     * root when it lies in another bucket.
     *
     * @param scopeOf the bucket (container) of a root
     */
    public static List<ScopedRoot> onePerScope(KeepsakeStorage storage, Function<String, String> scopeOf) {
        Map<String, ScopedRoot> byScope = new TreeMap<>();
        String namespaceScope = scopeOf.apply(storage.namespace());
        byScope.put(namespaceScope, new ScopedRoot(namespaceScope, StorageOptions.NAMESPACE, storage.namespace()));
        String savepointScope = scopeOf.apply(storage.savepointRoot());
        byScope.putIfAbsent(savepointScope, new ScopedRoot(savepointScope, StorageOptions.SAVEPOINT_PATH,
                storage.savepointRoot()));
        return List.copyOf(byScope.values());
    }
}
