package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.spi.StorageFileSystem;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Where everything lives, as one value: the checkpoint root (namespace), the savepoint root, the
 * job id reserved when the savepoint root lies inside the namespace, and the names below them.
 * Every path the protocol touches is built here from validated names, so nothing outside the
 * roots can be named.
 *
 * <pre>
 * namespace/jobId/ts-rand-pipeline-checkpoint.ser        legacy checkpoints
 * savepointRoot/jobId/savepointId/_metadata.ser           a complete savepoint
 * savepointRoot/jobId/.staging/attemptId/                 an attempt in flight
 * </pre>
 *
 * Immutable and thread-safe.
 */
public final class StorageLayout {

    /** The folder under a job's savepoint folder where attempts are staged. */
    public static final String STAGING_DIR = ".staging";

    /**
     * The folder under a job's savepoint folder holding one empty marker file per savepoint whose
     * name says which pipelines and checkpoint ids it holds ({@link #indexMarker}).
     */
    public static final String INDEX_DIR = ".index";

    /** The longest marker name written, in UTF-8 bytes: what common file systems accept. */
    static final int MAX_MARKER_BYTES = 255;

    /** The suffix of an attempt's lease file in the staging folder ({@link AttemptId#leaseName}). */
    static final String LEASE_SUFFIX = AttemptId.LEASE_SUFFIX;

    /** A payload file a Keepsake attempt writes into a savepoint folder. */
    private static final Pattern STAGED_PAYLOAD = Pattern.compile("pipeline--?\\d+(\\..+\\.[0-9a-f]{16})?\\.wire");

    private final StorageFileSystem fs;
    private final String namespace;
    private final String savepointRoot;
    private final String reservedJobId;

    private StorageLayout(StorageFileSystem fs, String namespace, String savepointRoot) {
        requireBelowTop("namespace", namespace);
        requireBelowTop("savepoint root", savepointRoot);
        this.fs = fs;
        this.namespace = namespace;
        this.savepointRoot = savepointRoot;
        this.reservedJobId = reservedName(namespace, savepointRoot);
    }

    /**
     * The layout of a storage rooted at {@code namespace} with savepoints under {@code savepointRoot}.
     *
     * @param savepointRoot null for {@code <namespace>/savepoint}
     * @throws InvalidStorageArgumentException when a root is not absolute or the roots overlap badly
     */
    public static StorageLayout of(StorageFileSystem fs, String namespace, String savepointRoot) {
        String ns = fs.normalizeRoot(namespace);
        String sp = savepointRoot == null ? fs.child(ns, "savepoint") : fs.normalizeRoot(savepointRoot);
        return new StorageLayout(fs, ns, sp);
    }

    /** The same layout with another savepoint root (for one savepoint written or read elsewhere). */
    public StorageLayout withSavepointRoot(String root) {
        return new StorageLayout(fs, namespace, fs.normalizeRoot(root));
    }

    private static String reservedName(String namespace, String savepointRoot) {
        String ns = stripSlash(namespace);
        String sp = stripSlash(savepointRoot);
        if (ns.equals(sp)) {
            throw new InvalidStorageArgumentException("Cannot configure storage: savepoint.path equals the namespace,"
                    + " so checkpoint cleanup would delete savepoints (" + savepointRoot + ")");
        }
        if (ns.startsWith(sp + "/")) {
            throw new InvalidStorageArgumentException("Cannot configure storage: the namespace lies inside savepoint.path ("
                    + namespace + " inside " + savepointRoot + ")");
        }
        if (sp.startsWith(ns + "/")) {
            String rest = sp.substring(ns.length() + 1);
            int slash = rest.indexOf('/');
            return slash < 0 ? rest : rest.substring(0, slash);
        }
        return null;
    }

