package io.keepsake.tool.internal;

import io.keepsake.tool.ToolUsageException;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * A savepoint addressed by its directory, as engines print it ({@code /data/sp/<job>/<savepoint>},
 * {@code file:///data/sp/<job>/<savepoint>}, {@code hdfs://nn:8020/sp/<job>/<savepoint>}): the
 * last name is the savepoint, the one before it the job, and what is above them the savepoint
 * root for that call. The namespace is taken as the root's parent, which is how Keepsake lays
 * out its default root ({@code <namespace>/savepoint}); nothing is read there. Stateless value.
 *
 * @param scheme        the URI scheme ({@code hdfs}, {@code file}), or null for a plain path
 * @param authority     the URI authority ({@code nn:8020}), or null
 * @param savepointRoot the savepoint root, in the same syntax as the path given
 * @param namespace     the root's parent, in the same syntax
 * @param jobId         the job
 * @param savepointId   the savepoint
 */
public record SavepointPath(String scheme, String authority, String savepointRoot, String namespace, String jobId,
                            String savepointId) {

    /** True when {@code argument} looks like a path rather than an id: it has a slash or a scheme. */
    public static boolean looksLikePath(String argument) {
        return argument != null && (argument.contains("/") || argument.contains("\\"));
    }

    /**
     * Splits a savepoint directory path.
     *
     * @throws ToolUsageException when it is not an absolute path with a root, a job and a savepoint
     */
    public static SavepointPath parse(String argument) {
        String scheme = null;
        String authority = null;
        String path = argument;
        String prefix = "";
        if (argument.contains("://") || argument.startsWith("file:")) {
            URI uri;
            try {
                uri = new URI(argument);
            } catch (URISyntaxException e) {
                throw new ToolUsageException("Cannot use savepoint path: it is not a valid URI: " + e.getReason() + " ("
                        + argument + ")");
            }
            scheme = uri.getScheme();
            authority = uri.getAuthority();
            path = uri.getPath();
            prefix = scheme + "://" + (authority == null ? "" : authority);
        }
        if (path == null || !path.startsWith("/")) {
            throw new ToolUsageException("Cannot use savepoint path: it must be absolute, <root>/<job>/<savepoint> ("
                    + argument + ")");
        }
        String trimmed = path.replaceAll("/+", "/");
        while (trimmed.length() > 1 && trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        String[] parts = trimmed.substring(1).split("/");
        if (parts.length < 4) {
            throw new ToolUsageException("Cannot use savepoint path: it needs <namespace>/<savepoint root>/<job>/<savepoint>"
                    + " below the file system's root, such as /data/keepsake/savepoint/<job>/<savepoint> (" + argument + ")");
        }
        String savepointId = parts[parts.length - 1];
        String jobId = parts[parts.length - 2];
        String root = "/" + String.join("/", java.util.Arrays.copyOf(parts, parts.length - 2));
        String namespace = "/" + String.join("/", java.util.Arrays.copyOf(parts, parts.length - 3));
        return new SavepointPath(scheme == null ? null : scheme.toLowerCase(java.util.Locale.ROOT), authority,
                prefix + root, prefix + namespace, jobId, savepointId);
    }

    /** True for a local path: no scheme, or {@code file:}. */
    public boolean local() {
        return scheme == null || "file".equals(scheme);
    }

    /** The file system's address for a remote path, such as {@code hdfs://nn:8020}; null for a local one. */
    public String fileSystemUri() {
        return local() ? null : scheme + "://" + (authority == null ? "" : authority);
    }
}
