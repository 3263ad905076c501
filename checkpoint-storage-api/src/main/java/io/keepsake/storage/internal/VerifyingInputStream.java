package io.keepsake.storage.internal;

import io.keepsake.storage.KeptArrayInput;
import io.keepsake.storage.SavepointCorruptedException;
import org.apache.commons.codec.binary.Hex;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.security.MessageDigest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hashes bytes as they are read and checks length and SHA-256 against what the manifest promised
 * before the last promised byte is handed out: the read that reaches the promised length first
 * makes sure the file ends there and the digest matches, so a caller that reads exactly
 * {@code length} bytes and closes never holds unverified bytes. A mismatch throws
 * {@link SavepointCorruptedException} naming the file. Never delivers more bytes than promised.
 *
 * <p>A payload of {@link #PARALLEL_MIN_BYTES} or more is hashed on another thread while the caller
 * reads on: bytes read with {@link #readKept} are hashed where they landed (the caller keeps them
 * unchanged), bytes read with {@link #read} are copied first into one ring of {@link #RING_BYTES}
 * per stream, and {@link #discard} reads straight into that ring. The hashing thread takes the
 * segments in read order and frees ring space as it goes; the reader waits only when the ring is
 * full. So reading and hashing overlap on two cores, and the extra memory per stream is the ring.
 * The read that reaches the end waits for the hash of everything before it. Smaller payloads are
 * hashed inline: below a few MiB, handing bytes to another thread costs more than it saves.
 * Not thread-safe: one reader at a time.
 */
public class VerifyingInputStream extends FilterInputStream implements KeptArrayInput {

    /** Payloads from this size on are hashed on another thread: 8 MiB. */
    public static final long PARALLEL_MIN_BYTES = 8L << 20;

    /** The ring that carries copied or discarded bytes to the hashing thread: 256 KiB per stream. */
    public static final int RING_BYTES = 256 * 1024;

    /** Copied bytes are handed to the hashing thread at least every this many bytes: 64 KiB. */
    static final int SEGMENT_BYTES = 64 * 1024;

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
        this.hasher = expectedLength >= PARALLEL_MIN_BYTES ? new Hasher(digest) : null;
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
                int room = hasher.reserve();
                r = readUnderlying(hasher.ring(), hasher.position(), (int) Math.min(room, n - discarded));
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
            throw new SavepointCorruptedException(file, "Payload whole-file SHA-256 does not match the manifest's"
                    + " sha256 (format version 1 records the plain SHA-256 of the file, as sha256sum prints it)",
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
     * thread). Copied bytes live in the ring from when the reader writes them until the hashing
     * thread has hashed them; {@code produced} and {@code consumed} count ring bytes ever written
     * and ever hashed, so the free space is the ring's length minus their difference.
     */
    private static final class Hasher {
        private final MessageDigest digest;
        private final ConcurrentLinkedQueue<Segment> queue = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean scheduled = new AtomicBoolean();
        private final AtomicLong consumed = new AtomicLong();
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private byte[] ring;
        private long produced;
        private int pendingStart;
        private int pendingLength;

        Hasher(MessageDigest digest) {
            this.digest = digest;
        }

        /** Queues bytes the caller keeps unchanged, after whatever copied bytes are pending. */
        void kept(byte[] b, int off, int n) {
            flushPending();
            submit(new Segment(b, off, n, false, false));
        }

        /** Copies bytes the caller may change into the ring, waiting for ring space when it is full. */
        void copy(byte[] b, int off, int n) throws IOException {
            while (n > 0) {
                int c = Math.min(n, reserve());
                System.arraycopy(b, off, ring, position(), c);
                filled(c);
                off += c;
                n -= c;
            }
        }

        byte[] ring() {
            return ring;
        }

        /** Where the next copied byte goes in the ring. */
        int position() {
            return (int) (produced % ring.length);
        }

        /**
         * How many bytes may be written at {@link #position} without wrapping or overwriting bytes
         * not hashed yet (at least one); waits for the hashing thread while the ring is full.
         */
        int reserve() throws IOException {
            if (ring == null) {
                ring = new byte[RING_BYTES];
            }
            long free = ring.length - (produced - consumed.get());
            if (free == 0) {
                flushPending();
                free = awaitSpace();
            }
            return (int) Math.min(free, ring.length - position());
        }

        private long awaitSpace() throws IOException {
            synchronized (this) {
                long free;
                while ((free = ring.length - (produced - consumed.get())) == 0) {
                    if (result.isDone()) {
                        awaitResult();
                        throw new IOException("Hashing the payload ended before it was read to the end");
                    }
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("Interrupted while waiting to hash a payload");
                    }
                }
                return free;
            }
        }

        /** Records {@code n} more bytes written at {@link #position}; hands them over in segments. */
        void filled(int n) {
            int at = position();
            if (pendingLength == 0) {
                pendingStart = at;
            }
            pendingLength += n;
            produced += n;
            if (at + n == ring.length || pendingLength >= SEGMENT_BYTES) {
                flushPending();
            }
        }

        private void flushPending() {
            if (pendingLength > 0) {
                submit(new Segment(ring, pendingStart, pendingLength, true, false));
                pendingLength = 0;
            }
        }

        /** Queues the end and waits for the digest of everything queued before it. */
        byte[] finish() throws IOException {
            flushPending();
            submit(new Segment(null, 0, 0, false, true));
            return awaitResult();
        }

        private byte[] awaitResult() throws IOException {
            try {
                return result.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while waiting for a payload's SHA-256");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
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
                            if (s.ring) {
                                consumed.addAndGet(s.length);
                                synchronized (this) {
                                    notifyAll();
                                }
                            }
                        }
                    }
                    scheduled.set(false);
                } while (!queue.isEmpty() && scheduled.compareAndSet(false, true));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
                synchronized (this) {
                    notifyAll();
                }
                throw e;
            }
        }
    }

    private record Segment(byte[] array, int offset, int length, boolean ring, boolean end) {
    }
}
