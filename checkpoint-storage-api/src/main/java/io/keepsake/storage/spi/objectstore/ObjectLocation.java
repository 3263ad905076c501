package io.keepsake.storage.spi.objectstore;

/**
 * A place on an object store: a bucket (or container) and a name in it without leading or
 * trailing slash, {@code ""} for the bucket's top. "Directories" are name prefixes.
 *
 * @param <L> the backend's location type
 */
public interface ObjectLocation<L extends ObjectLocation<L>> {

    /** The name in the bucket, {@code ""} for its top. */
    String name();

    /** The directory holding this location, in the same bucket: the one named {@link #parentName()}. */
    L parent();

    /** The name prefix of the "directory" this location stands for: {@code name/}, or {@code ""} at the top. */
    default String directoryPrefix() {
        return name().isEmpty() ? "" : name() + "/";
    }

    /** The name of the directory holding this location, {@code ""} at the top. */
    default String parentName() {
        int slash = name().lastIndexOf('/');
        return slash < 0 ? "" : name().substring(0, slash);
    }

    /** The last segment of the name, {@code ""} at the top. */
    default String lastSegment() {
        return name().substring(name().lastIndexOf('/') + 1);
    }

    /** What comes before the first slash of {@code text} (a bucket, an authority): all of it when it has none. */
    static String beforeFirstSlash(String text) {
        int slash = text.indexOf('/');
        return slash < 0 ? text : text.substring(0, slash);
    }

    /** What comes after the first slash of {@code text} (a name): {@code ""} when it has none. */
    static String afterFirstSlash(String text) {
        int slash = text.indexOf('/');
        return slash < 0 ? "" : text.substring(slash + 1);
    }

    /** {@code name} without trailing slashes. */
    static String withoutTrailingSlashes(String name) {
        String rest = name;
        while (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        return rest;
    }

    /** A location as written: {@code scheme}, the bucket, and {@code /name} unless at the top. */
    static String written(String scheme, String scope, String name) {
        return name.isEmpty() ? scheme + scope : scheme + scope + "/" + name;
    }
}
