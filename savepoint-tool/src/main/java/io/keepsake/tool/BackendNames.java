package io.keepsake.tool;

import io.keepsake.storage.CheckpointStorageFactories;
import io.keepsake.storage.CheckpointStorageFactory;
import io.keepsake.storage.InvalidStorageArgumentException;

import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The {@code --backend} values the running jar has: the ids of the storage factories its class
 * path provides ({@code localfile} in {@code keepsake-local.jar}; {@code localfile}, {@code hdfs},
 * {@code s3} and {@code azure} in {@code keepsake.jar}). picocli asks for them only to write the completion
 * script, so the factories are looked up then, not on every run. Also says what to do when a
 * backend the full jar has is missing from the running one ({@link #notFound}).
 */
public final class BackendNames implements Iterable<String> {

    /** The backends {@code keepsake.jar} adds to the local-file one of {@code keepsake-local.jar}. */
    static final Set<String> FULL_JAR_ONLY = Set.of("hdfs", "s3", "azure");

    /** The {@code Implementation-Title} of the small jar's manifest. */
    static final String SMALL_JAR_TITLE = "keepsake-local";

    /** Looks the factories up when iterated. */
    @Override
    public Iterator<String> iterator() {
        return ids().iterator();
    }

    /** The factory ids on the tool's class path, sorted. */
    static List<String> ids() {
        ClassLoader loader = BackendNames.class.getClassLoader();
        return List.copyOf(CheckpointStorageFactories.discover(
                ServiceLoader.load(CheckpointStorageFactory.class, loader).iterator()).keySet());
    }

    /**
     * The error for a backend id no factory on the class path has: for {@code hdfs}, {@code s3} and
     * {@code azure} run from {@code keepsake-local.jar}, "use keepsake.jar"; otherwise the factory lookup's own error.
     *
     * @param id       the backend asked for
     * @param found    the backend ids the class path has
     * @param jarTitle the running jar's {@code Implementation-Title}, or null when not run from a jar
     * @param lookup   the factory lookup's error
     */
    static InvalidStorageArgumentException notFound(String id, Collection<String> found, String jarTitle,
                                                    InvalidStorageArgumentException lookup) {
        if (!FULL_JAR_ONLY.contains(id)) {
            return lookup;
        }
        String where = SMALL_JAR_TITLE.equals(jarTitle)
                ? "keepsake-local.jar has only the local-file backend " + found + "; run keepsake.jar instead"
                + " (java -jar keepsake.jar with the same arguments), which adds hdfs, s3 and azure"
                : "this class path has only " + found + "; keepsake.jar has it, or put the checkpoint-storage-" + id
                + " module and its dependencies on the class path";
        InvalidStorageArgumentException e = new InvalidStorageArgumentException("Cannot open " + id + " storage: "
                + where);
        e.initCause(lookup);
        return e;
    }

    /** The running jar's {@code Implementation-Title}, or null when the tool does not run from a jar. */
    static String runningJarTitle() {
        Package p = BackendNames.class.getPackage();
        return p == null ? null : p.getImplementationTitle();
    }
}
