package io.keepsake.storage.internal;

import io.keepsake.storage.SavepointCorruptedException;
import org.apache.commons.codec.digest.DigestUtils;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The verifying stream, inline (small payloads) and with its hashing thread (from {@link VerifyingInputStream#PARALLEL_MIN_BYTES}): every
 * mix of plain reads, kept reads and discards verifies a good payload; a flipped byte, a short or a
 * long file fails on the read that would deliver the last byte.
 */
class VerifyingInputStreamTest {

    private static final int LARGE = (int) VerifyingInputStream.PARALLEL_MIN_BYTES * 2 + VerifyingInputStream.RING_BYTES * 3 + 12345;

    private static byte[] payload(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    /** Reads the whole stream in a pattern of plain reads (of reused buffers), kept reads and discards. */
    private static byte[] readMixed(VerifyingInputStream in, int length) throws IOException {
        byte[] out = new byte[length];
        byte[] reused = new byte[7000];
        Random pattern = new Random(3);
        int at = 0;
        while (at < length) {
            int want = Math.min(length - at, 1 + pattern.nextInt(300_000));
            switch (pattern.nextInt(3)) {
                case 0 -> {
                    int n = in.read(reused, 0, Math.min(want, reused.length));
                    System.arraycopy(reused, 0, out, at, n);
                    Arrays.fill(reused, (byte) 0x55);
                    at += n;
                }
                case 1 -> at += in.readKept(out, at, want);
                default -> {
                    long skipped = in.discard(want);
                    at += (int) skipped;
                }
            }
        }
        assertThat(in.read()).isEqualTo(-1);
        return out;
    }

    @Test
    void aGoodPayloadVerifiesInEveryMixOfReads() throws IOException {
        for (int size : new int[] {0, 1, 1000, (int) VerifyingInputStream.PARALLEL_MIN_BYTES, LARGE}) {
            byte[] bytes = payload(size);
            try (VerifyingInputStream in = new VerifyingInputStream(new ByteArrayInputStream(bytes), "p", size,
                    DigestUtils.sha256Hex(bytes))) {
                readMixed(in, size);
            }
        }
    }

    @Test
    void keptAndPlainReadsDeliverTheFileBytes() throws IOException {
        byte[] bytes = payload(LARGE);
        try (VerifyingInputStream in = new VerifyingInputStream(new ByteArrayInputStream(bytes), "p", LARGE,
                DigestUtils.sha256Hex(bytes))) {
            byte[] out = new byte[LARGE];
            int at = 0;
            while (at < LARGE) {
                int n = (at / 100_000) % 2 == 0 ? in.readKept(out, at, Math.min(150_000, LARGE - at))
                        : in.read(out, at, Math.min(70_000, LARGE - at));
                at += n;
            }
            assertThat(out).isEqualTo(bytes);
        }
    }

    @Test
    void aFlippedByteFailsOnTheReadThatReachesTheEnd() throws IOException {
        for (int size : new int[] {1000, LARGE}) {
            byte[] bytes = payload(size);
            String sha = DigestUtils.sha256Hex(bytes);
            for (int flip : new int[] {0, size / 2, size - 1}) {
                byte[] bad = bytes.clone();
                bad[flip] ^= 1;
                try (VerifyingInputStream in = new VerifyingInputStream(new ByteArrayInputStream(bad), "f.wire", size,
                        sha)) {
                    byte[] out = new byte[size];
                    int at = 0;
                    while (at < size - 1) {
                        at += in.readKept(out, at, size - 1 - at);
                    }
                    assertThatThrownBy(() -> in.read(out, size - 1, 1))
                            .isInstanceOf(SavepointCorruptedException.class)
                            .hasMessageContaining("SHA-256 does not match").hasMessageContaining("f.wire")
                            .hasMessageContaining("whole-file SHA-256").hasMessageContaining("(expected " + sha + ", found ");
                }
            }
        }
    }

    @Test
    void aShortOrLongFileFails() throws IOException {
        byte[] bytes = payload(LARGE);
        String sha = DigestUtils.sha256Hex(bytes);
        try (InputStream in = new VerifyingInputStream(new ByteArrayInputStream(bytes, 0, LARGE - 1), "s", LARGE, sha)) {
            assertThatThrownBy(() -> in.readAllBytes()).isInstanceOf(SavepointCorruptedException.class)
                    .hasMessageContaining("length does not match");
        }
        byte[] longer = Arrays.copyOf(bytes, LARGE + 1);
        try (InputStream in = new VerifyingInputStream(new ByteArrayInputStream(longer), "l", LARGE, sha)) {
            assertThatThrownBy(() -> in.readAllBytes()).isInstanceOf(SavepointCorruptedException.class)
                    .hasMessageContaining("longer than the manifest says");
        }
    }

    @Test
    void aStreamClosedHalfWayHoldsNothingBack() throws IOException {
        byte[] bytes = payload(LARGE);
        for (int i = 0; i < 20; i++) {
            VerifyingInputStream in = new VerifyingInputStream(new ByteArrayInputStream(bytes), "h", LARGE,
                    DigestUtils.sha256Hex(bytes));
            assertThat(in.discard(LARGE / 2)).isEqualTo(LARGE / 2);
            in.close();
        }
        try (VerifyingInputStream in = new VerifyingInputStream(new ByteArrayInputStream(bytes), "h", LARGE,
                DigestUtils.sha256Hex(bytes))) {
            assertThat(in.discard(Long.MAX_VALUE)).isEqualTo(LARGE);
        }
    }
}
