package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The chunk digests of a payload (format version 2), computed as its bytes stream past: each
 * chunk of {@code chunkSize} bytes gets its own SHA-256, and the manifest's digest is derived from
 * them ({@link ChunkDigests#fileDigestHex}). Since chunks are hashed independently, one update
 * spanning several whole chunks (the encoder hands state arrays over whole) is hashed on up to one
 * thread per core, the calling thread taking a share; the update returns when every share is done,
 * so the caller may reuse its array. Smaller updates are hashed on the calling thread. Not
 * thread-safe: one payload's bytes arrive in order.
 */
final class ChunkedDigest implements PayloadDigest {

    /** An update spanning at least this many whole chunks is shared among threads. */
    static final int PARALLEL_MIN_CHUNKS = 2;

    private static final int PARALLELISM = Runtime.getRuntime().availableProcessors();

    private final int chunkSize;
    private final MessageDigest current = HashingOutputStream.sha256();
    private int inChunk;
    private byte[] digests = new byte[8 * ChunkDigests.DIGEST_LENGTH];
    private int count;
    private ChunkDigests finished;

    ChunkedDigest(int chunkSize) {
        if (chunkSize < 1 || chunkSize > ChunkDigests.MAX_CHUNK_SIZE) {
            throw new IllegalArgumentException("Cannot hash in chunks of " + chunkSize + " bytes");
        }
        this.chunkSize = chunkSize;
    }

    @Override
    public void update(byte b) {
        current.update(b);
        if (++inChunk == chunkSize) {
            endChunk();
        }
    }

    @Override
    public void update(byte[] b, int off, int len) {
        int head = inChunk == 0 ? 0 : Math.min(len, chunkSize - inChunk);
        int whole = (len - head) / chunkSize;
        if (PARALLELISM > 1 && whole >= PARALLEL_MIN_CHUNKS) {
            if (head > 0) {
                hashInline(b, off, head);
            }
            hashWholeChunks(b, off + head, whole);
            int tail = off + head + whole * chunkSize;
            hashInline(b, tail, off + len - tail);
        } else {
            hashInline(b, off, len);
        }
    }

    /** Hashes bytes on this thread into the current chunk, ending chunks as they fill. */
    private void hashInline(byte[] b, int off, int len) {
        while (len > 0) {
            int n = Math.min(len, chunkSize - inChunk);
            current.update(b, off, n);
            inChunk += n;
            off += n;
            len -= n;
            if (inChunk == chunkSize) {
                endChunk();
            }
        }
    }

    /** Hashes {@code chunks} whole chunks starting at {@code off} on up to one thread per core; this thread takes the first share. */
    private void hashWholeChunks(byte[] b, int off, int chunks) {
        byte[][] results = new byte[chunks][];
        int shares = Math.min(PARALLELISM, chunks);
        List<Runnable> work = new ArrayList<>(shares);
        for (int s = 0; s < shares; s++) {
            int first = (int) ((long) chunks * s / shares);
            int end = (int) ((long) chunks * (s + 1) / shares);
            work.add(() -> {
                MessageDigest sha = HashingOutputStream.sha256();
                for (int c = first; c < end; c++) {
                    sha.update(b, off + c * chunkSize, chunkSize);
                    results[c] = sha.digest();
                }
            });
        }
        HashingOutputStream.runAll(work);
        for (byte[] digest : results) {
            append(digest);
        }
    }

    private void endChunk() {
        append(current.digest());
        inChunk = 0;
    }

    private void append(byte[] digest) {
        if ((count + 1) * ChunkDigests.DIGEST_LENGTH > digests.length) {
            digests = Arrays.copyOf(digests, digests.length * 2);
        }
        System.arraycopy(digest, 0, digests, count * ChunkDigests.DIGEST_LENGTH, ChunkDigests.DIGEST_LENGTH);
        count++;
    }

    @Override
    public String finishHex(long length) {
        if (inChunk > 0) {
            endChunk();
        }
        finished = ChunkDigests.of(chunkSize, Arrays.copyOf(digests, count * ChunkDigests.DIGEST_LENGTH));
        return finished.fileDigestHex(length);
    }

    @Override
    public ChunkDigests chunks() {
        return finished;
    }
}
