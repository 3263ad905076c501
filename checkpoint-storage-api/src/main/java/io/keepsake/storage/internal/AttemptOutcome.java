package io.keepsake.storage.internal;

import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;
import io.keepsake.storage.spi.SyncableOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.Optional;

/**
 * The decision of one attempt where publication is create-if-absent (no atomic directory rename):
 * {@code <job>/.staging/<attemptId>.outcome}, created whole and only if absent. The writer creates
 * it holding the metadata it is about to publish ("publishing"); a collection or a delete creates
 * it holding {@link #COLLECTED} before it removes anything of that attempt. Exactly one of them
 * creates it, so an attempt is either published (its files are then never removed by anyone but an
 * explicit delete of the published savepoint) or collected (its writer then fails typed), whatever
 * the clocks and however long either side stalls. The lease only says which attempts to leave
 * alone; it no longer decides.
 *
 * <p>"Created whole": on an object store ({@link FsCapability#ATOMIC_FILE_CREATE}) one conditional
 * PUT; elsewhere the bytes are written and synced under a temporary name
 * ({@code <attemptId>.outcome.tmp-<16 hex>}) and renamed onto the outcome name, which never
 * replaces and is atomic for files on those file systems. Stateless.
 */
final class AttemptOutcome {

    /** The suffix of an outcome file in the staging folder. */
    static final String SUFFIX = ".outcome";

    /** What a temporary outcome file carries after the outcome name. */
    static final String TEMP_MARK = ".tmp-";

    /** The content of a collector's outcome. */
    static final byte[] COLLECTED = "keepsake attempt outcome: collected\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * On an object store, the content a writer's decision is overwritten with when it is given up
     * (by the writer failing after it, or a collection whose writer is gone): the writer reads its
     * decision back after publishing and withdraws the metadata when it finds this.
     */
    static final byte[] WITHDRAWN = "keepsake attempt outcome: withdrawn\n".getBytes(StandardCharsets.US_ASCII);

    private static final int MAX_LENGTH = MetadataCodec.MAX_LENGTH;

    private AttemptOutcome() {
    }

    /** What an outcome file says. */
    enum Kind {
        /** The writer decided to publish the metadata it holds. */
        PUBLISHING,
        /** A collection or delete decided to remove the attempt. */
        COLLECTED,
        /** A decision to publish that was given up (object stores): the attempt is removed. */
        WITHDRAWN,
        /** Neither: not written by Keepsake, or damaged; never acted on. */
        UNKNOWN
    }

    /** A read outcome: its kind and, when publishing, the metadata bytes. */
    record Decision(Kind kind, byte[] metadata) {

        boolean publishes(byte[] expected) {
            return kind == Kind.PUBLISHING && Arrays.equals(metadata, expected);
        }
    }

    /** The outcome file of an attempt in a staging folder. */
    static String path(StorageFileSystem fs, String stagingDir, String attemptId) {
        return fs.child(stagingDir, attemptId + SUFFIX);
    }

    /**
     * Creates the outcome with {@code content}, whole, unless it exists.
     *
     * @return true when this call created it, false when it was there
     */
    static boolean claim(StorageFileSystem fs, String path, byte[] content) throws IOException {
        if (fs.capabilities().contains(FsCapability.ATOMIC_FILE_CREATE)) {
            try (SyncableOutputStream out = StagedFiles.createWithParents(fs, path)) {
                out.write(content);
                out.sync();
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            }
        }
        String temp = path + TEMP_MARK + RandomNames.hex();
        try (SyncableOutputStream out = StagedFiles.createWithParents(fs, temp)) {
            out.write(content);
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
                // a temporary outcome is collected with the staging leftovers
            }
        }
    }

    /** Replaces the outcome with {@code content} whatever is there (an unconditional PUT on an object store). */
    static void overwrite(StorageFileSystem fs, String path, byte[] content) throws IOException {
        try (SyncableOutputStream out = fs.create(path, false)) {
            out.write(content);
            out.sync();
        }
    }

    /** What the outcome file says, or empty when there is none. */
    static Optional<Decision> read(StorageFileSystem fs, String path) throws IOException {
        byte[] bytes;
        try (InputStream in = fs.open(path)) {
            bytes = in.readNBytes(MAX_LENGTH + 1);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        if (Arrays.equals(bytes, COLLECTED)) {
            return Optional.of(new Decision(Kind.COLLECTED, null));
        }
        if (Arrays.equals(bytes, WITHDRAWN)) {
            return Optional.of(new Decision(Kind.WITHDRAWN, null));
        }
        if (bytes.length >= 4 && bytes.length <= MAX_LENGTH && ByteBuffer.wrap(bytes).getInt() == MetadataCodec.MAGIC) {
            try {
                MetadataCodec.decode(bytes, path);
                return Optional.of(new Decision(Kind.PUBLISHING, bytes));
            } catch (SavepointStorageException damaged) {
                return Optional.of(new Decision(Kind.UNKNOWN, null));
            }
        }
        return Optional.of(new Decision(Kind.UNKNOWN, null));
    }

    /** Reads the outcome, treating a read that fails as unknown (never acted on). */
    static Optional<Decision> readQuietly(StorageFileSystem fs, String path) {
        try {
            return read(fs, path);
        } catch (IOException | RuntimeException e) {
            return Optional.of(new Decision(Kind.UNKNOWN, null));
        }
    }

    /** True for the name of an outcome file or a temporary one, given the attempt pattern. */
    static Optional<String> attemptOf(String name) {
        int temp = name.lastIndexOf(SUFFIX + TEMP_MARK);
        if (temp > 0 && name.length() == temp + SUFFIX.length() + TEMP_MARK.length() + 16
                && isHex(name, temp + SUFFIX.length() + TEMP_MARK.length())) {
            return Optional.of(name.substring(0, temp)).filter(a -> StorageLayout.attemptSavepointId(a).isPresent());
        }
        if (name.endsWith(SUFFIX)) {
            return Optional.of(name.substring(0, name.length() - SUFFIX.length()))
                    .filter(a -> StorageLayout.attemptSavepointId(a).isPresent());
        }
        return Optional.empty();
    }

    /** True for a temporary outcome file's name. */
    static boolean isTemporary(String name) {
        return name.contains(SUFFIX + TEMP_MARK);
    }

    private static boolean isHex(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }
}
