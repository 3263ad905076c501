package io.keepsake.storage.azure;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.spi.objectstore.ObjectLocation;

import java.util.Locale;

/**
 * A path on Azure Blob Storage: a container and a blob name without leading or trailing slash
 * ({@code ""} for the container's top). Written as {@code azure://container/name}. Also read:
 * Hadoop's {@code abfs[s]://container@account.dfs.core.windows.net/name} and
 * {@code wasb[s]://container@account.blob.core.windows.net/name} (the account, the part before the
 * first dot, must be the configured one), and a path starting with {@code /}, a name in the default
 * container.
 *
 * @param container the container
 * @param name      the blob name, {@code ""} for the top of the container
 */
record AzurePath(String container, String name) implements ObjectLocation<AzurePath> {

    /** The scheme every path is written with. */
    static final String SCHEME = "azure://";

    /**
     * Parses {@code path}.
     *
     * @param account          the configured account, which Hadoop-style paths must name
     * @param defaultContainer the container of paths starting with {@code /}, or null to refuse them
     * @throws InvalidStorageArgumentException when the path has another form, names no container or another account
     */
    static AzurePath parse(String path, String account, String defaultContainer) {
        String lower = path.toLowerCase(Locale.ROOT);
        String container;
        String rest;
        if (lower.startsWith(SCHEME)) {
            String location = path.substring(SCHEME.length());
            container = ObjectLocation.beforeFirstSlash(location);
            rest = ObjectLocation.afterFirstSlash(location);
        } else if (lower.startsWith("abfs://") || lower.startsWith("abfss://") || lower.startsWith("wasb://")
                || lower.startsWith("wasbs://")) {
            String location = path.substring(path.indexOf("://") + 3);
            String authority = ObjectLocation.beforeFirstSlash(location);
            rest = ObjectLocation.afterFirstSlash(location);
            int at = authority.indexOf('@');
            if (at < 0) {
                throw new InvalidStorageArgumentException("Cannot use Azure path: it names no container; write "
                        + "container@account.dfs.core.windows.net after the scheme (" + path + ")");
            }
            container = authority.substring(0, at);
            String host = authority.substring(at + 1);
            String named = host.contains(".") ? host.substring(0, host.indexOf('.')) : host;
            if (!named.equals(account)) {
                throw new InvalidStorageArgumentException("Cannot use Azure path: it names account '" + named
                        + "', but the storage is configured for account '" + account + "' (" + path + ")");
            }
        } else if (path.startsWith("/")) {
            if (defaultContainer == null) {
                throw new InvalidStorageArgumentException("Cannot use Azure path: it names no container and no default"
                        + " container is configured (azure.container) (" + path + ")");
            }
            container = defaultContainer;
            rest = path.substring(1);
        } else {
            throw new InvalidStorageArgumentException("Cannot use Azure path: it is neither azure://container/name,"
                    + " abfs[s]://container@account.dfs.core.windows.net/name, wasb[s]://container@account"
                    + ".blob.core.windows.net/name nor an absolute name starting with / (" + path + ")");
        }
        if (container.isEmpty()) {
            throw new InvalidStorageArgumentException("Cannot use Azure path: the container is empty (" + path + ")");
        }
        return new AzurePath(container, ObjectLocation.withoutTrailingSlashes(rest));
    }

    @Override
    public AzurePath parent() {
        return new AzurePath(container, parentName());
    }

    /** The path as written: {@code azure://container/name}. */
    @Override
    public String toString() {
        return ObjectLocation.written(SCHEME, container, name);
    }
}
