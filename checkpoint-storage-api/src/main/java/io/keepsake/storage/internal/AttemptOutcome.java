package io.keepsake.storage.internal;

import io.keepsake.storage.SavepointStorageException;
import io.keepsake.storage.spi.FsCapability;
import io.keepsake.storage.spi.StorageFileSystem;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.Optional;

/**
 * The decision of one attempt where publication is create-if-absent (no atomic directory rename):
 * {@code <job>/.staging/<attemptId>.outcome}, created whole and only if absent, and never
 * overwritten. The writer creates it holding the metadata it is about to publish ("publishing"); a
 * collection or a delete creates it holding {@link #COLLECTED} before it removes anything of that
 * attempt. Exactly one of them creates it, whatever the clocks and however long either side stalls:
 * <ul>
 *   <li>"publishing" is acted on by its writer alone. Nobody else removes a file of the attempt, gives
 *   the decision up or publishes it; a collection only tidies the file away once the folder holds
 *   exactly the metadata it names, and a delete of that published savepoint removes it first.</li>
 *   <li>"collected" is final for the attempt: its writer never publishes (a later decision would be
 *   followed by the check of its files, which the removed ones fail). It is tidied away once no file
 *   of the attempt is left.</li>
 * </ul>
 * The lease only says which attempts to leave alone; it decides nothing.
 *
 * <p>"Created whole": {@link StagedFiles#createWhole}, one conditional PUT on an object store
 * ({@link FsCapability#ATOMIC_FILE_CREATE}); elsewhere a private temporary file
 * ({@code <attemptId>.outcome.tmp-<16 hex>}, names made by {@link AttemptId}) renamed onto the outcome name, a rename that never
 * replaces. Stateless.
 */
final class AttemptOutcome {

    /** The content of a collector's outcome. */
    static final byte[] COLLECTED = "keepsake attempt outcome: collected\n".getBytes(StandardCharsets.US_ASCII);

    private static final int MAX_LENGTH = MetadataCodec.MAX_LENGTH;

    private AttemptOutcome() {
    }

    /** What an outcome file says. */
    enum Kind {
        /** The writer decided to publish the metadata it holds. */
        PUBLISHING,
        /** A collection or delete decided to remove the attempt. */
        COLLECTED,
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
    static String path(StorageFileSystem fs, String stagingDir, AttemptId attempt) {
        return fs.child(stagingDir, attempt.outcomeName());
    }

    /**
     * Creates the outcome with {@code content}, whole, unless it exists.
     *
     * @return true when this call created it, false when it was there
     */
    static boolean claim(StorageFileSystem fs, String path, byte[] content) throws IOException {
        return StagedFiles.createWhole(fs, path, content, path);
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
}
