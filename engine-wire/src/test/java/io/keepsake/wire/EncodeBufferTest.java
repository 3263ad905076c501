package io.keepsake.wire;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.ActionStateKey;
import io.keepsake.engine.ActionSubtaskState;
import io.keepsake.engine.CheckpointType;
import io.keepsake.engine.CompletedCheckpoint;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The stream encode path copies a state array at most once before the stream, into one buffer. */
class EncodeBufferTest {

    /** Remembers every write: which array it came from, where, how long; keeps the bytes. */
    private static final class RecordingStream extends OutputStream {
        record Write(byte[] array, int off, int len) {
        }

        final List<Write> writes = new ArrayList<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int singleByteWrites;

        @Override
        public void write(int b) {
            singleByteWrites++;
            bytes.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            writes.add(new Write(b, off, len));
            bytes.write(b, off, len);
        }
    }

    private static byte[] random(Random r, int length) {
        byte[] b = new byte[length];
        r.nextBytes(b);
        return b;
    }

    @Test
    void stateArraysReachTheStreamUncopiedOrThroughOneLargeBuffer() throws IOException {
        Random r = new Random(13);
        ActionStateKey key = new ActionStateKey("Source[0]-big-and-small");
        byte[] large = random(r, 300_000);
        byte[] medium = random(r, 70_000);
        List<byte[]> small = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            small.add(random(r, 1_000));
        }
        ActionState action = new ActionState(key, List.of(
                new ActionSubtaskState(key, 0, List.of(large)),
                new ActionSubtaskState(key, 1, small),
                new ActionSubtaskState(key, 2, List.of(medium))), null, 3);
        CompletedCheckpoint checkpoint = new CompletedCheckpoint(7, 1, 2, 3L, CheckpointType.SAVEPOINT_TYPE, 4L,
                Map.of(key, action), Map.of());
        CheckpointWireCodec codec = new CheckpointWireCodec();

        RecordingStream out = new RecordingStream();
        codec.encode(checkpoint, out);

        byte[] encoded = codec.encode(checkpoint);
        assertThat(out.bytes.toByteArray()).as("the stream gets exactly the encoded bytes").isEqualTo(encoded);
        assertThat(out.singleByteWrites).as("single-byte writes").isZero();

        Set<byte[]> stateArrays = Collections.newSetFromMap(new IdentityHashMap<>());
        stateArrays.add(large);
        stateArrays.add(medium);
        stateArrays.addAll(small);
        Set<byte[]> buffers = Collections.newSetFromMap(new IdentityHashMap<>());
        for (RecordingStream.Write w : out.writes) {
            if (stateArrays.contains(w.array())) {
                assertThat(w.off()).isZero();
                assertThat(w.len()).as("a state array written straight through is written whole")
                        .isEqualTo(w.array().length);
            } else {
                buffers.add(w.array());
            }
        }
        assertThat(out.writes).as("the large arrays go straight through, uncopied")
                .anySatisfy(w -> assertThat(w.array()).isSameAs(large))
                .anySatisfy(w -> assertThat(w.array()).isSameAs(medium));
        assertThat(buffers).as("every other byte comes from one buffer, so a small array is copied once").hasSize(1);
        assertThat(buffers.iterator().next().length).as("the buffer's size")
                .isGreaterThanOrEqualTo(CheckpointWireCodec.ENCODE_BUFFER_BYTES);

        long buffered = out.writes.stream().filter(w -> !stateArrays.contains(w.array()))
                .mapToLong(RecordingStream.Write::len).sum();
        long passedThrough = encoded.length - buffered;
        int directWrites = (int) out.writes.stream().filter(w -> stateArrays.contains(w.array())).count();
        assertThat(passedThrough).as("bytes written straight from state arrays")
                .isGreaterThanOrEqualTo(large.length + medium.length);
        // Each direct write may cut the buffer short once; otherwise the buffer is written full.
        assertThat(out.writes.size()).as("writes reaching the stream")
                .isLessThanOrEqualTo((int) (buffered / CheckpointWireCodec.ENCODE_BUFFER_BYTES) + 2 * directWrites + 1);
    }
}
