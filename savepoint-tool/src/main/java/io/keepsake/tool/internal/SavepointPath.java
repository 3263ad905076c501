package io.keepsake.tool.internal;

import io.keepsake.tool.ToolUsageException;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A savepoint addressed by its directory, as engines print it ({@code /data/sp/<job>/<savepoint>},
 * {@code file:///data/sp/<job>/<savepoint>}, {@code hdfs://nn:8020/sp/<job>/<savepoint>}): the
 * last name is the savepoint, the one before it the job, and what is above them the savepoint
 * root for that call. The namespace is taken as the root's parent, which is how Keepsake lays
 * out its default root ({@code <namespace>/savepoint}); nothing is read there. A plain path may be
 * relative: it is resolved against the working directory, as {@code --namespace} is. A path to a
 * file inside a savepoint folder ({@link #fileInSavepoint}) can be turned into the folder's path
 * with {@link #folder}. Immutable value.
 *
 * @param scheme        the URI scheme ({@code hdfs}, {@code file}), or null for a plain path
 * @param authority     the URI authority ({@code nn:8020}), or null
 * @param savepointRoot the savepoint root, in the same syntax as the path given
 * @param namespace     the root's parent, in the same syntax
 * @param jobId         the job
 * @param savepointId   the savepoint
 * @param givenFile     the name of the file inside the savepoint that the argument named, when
 *                      this is the folder {@link #folder} made of it; else null
 */
public record SavepointPath(String scheme, String authority, String savepointRoot, String namespace, String jobId,
                            String savepointId, String givenFile) {

    /** The layout a savepoint path must have, for messages. */
    public static final String LAYOUT = "<namespace>/<savepoint root>/<job>/<savepoint>, such as"
            + " /data/keepsake/savepoint/<job>/<savepoint>";

    /** The name of Keepsake's default savepoint root under a namespace. */
    public static final String DEFAULT_ROOT_NAME = "savepoint";

    /** The metadata file every complete savepoint folder holds. */
    private static final String METADATA_FILE = "_metadata.ser";

    /** Payload names Keepsake writes in a savepoint folder: {@code pipeline-1.wire}, or {@code pipeline-1.<attempt>.wire}. */
    private static final Pattern PAYLOAD_FILE = Pattern.compile("pipeline-\\d+(\\.[^/]+)?\\.wire");

    /** True when {@code argument} looks like a path rather than an id: it has a slash or a scheme. */
    public static boolean looksLikePath(String argument) {
        return argument != null && (argument.contains("/") || argument.contains("\\"));
    }

    /**
     * Splits a savepoint directory path; a plain relative path is resolved against the working directory.
     *
     * @throws ToolUsageException when it does not have a namespace, a root, a job and a savepoint
     */
    public static SavepointPath parse(String argument) {
        return parse(argument, Path.of("").toAbsolutePath());
    }

    /**
     * Splits a savepoint directory path, resolving a plain relative path against {@code workingDirectory}.
     *
     * @throws ToolUsageException when it does not have a namespace, a root, a job and a savepoint
     */
    public static SavepointPath parse(String argument, Path workingDirectory) {
        String scheme = null;
        String authority = null;
        String path;
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
            if (path == null || !path.startsWith("/")) {
                throw new ToolUsageException("Cannot use savepoint path: a URI needs an absolute path after its scheme"
                        + " and address, " + LAYOUT + " (" + argument + ")");
            }
        } else {
            try {
                path = workingDirectory.resolve(argument).normalize().toString();
            } catch (InvalidPathException e) {
                throw new ToolUsageException("Cannot use savepoint path: " + e.getMessage() + " (" + argument + ")");
            }
        }
        String trimmed = path.replaceAll("/+", "/");
        while (trimmed.length() > 1 && trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        String[] parts = trimmed.substring(1).split("/");
        if (parts.length < 4) {
            throw new ToolUsageException("Cannot use savepoint path: it needs " + LAYOUT + " (" + argument
                    + (argument.equals(prefix + path) ? "" : ", that is " + prefix + path) + ")");
        }
        String savepointId = parts[parts.length - 1];
        String jobId = parts[parts.length - 2];
        String root = "/" + String.join("/", Arrays.copyOf(parts, parts.length - 2));
        String namespace = "/" + String.join("/", Arrays.copyOf(parts, parts.length - 3));
        return new SavepointPath(scheme == null ? null : scheme.toLowerCase(Locale.ROOT), authority,
                prefix + root, prefix + namespace, jobId, savepointId, null);
    }

    /** True for a local path: no scheme, or {@code file:}. */
    public boolean local() {
        return scheme == null || "file".equals(scheme);
    }

    /** The file system's address for a remote path, such as {@code hdfs://nn:8020}; null for a local one. */
    public String fileSystemUri() {
        return local() ? null : scheme + "://" + (authority == null ? "" : authority);
    }

    /** The savepoint folder this path names, in the syntax it was given in. */
    public String location() {
        return savepointRoot + "/" + jobId + "/" + savepointId;
    }

    /**
     * True when the last name is a file inside a savepoint folder rather than the folder:
     * {@code _metadata.ser} or a payload name Keepsake writes ({@code pipeline-<n>.wire}) on any
     * file system, and for a local path any regular file.
     */
    public boolean fileInSavepoint() {
        if (METADATA_FILE.equals(savepointId) || PAYLOAD_FILE.matcher(savepointId).matches()) {
            return true;
        }
        if (!local()) {
            return false;
        }
        String prefix = scheme == null ? "" : scheme + "://" + (authority == null ? "" : authority);
        try {
            return Files.isRegularFile(Path.of(location().substring(prefix.length())));
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /**
     * True when this path is most likely a job's folder ({@code <root>/<job>}) read one level too
     * high, so that the savepoint root's name was taken for the job: the name taken for the job is
     * {@code savepoint}, the name of Keepsake's default root ({@code /ns/savepoint/<job>}), or, for a
     * local path, the folder has no {@code _metadata.ser} while a folder in it has one.
     */
    public boolean jobFolder() {
        if (DEFAULT_ROOT_NAME.equals(jobId)) {
            return true;
        }
        if (!local()) {
            return false;
        }
        String prefix = scheme == null ? "" : scheme + "://" + (authority == null ? "" : authority);
        try {
            Path folder = Path.of(location().substring(prefix.length()));
            if (!Files.isDirectory(folder) || Files.exists(folder.resolve(METADATA_FILE))) {
                return false;
            }
            try (java.util.stream.Stream<Path> children = Files.list(folder)) {
                return children.anyMatch(c -> Files.isRegularFile(c.resolve(METADATA_FILE)));
            }
        } catch (InvalidPathException | java.io.IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }

    /**
     * The savepoint folder holding the file this path names, with {@link #givenFile} set.
     *
     * @throws ToolUsageException when the folder is not deep enough to be a savepoint ({@link #LAYOUT})
     */
    public SavepointPath folder() {
        SavepointPath folder = parse(savepointRoot + "/" + jobId);
        return new SavepointPath(folder.scheme, folder.authority, folder.savepointRoot, folder.namespace,
                folder.jobId, folder.savepointId, savepointId);
    }
}
