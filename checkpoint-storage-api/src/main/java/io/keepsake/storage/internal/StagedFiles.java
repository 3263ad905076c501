package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The file-level checks and writes of the commit protocol: whether a work directory still holds
 * every manifest file with its length, whether a directory holds exactly our metadata, and a
 * synced must-create write that never recreates a missing directory. Stateless.
 */
final class StagedFiles {

    private StagedFiles() {
    }

    /** What is wrong with the manifest's files in {@code directory} (missing, not a file, other length), or empty. */
    static Optional<String> missingOrChanged(StorageFileSystem fs, String directory, List<ManifestEntry> manifest)
            throws IOException {
        Map<String, FileStatus> present = new HashMap<>();
        for (FileStatus s : fs.list(directory)) {
            present.put(s.name(), s);
        }
        for (ManifestEntry e : manifest) {
            FileStatus s = present.get(e.file());
            if (s == null || !s.regularFile() || s.length() != e.length()) {
                // A listing is one request over many entries; some stores (S3-compatible servers
                // listing while a sibling is deleted) can leave an entry out. Ask for the file itself
                // before calling it missing.
                s = fs.stat(fs.child(directory, e.file())).orElse(null);
            }
            if (s == null || !s.regularFile()) {
                return Optional.of("is missing (" + fs.child(directory, e.file()) + ")");
            }
            if (s.length() != e.length()) {
                return Optional.of("has " + s.length() + " bytes instead of " + e.length() + " ("
                        + fs.child(directory, e.file()) + ")");
            }
        }
        return Optional.empty();
    }

    /**
     * Ends the writing of a file that a crash may lose without harm (a lease: its writer is gone
     * too; an index marker: readers fall back to the metadata): synced only on file systems where
     * {@code sync()} is what makes the file appear ({@link FsCapability#ATOMIC_FILE_CREATE}), so
     * the local disk and HDFS spend no fsync on it.
     */
    static void endVolatileFile(StorageFileSystem fs, SyncableOutputStream out) throws IOException {
        if (fs.capabilities().contains(FsCapability.ATOMIC_FILE_CREATE)) {
            out.sync();
        }
    }

    /**
     * Creates a new file and its missing parents, must-create. A collection in another process
     * removes a staging folder it emptied, possibly between the creation of the parents and of the
     * file: the parents are created again, a few times, before the missing parent is reported.
     */
    static SyncableOutputStream createWithParents(StorageFileSystem fs, String path) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return fs.create(path, true);
            } catch (FileAlreadyExistsException exists) {
                throw exists;
            } catch (IOException e) {
                // Hadoop's local file system creates the file and then changes its mode: a folder
                // removed in between fails the second step with a plain IOException
                if (attempt == 5 || !(e instanceof NoSuchFileException || parentMissing(fs, path))) {
                    throw e;
                }
            }
        }
    }

    private static boolean parentMissing(StorageFileSystem fs, String path) {
        int slash = path.lastIndexOf('/');
        try {
            return slash > 0 && fs.stat(path.substring(0, slash)).isEmpty();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Creates {@code path} (its directory must exist), writes {@code bytes} and syncs them. */
    static void writeSynced(StorageFileSystem fs, String path, byte[] bytes) throws IOException {
        try (SyncableOutputStream out = fs.createInExistingDirectory(path, true)) {
            out.write(bytes);
            out.sync();
        }
    }

    /** What a read of a file that may hold our bytes found: ours, absent, another's, or nothing can be told. */
    enum Answer {
        /** The file holds exactly the expected bytes. */
        OURS,
        /** Nothing is there. */
        ABSENT,
        /** Something else is there. */
        OTHER,
        /** The read failed: nothing may be removed or given up on this answer. */
        UNKNOWN
    }

    /** Whether {@code directory}'s {@code _metadata.ser} holds exactly {@code expected}, as a three-way answer. */
    static Answer metadata(StorageFileSystem fs, String directory, byte[] expected) {
        return holds(fs, fs.child(directory, MetadataCodec.FILE_NAME), expected);
    }

    /** Whether {@code path} holds exactly {@code expected}: ours, absent, another's, or unknown when the read failed. */
    static Answer holds(StorageFileSystem fs, String path, byte[] expected) {
        try (InputStream in = fs.open(path)) {
            return Arrays.equals(in.readNBytes(expected.length + 1), expected) ? Answer.OURS : Answer.OTHER;
        } catch (NoSuchFileException e) {
            return Answer.ABSENT;
        } catch (IOException | RuntimeException e) {
            return Answer.UNKNOWN;
        }
    }

    /**
     * Creates {@code path} with {@code bytes}, whole (no reader ever sees part of it) and only if
     * absent: on a file system whose created files appear whole, one must-create write; elsewhere
     * the bytes are written and synced under the private name {@code <tempBase>.tmp-<16 hex>} and
     * renamed onto {@code path}, a rename that never replaces. Only the claim of the target is the
     * atomic step: where a file rename is a link followed by an unlink, the link claims it, and the
     * private temporary name is nobody else's to act on. The temporary file is removed either way.
     *
     * @return true when this call created it, false when something was there
     */
    static boolean createWhole(StorageFileSystem fs, String path, byte[] bytes, String tempBase) throws IOException {
        if (fs.capabilities().contains(FsCapability.ATOMIC_FILE_CREATE)) {
            try (SyncableOutputStream out = createWithParents(fs, path)) {
                out.write(bytes);
                out.sync();
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            }
        }
        String temp = tempBase + TEMP_MARK + RandomNames.hex();
        try (SyncableOutputStream out = createWithParents(fs, temp)) {
            out.write(bytes);
            out.sync();
        }
        try {
            fs.rename(temp, path);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } finally {
            try {
                fs.delete(temp, false);
            } catch (IOException | RuntimeException e) {
                // a temporary file is collected with the staging leftovers
            }
        }
    }

    /** What a temporary file written by {@link #createWhole} carries after its base name. */
    static final String TEMP_MARK = ".tmp-";
}
