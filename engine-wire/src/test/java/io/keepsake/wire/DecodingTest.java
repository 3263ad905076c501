package io.keepsake.wire;

import io.keepsake.storage.CheckpointCorruptedException;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointStorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Decoding} reports as corruption only what the input caused: the JVM's own errors, the
 * stream's failures and the storage's other errors pass through unchanged, and a declared length
 * beyond what the input can hold is corruption found by comparison, before any allocation.
 */
class DecodingTest {

    @ParameterizedTest
    @EnumSource(Decoding.Kind.class)
    void anOutOfMemoryErrorPropagatesUnchanged(Decoding.Kind kind) {
        OutOfMemoryError oom = new OutOfMemoryError("Java heap space");

        assertThatThrownBy(() -> Decoding.run(kind, "engine-wire-v1 checkpoint", "sp/pipeline-1.bin", () -> {
            throw oom;
        })).isSameAs(oom);
    }

    @ParameterizedTest
    @EnumSource(Decoding.Kind.class)
    void aStackOverflowErrorPropagatesUnchanged(Decoding.Kind kind) {
        StackOverflowError overflow = new StackOverflowError();

        assertThatThrownBy(() -> Decoding.run(kind, "engine-wire-v1 checkpoint", "sp/pipeline-1.bin", () -> {
            throw overflow;
        })).isSameAs(overflow);
    }

    @Test
    void theStoragesOwnFailuresPropagateUnchanged() {
        SavepointStorageException storage = new SavepointStorageException("Cannot read payload: connection reset");
        UncheckedIOException io = new UncheckedIOException(new IOException("connection reset"));
        Decoding.StreamFailure stream = new Decoding.StreamFailure(new IOException("connection reset"));

        for (RuntimeException e : new RuntimeException[] {storage, io, stream}) {
            assertThatThrownBy(() -> Decoding.run("engine-wire-v1 checkpoint", "sp/pipeline-1.bin", () -> {
                throw e;
            })).isSameAs(e);
        }
    }

    @Test
    void whatTheInputCausesIsStillCorruption() {
        assertThatThrownBy(() -> Decoding.run("engine-wire-v1 checkpoint", "sp/pipeline-1.bin", () -> {
            throw new WireFormatException("a tag has field number 0 (offset 3)");
        })).isInstanceOf(SavepointCorruptedException.class).hasMessageContaining("field number 0")
                .hasMessageContaining("sp/pipeline-1.bin");
        assertThatThrownBy(() -> Decoding.run(Decoding.Kind.LEGACY_CHECKPOINT, "legacy v0 checkpoint", "cp-5", () -> {
            throw new IllegalArgumentException("parallelism must not be negative");
        })).isInstanceOf(CheckpointCorruptedException.class).hasMessageContaining("invalid content");
    }

    @Test
    void aStateLengthBeyondTheManifestLengthIsCorruptionFoundBeforeAllocating() {
        // A subtask whose one state object claims 2 GiB - 9 bytes in a payload of a few dozen bytes.
        byte[] bytes = new WireBytes().varint(1, 1).varint(2, 1).varint(3, 7).string(5, "savepoint")
                .startGroup(7).string(1, "action").varint(2, 1)
                .startGroup(3).varint(1, 0).varint(2, 0)
                .tag(3, WireBytes.LENGTH_DELIMITED).rawVarint(Integer.MAX_VALUE - 8).raw(new byte[16])
                .toByteArray();
        CheckpointWireCodec codec = new CheckpointWireCodec();

        assertThatThrownBy(() -> codec.decode(new ByteArrayInputStream(bytes), bytes.length, "sp/pipeline-1.bin"))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("a declared length exceeds the input (" + (Integer.MAX_VALUE - 8) + " declared")
                .hasMessageContaining("sp/pipeline-1.bin");
        assertThatThrownBy(() -> codec.decode(bytes, "sp/pipeline-1.bin"))
                .isInstanceOf(SavepointCorruptedException.class)
                .hasMessageContaining("a declared length exceeds the input");
        assertThat(bytes.length).isLessThan(100);
    }
}
