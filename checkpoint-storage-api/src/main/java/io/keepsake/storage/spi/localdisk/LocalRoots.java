package io.keepsake.storage.spi.localdisk;

import io.keepsake.storage.InvalidStorageArgumentException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The configured storage roots of one file system on the local disk, each resolved once to its
 * real path (its existing part): links above a root are the operator's choice and are followed
 * there, links below it never. Paths under no root are anchored at {@code /}. Thread-safe.
 */
public final class LocalRoots {

    /** The real paths of configured roots (their existing part). */
    private final Set<Path> anchors = ConcurrentHashMap.newKeySet();

    /**
     * Resolves the existing part of an absolute, normalised root to its real path, remembers it
     * as an anchor, and returns the root below that real path.
     *
     * @param normalized the root, absolute and normalised
     * @param root       the root as configured, for messages
     * @throws InvalidStorageArgumentException when its existing part cannot be resolved
     */
    public Path resolve(Path normalized, String root) {
        Path existing = normalized;
        while (existing.getParent() != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            throw new InvalidStorageArgumentException("Cannot use storage root: cannot resolve " + existing + ": "
                    + e.getMessage() + " (" + root + ")");
        }
        anchors.add(real);
        return real.resolve(existing.relativize(normalized));
    }

    /** The resolved root that holds {@code path} (the longest one), else {@code /}. */
    public Path anchorOf(Path path) {
        Path best = null;
        for (Path anchor : anchors) {
            if (path.startsWith(anchor) && (best == null || anchor.getNameCount() > best.getNameCount())) {
                best = anchor;
            }
        }
        return best != null ? best : path.getRoot();
    }

    /** True when {@code path} is a resolved root or above one, where links are the operator's choice. */
    public boolean isTrusted(Path path) {
        return anchors.stream().anyMatch(anchor -> anchor.startsWith(path));
    }

    /** The components of {@code path} below {@code anchor}; none when they are equal. */
    public static List<Path> below(Path anchor, Path path) {
        List<Path> out = new ArrayList<>();
        if (!path.equals(anchor)) {
            anchor.relativize(path).forEach(out::add);
        }
        return out;
    }
}