    /** Refuses a root that is the top of its file system: everything on it would be in reach. */
    private static void requireBelowTop(String what, String root) {
        int scheme = root.indexOf("://");
        String path = root;
        if (scheme >= 0) {
            int slash = root.indexOf('/', scheme + 3);
            path = slash < 0 ? "" : root.substring(slash);
        }
        if (path.replace("/", "").isEmpty()) {
            throw new InvalidStorageArgumentException("Cannot use " + what + ": it is the top of the file system;"
                    + " give a folder of its own (" + root + ")");
        }
    }

    private static String stripSlash(String p) {
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /** The file system the paths belong to. */
    public StorageFileSystem fileSystem() {
        return fs;
    }

    /** The checkpoint root. */
    public String namespace() {
        return namespace;
    }

    /** The savepoint root. */
    public String savepointRoot() {
        return savepointRoot;
    }

    /**
     * A job's checkpoint folder.
     *
     * @throws InvalidStorageArgumentException when the id is not a safe name or names the savepoint folder
     */
    public String checkpointJobDir(String jobId) {
        Names.requireSafeName("job id", jobId);
        if (jobId.equals(reservedJobId)) {
            throw new InvalidStorageArgumentException("Cannot use job id: it names the savepoint folder inside the namespace ("
                    + jobId + ")");
        }
        return fs.child(namespace, jobId);
    }

    /** A job's savepoint folder. */
    public String savepointJobDir(String jobId) {
        return fs.child(savepointRoot, Names.requireSafeName("job id", jobId));
    }

    /** One savepoint's folder. */
    public String savepointDir(String jobId, String savepointId) {
        return fs.child(savepointJobDir(jobId), Names.requireSafeName("savepoint id", savepointId));
    }

    /** The folder of a job's attempts in flight. */
    public String stagingDir(String jobId) {
        return fs.child(savepointJobDir(jobId), STAGING_DIR);
    }

    /** The folder of a job's index markers. */
    public String indexDir(String jobId) {
        return fs.child(savepointJobDir(jobId), INDEX_DIR);
    }

    /**
     * The marker name of a savepoint: the checkpoint id of each pipeline, its completion time and
     * its id ({@code <pipeline>_<checkpoint>[,...]~<completedTimestamp>@<savepointId>}), so that a
     * lookup orders savepoints tying on a checkpoint id without reading their metadata; without the
     * completion time ({@code <pipeline>_<checkpoint>[,...]@<savepointId>}, as markers were written
     * before they carried it) when only that is at most {@value #MAX_MARKER_BYTES} bytes; empty when
     * neither is (such a savepoint has no marker; its metadata tells).
     */
    static Optional<String> indexMarker(SavepointMeta meta) {
        return markerClaims(meta).map(claims -> claims + "@" + meta.savepointId());
    }

    /**
     * What the index marker of a savepoint says before its {@code @<savepointId>}: the claims with
     * the completion time, or without it when only that fits ({@link #indexMarker}); empty when the
     * savepoint has no index marker.
     */
    static Optional<String> markerClaims(SavepointMeta meta) {
        List<ManifestEntry> manifest = meta.manifest();
        if (manifest.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder claims = new StringBuilder();
        manifest.stream().sorted(Comparator.comparingInt(ManifestEntry::pipelineId))
                .forEach(e -> claims.append(claims.length() == 0 ? "" : ",").append(e.pipelineId()).append('_')
                        .append(e.checkpointId()));
        String id = "@" + meta.savepointId();
        for (String prefix : new String[] {claims + "~" + meta.completedTimestamp(), claims.toString()}) {
            if (fitsMarker(prefix + id)) {
                return Optional.of(prefix);
            }
        }
        return Optional.empty();
    }

    /** True when {@code name} is at most {@value #MAX_MARKER_BYTES} UTF-8 bytes long. */
    static boolean fitsMarker(String name) {
        return name.getBytes(StandardCharsets.UTF_8).length <= MAX_MARKER_BYTES;
    }

    /**
     * A parsed marker: the savepoint it names, the checkpoint id it claims per pipeline and the
     * completion time it claims (empty for a marker written without it).
     */
    record Marker(String savepointId, Map<Integer, Long> claims, OptionalLong completed) {
    }

    /**
     * Parses a marker name ({@code <pipeline>_<checkpoint>[,...][~<completed>]@<savepointId>}, each
     * number an optional minus and ASCII digits, the id up to the end and without a line
     * terminator); empty for any other name, a malformed one, a number out of range or a pipeline
     * named twice. A lookup parses every marker of a job, so this is done by hand, without a
     * regular expression.
     */
    static Optional<Marker> parseMarker(String name) {
        int at = name.indexOf('@');
        if (at <= 0 || at == name.length() - 1) {
            return Optional.empty();
        }
        for (int i = at + 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                return Optional.empty();
            }
        }
        int tilde = name.lastIndexOf('~', at);
        int claimsEnd = tilde < 0 ? at : tilde;
        OptionalLong completed = OptionalLong.empty();
        try {
            if (tilde >= 0) {
                if (numberEnd(name, tilde + 1, at) != at) {
                    return Optional.empty();
                }
                completed = OptionalLong.of(Long.parseLong(name, tilde + 1, at, 10));
            }
            Map<Integer, Long> claims = new TreeMap<>();
            int pos = 0;
            while (true) {
                int underscore = numberEnd(name, pos, claimsEnd);
                if (underscore < 0 || underscore == claimsEnd || name.charAt(underscore) != '_') {
                    return Optional.empty();
                }
                int end = numberEnd(name, underscore + 1, claimsEnd);
                if (end < 0 || (end != claimsEnd && name.charAt(end) != ',')) {
                    return Optional.empty();
                }
                if (claims.put(Integer.parseInt(name, pos, underscore, 10),
                        Long.parseLong(name, underscore + 1, end, 10)) != null) {
                    return Optional.empty();
                }
                if (end == claimsEnd) {
                    return Optional.of(new Marker(name.substring(at + 1), claims, completed));
                }
                pos = end + 1;
            }
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The end of an optional minus and at least one ASCII digit starting at {@code from}, before
     * {@code limit}; -1 when there is no digit there.
     */
    private static int numberEnd(String s, int from, int limit) {
        int i = from < limit && s.charAt(from) == '-' ? from + 1 : from;
        int digits = i;
        while (i < limit && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i == digits ? -1 : i;
    }

    /** The job id of a savepoint folder this layout produced ({@code <root>/<job>/<savepoint>}). */
    String jobIdOf(String savepointDir) {
        String p = savepointDir.endsWith("/") ? savepointDir.substring(0, savepointDir.length() - 1) : savepointDir;
        String jobDir = p.substring(0, p.lastIndexOf('/'));
        return jobDir.substring(jobDir.lastIndexOf('/') + 1);
    }

    /** The lease file of an attempt in flight. */
    String leasePath(String jobId, AttemptId attempt) {
        return fs.child(stagingDir(jobId), attempt.leaseName());
    }

    /** The work folder of an attempt publishing by directory rename. */
    String workDir(String jobId, AttemptId attempt) {
        return fs.child(stagingDir(jobId), attempt.toString());
    }

    /**
     * True for the names a Keepsake attempt writes into the savepoint folder {@code folder}:
     * {@code _metadata.ser} and {@code pipeline-<pid>.<folder>.<16 hex>.wire} (an attempt at this
     * very savepoint id). A name that says no attempt ({@code pipeline-7.wire}) is not taken as
     * Keepsake's in a folder whose metadata does not name it.
     */
    static boolean isKeepsakeFile(String folder, String name) {
        return name.equals(MetadataCodec.FILE_NAME) || AttemptId.ofPayloadName(folder, name).isPresent();
    }

    /**
     * True for the names an attempt stages in its own staging directory (whose name, an attempt id,
     * says it is Keepsake's) for publication by directory rename: its metadata and its payloads.
     */
    static boolean isStagedFile(String name) {
        return name.equals(MetadataCodec.FILE_NAME) || STAGED_PAYLOAD.matcher(name).matches();
    }
}
