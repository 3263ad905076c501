package io.keepsake.storage.hdfs;

import io.keepsake.storage.InvalidStorageArgumentException;

import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The path of a configured root on one Hadoop file system, checked and normalised. Stateless. */
final class QualifiedRoot {

    private static final Pattern SCHEME = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*):(.*)", Pattern.DOTALL);

    private QualifiedRoot() {
    }

    /**
     * The absolute path of {@code root} without empty segments ({@code /} for the top), after
     * checking that any scheme and authority it names are those of the file system.
     *
     * @throws InvalidStorageArgumentException when it is relative, has a {@code .} or {@code ..}
     *                                         segment or a control character, or names another file system
     */
    static String normalizedPath(String root, String scheme, String authority, URI fileSystem) {
        String rootScheme = null;
        String rootAuthority = null;
        String rest = root;
        Matcher m = SCHEME.matcher(root);
        if (m.matches()) {
            rootScheme = m.group(1);
            rest = m.group(2);
            if (rest.startsWith("//")) {
                int slash = rest.indexOf('/', 2);
                rootAuthority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
                rest = slash < 0 ? "/" : rest.substring(slash);
            }
        }
        if (!rest.startsWith("/")) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is not absolute (" + root + ")");
        }
        if ((rootScheme != null && !rootScheme.equalsIgnoreCase(scheme))
                || (rootAuthority != null && !rootAuthority.isEmpty() && !rootAuthority.equalsIgnoreCase(authority))) {
            throw new InvalidStorageArgumentException("Cannot use storage root: it is on another file system than "
                    + fileSystem + " (" + root + ")");
        }
        StringBuilder normalized = new StringBuilder();
        for (String segment : rest.split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new InvalidStorageArgumentException("Cannot use storage root: it has a '" + segment + "' segment ("
                        + root + ")");
            }
            if (segment.chars().anyMatch(Character::isISOControl)) {
                throw new InvalidStorageArgumentException("Cannot use storage root: it contains a control character ("
                        + root + ")");
            }
            if (!segment.isEmpty()) {
                normalized.append('/').append(segment);
            }
        }
        return normalized.length() == 0 ? "/" : normalized.toString();
    }
}
