package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.spi.FileStatus;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.io.InputStream;
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
            } catch (java.nio.file.FileAlreadyExistsException exists) {
                throw exists;
            } catch (IOException e) {
                // Hadoop's local file system creates the file and then changes its mode: a folder
                // removed in between fails the second step with a plain IOException
                if (attempt == 5 || !(e instanceof java.nio.file.NoSuchFileException || parentMissing(fs, path))) {
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

    /** True when {@code directory}'s {@code _metadata.ser} holds exactly {@code expected}. */
    static boolean hasMetadata(StorageFileSystem fs, String directory, byte[] expected) {
        try (InputStream in = fs.open(fs.child(directory, MetadataCodec.FILE_NAME))) {
            return Arrays.equals(in.readNBytes(expected.length + 1), expected);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
