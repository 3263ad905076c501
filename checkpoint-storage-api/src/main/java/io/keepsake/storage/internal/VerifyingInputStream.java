package io.keepsake.storage.internal;

import io.keepsake.storage.KeptArrayInput;
import io.keepsake.storage.SavepointCorruptedException;
import org.apache.commons.codec.binary.Hex;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.security.MessageDigest;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hashes bytes as they are read and checks length and SHA-256 against what the manifest promised
 * before the last promised byte is handed out: the read that reaches the promised length first
 * makes sure the file ends there and the digest matches, so a caller that reads exactly
 * {@code length} bytes and closes never holds unverified bytes. A mismatch throws
 * {@link SavepointCorruptedException} naming the file. Never delivers more bytes than promised.
 *
 * <p>A payload of {@link #PARALLEL_MIN_BYTES} or more is hashed on another thread while the caller
 * reads on: bytes read with {@link #readKept} are hashed where they landed (the caller keeps them
 * unchanged), bytes read with {@link #read} are copied into one of {@link #CHUNKS} chunks of
 * {@link #CHUNK_BYTES} first, and {@link #discard} reads straight into those chunks. So reading and
 * hashing overlap on two cores, and the extra memory per stream is bounded by the chunks. The
 * read that reaches the end waits for the hash of everything before it. Smaller payloads are
 * hashed inline. Not thread-safe: one reader at a time.
 */
public class VerifyingInputStream extends FilterInputStream implements KeptArrayInput {

    /** Payloads from this size on are hashed on another thread: 1 MiB. */
    public static final long PARALLEL_MIN_BYTES = 1 << 20;

    /** The size of a chunk that carries copied or discarded bytes to the hashing thread: 1 MiB. */
    public static final int CHUNK_BYTES = 1 << 20;

    /** How many chunks one stream may fill ahead of the hashing thread. */
    public static final int CHUNKS = 4;

    private static final ExecutorService HASHERS = hashers();

    private final String file;
    private final long expectedLength;
    private final String expectedSha256;
    private final MessageDigest digest = HashingOutputStream.sha256();
    private final Hasher hasher;
    private final byte[] one = new byte[1];
    private long read;
    private boolean verified;

    public VerifyingInputStream(InputStream in, String file, long expectedLength, String expectedSha256) {
        super(in);
        this.file = file;
        this.expectedLength = expectedLength;
        this.expectedSha256 = expectedSha256;
        this.hasher = expectedLength >= PARALLEL_MIN_BYTES
                ? new Hasher(digest, (int) Math.min(CHUNK_BYTES, expectedLength)) : null;
    }

    @Override
    public int read() throws IOException {
        int n = read(one, 0, 1);
        return n <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = readUnderlying(b, off, len);
        if (n > 0) {
            if (hasher == null) {
                digest.update(b, off, n);
            } else {
                hasher.copy(b, off, n);
            }
            endIfComplete();
        }
        return n;
    }

    @Override
    public int readKept(byte[] b, int off, int len) throws IOException {
        if (hasher == null) {
            return read(b, off, len);
        }
        int n = readUnderlying(b, off, len);
        if (n > 0) {
            hasher.kept(b, off, n);
            endIfComplete();
        }
        return n;
    }

    @Override
    public long discard(long n) throws IOException {
        long discarded = 0;
        byte[] scratch = hasher == null ? new byte[(int) Math.min(n, 64 * 1024)] : null;
        while (discarded < n) {
            int r;
            if (hasher == null) {
                r = read(scratch, 0, (int) Math.min(scratch.length, n - discarded));
            } else {
                byte[] chunk = hasher.chunkFor((int) Math.min(CHUNK_BYTES, n - discarded));
                r = readUnderlying(chunk, hasher.pendingLength(), (int) Math.min(chunk.length - hasher.pendingLength(),
                        n - discarded));
                if (r > 0) {
                    hasher.filled(r);
                    endIfComplete();
                }
            }
            if (r < 0) {
                break;
            }
            discarded += r;
        }
        return discarded;
    }

    @Override
    public long skip(long n) throws IOException {
        return n <= 0 ? 0 : discard(n);
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    /** Reads from the file without hashing; counts, refuses bytes past the promised length, and checks the end. */
    private int readUnderlying(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (verified) {
            return -1;
        }
        long remaining = expectedLength - read;
        int n = in.read(b, off, (int) Math.min(len, Math.max(remaining, 1)));
        if (n < 0) {
            verify();
            return -1;
        }
        read += n;
        if (read > expectedLength) {
            throw new SavepointCorruptedException(file, "Payload is longer than the manifest says",
                    expectedLength + " bytes", "at least " + read + " bytes");
        }
        return n;
    }

    /** After the bytes of a read are hashed or queued: at the promised length, checks the end and the digest. */
    private void endIfComplete() throws IOException {
        if (read == expectedLength && !verified) {
            if (in.read() != -1) {
                throw new SavepointCorruptedException(file, "Payload is longer than the manifest says",
                        expectedLength + " bytes", "at least " + (read + 1) + " bytes");
            }
            verify();
        }
    }

    private void verify() throws IOException {
        if (verified) {
            return;
        }
        if (read != expectedLength) {
            throw new SavepointCorruptedException(file, "Payload length does not match the manifest",
                    expectedLength + " bytes", read + " bytes");
        }
        byte[] sha = hasher == null ? digest.digest() : hasher.finish();
        String actual = Hex.encodeHexString(sha);
        if (!actual.equals(expectedSha256)) {
            throw new SavepointCorruptedException(file, "Payload SHA-256 does not match the manifest",
                    expectedSha256, actual);
        }
        verified = true;
    }

    private static ExecutorService hashers() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "keepsake-payload-hash-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        return pool;
    }

    /**
     * The hashing side of one stream: segments are queued in read order and hashed by one task at a
     * time on the shared pool (a task runs while the queue has work, so an abandoned stream holds no
     * thread). Chunks go back to the free queue once hashed.
     */
    private static final class Hasher {
        private final MessageDigest digest;
        private final int chunkSize;
        private final ConcurrentLinkedQueue<Segment> queue = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean scheduled = new AtomicBoolean();
        private final ArrayBlockingQueue<byte[]> free = new ArrayBlockingQueue<>(CHUNKS);
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private int allocated;
        private byte[] pending;
        private int pendingLength;

        Hasher(MessageDigest digest, int chunkSize) {
            this.digest = digest;
            this.chunkSize = chunkSize;
        }

        /** Queues bytes the caller keeps unchanged, after whatever copied bytes are pending. */
        void kept(byte[] b, int off, int n) throws IOException {
            flushPending();
            submit(new Segment(b, off, n, false, false));
        }

        /** Copies bytes the caller may change into chunks, queuing each chunk once full. */
        void copy(byte[] b, int off, int n) throws IOException {
            while (n > 0) {
                byte[] chunk = chunkFor(n);
                int c = Math.min(n, chunk.length - pendingLength);
                System.arraycopy(b, off, chunk, pendingLength, c);
                filled(c);
                off += c;
                n -= c;
            }
        }

        /** The chunk being filled, taking a free one (waiting for the hasher if none is) when there is none. */
        byte[] chunkFor(int wanted) throws IOException {
            if (pending == null) {
                if (allocated < CHUNKS) {
                    allocated++;
                    pending = new byte[chunkSize];
                } else {
                    try {
                        pending = free.take();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("Interrupted while waiting to hash a payload");
                    }
                }
                pendingLength = 0;
            }
            return pending;
        }

        int pendingLength() {
            return pendingLength;
        }

        /** Records {@code n} more bytes in the pending chunk; queues it when full. */
        void filled(int n) {
            pendingLength += n;
            if (pendingLength == pending.length) {
                flushPending();
            }
        }

        private void flushPending() {
            if (pending != null && pendingLength > 0) {
                submit(new Segment(pending, 0, pendingLength, true, false));
                pending = null;
                pendingLength = 0;
            }
        }

        /** Queues the end and waits for the digest of everything queued before it. */
        byte[] finish() throws IOException {
            flushPending();
            submit(new Segment(null, 0, 0, false, true));
            try {
                return result.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while waiting for a payload's SHA-256");
            } catch (ExecutionException e) {
                throw new IOException("Hashing the payload failed: " + e.getCause(), e.getCause());
            }
        }

        private void submit(Segment segment) {
            queue.add(segment);
            if (scheduled.compareAndSet(false, true)) {
                HASHERS.execute(this::drain);
            }
        }

        private void drain() {
            try {
                do {
                    Segment s;
                    while ((s = queue.poll()) != null) {
                        if (s.end) {
                            result.complete(digest.digest());
                        } else {
                            digest.update(s.array, s.offset, s.length);
                            if (s.pooled) {
                                free.offer(s.array);
                            }
                        }
                    }
                    scheduled.set(false);
                } while (!queue.isEmpty() && scheduled.compareAndSet(false, true));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
                throw e;
            }
        }
    }

    private record Segment(byte[] array, int offset, int length, boolean pooled, boolean end) {
    }
}
