package io.keepsake.storage.internal;

import org.apache.commons.codec.binary.Hex;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HashingOutputStreamTest {

    @Test
    void largeWritesHashedBesideTheWriterGiveTheSameBytesAndHashAsOneSequentialPass() throws IOException {
        byte[] data = new byte[3 * HashingOutputStream.PARALLEL_MIN_BYTES + 12_345];
        new Random(7).nextBytes(data);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        HashingOutputStream out = new HashingOutputStream(sink);
        writeInSteps(out, data, new int[] {1, 100, HashingOutputStream.PARALLEL_MIN_BYTES, 17,
                2 * HashingOutputStream.PARALLEL_MIN_BYTES - 1});

        assertThat(sink.toByteArray()).isEqualTo(data);
        assertThat(out.length()).isEqualTo(data.length);
        assertThat(out.sha256Hex()).isEqualTo(Hex.encodeHexString(HashingOutputStream.sha256().digest(data)));
    }

    /** Writes {@code data} in writes of the given sizes in turn (a size of 1 as a single-byte write). */
    static void writeInSteps(OutputStream out, byte[] data, int[] steps) throws IOException {
        int off = 0;
        for (int i = 0; off < data.length; i++) {
            int n = Math.min(steps[i % steps.length], data.length - off);
            if (n == 1) {
                out.write(data[off]);
            } else {
                out.write(data, off, n);
            }
            off += n;
        }
    }

    @Test
    void aLargeWriteThatFailsReturnsOnlyAfterItsHashAndCountsNothing() {
        byte[] data = new byte[HashingOutputStream.PARALLEL_MIN_BYTES];
        HashingOutputStream out = new HashingOutputStream(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("disk full");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException("disk full");
            }
        });

        assertThatThrownBy(() -> out.write(data, 0, data.length)).isInstanceOf(IOException.class)
                .hasMessageContaining("disk full");
        assertThat(out.length()).isZero();
    }
}
