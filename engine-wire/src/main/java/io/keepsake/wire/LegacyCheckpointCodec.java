package io.keepsake.wire;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.PipelineState;
import io.keepsake.storage.PipelineStateCodec;
import io.keepsake.storage.CheckpointCorruptedException;

import java.util.Objects;

/**
 * Reads and writes legacy v0 checkpoints: the {@code CompletedCheckpoint} bytes that SeaTunnel
 * 2.3.x stores inside {@code PipelineState.states}, and whole checkpoint files (the
 * {@code PipelineState} wrapper around them).
 *
 * <p>The layout is pinned by hand (field numbers, group encoding, null runs, enum ordinal tables),
 * not derived from any class by reflection, so no change to the runtime model can shift it.
 * Encoding is byte-compatible with SeaTunnel 2.3.8: decoding one of its files and encoding the
 * result gives back the same bytes. The runtime-only {@code restored} flag is stored in this
 * format and decoded as stored.
 *
 * <p>Decoding treats its input as untrusted: any malformed, truncated or hostile input raises
 * {@link CheckpointCorruptedException} naming the source, never another exception, and declared
 * lengths are checked before anything is allocated.
 *
 * <p>Stateless and thread-safe. It does not read files or guess which file is the latest; the
 * storage layer does that.
 */
public final class LegacyCheckpointCodec {

    /** The name of this format in messages and manifests. */
    public static final String FORMAT_NAME = "legacy-v0";

    private LegacyCheckpointCodec() {
    }

    /**
     * Decodes the bytes of a legacy {@code CompletedCheckpoint} (the content of {@code PipelineState.states}).
     *
     * @param completedCheckpointBytes the checkpoint bytes
     * @param source                   where the bytes came from, for error messages
     * @throws CheckpointCorruptedException when the bytes are not a valid legacy checkpoint
     */
    public static CompletedCheckpoint decodeCheckpoint(byte[] completedCheckpointBytes, String source) {
        Objects.requireNonNull(completedCheckpointBytes, "Cannot decode legacy checkpoint: bytes is null");
        return Decoding.run(Decoding.Kind.LEGACY_CHECKPOINT, "legacy v0 checkpoint", source, () -> LegacyLayout.decode(completedCheckpointBytes));
    }

    /** Encodes a checkpoint to the bytes SeaTunnel 2.3.x would store in {@code PipelineState.states}. */
    public static byte[] encodeCheckpoint(CompletedCheckpoint checkpoint) {
        Objects.requireNonNull(checkpoint, "Cannot encode legacy checkpoint: checkpoint is null");
        return LegacyLayout.encode(checkpoint);
    }

    /**
     * Decodes a whole legacy checkpoint file: the {@code PipelineState} wrapper, then the checkpoint
     * inside it, and checks that the wrapper's job, pipeline and checkpoint ids match the checkpoint's.
     *
     * @param fileBytes the file's bytes
     * @param source    the file name, for error messages
     * @throws CheckpointCorruptedException when the file is not a valid legacy checkpoint file
     */
    public static CompletedCheckpoint decodeFile(byte[] fileBytes, String source) {
        Objects.requireNonNull(fileBytes, "Cannot decode legacy checkpoint file: bytes is null");
        // Scan the wrapper with the bounded reader first: it rejects hostile lengths and nesting
        // before protostuff's own reader sees them.
        Decoding.run(Decoding.Kind.LEGACY_CHECKPOINT, "legacy v0 checkpoint file", source, () -> {
            BoundedInput scan = new BoundedInput(fileBytes, 0);
            for (int n = scan.readFieldNumber(null); n != 0; n = scan.readFieldNumber(null)) {
                scan.handleUnknownField(n, null);
            }
            return null;
        });
        PipelineState state = Decoding.run(Decoding.Kind.LEGACY_CHECKPOINT, "legacy v0 checkpoint file", source,
                () -> PipelineStateCodec.decode(fileBytes, source));
        CompletedCheckpoint checkpoint = decodeCheckpoint(state.states(), source);
        check(source, "job id", state.jobId(), Long.toString(checkpoint.jobId()));
        check(source, "pipeline id", Integer.toString(state.pipelineId()), Integer.toString(checkpoint.pipelineId()));
        check(source, "checkpoint id", Long.toString(state.checkpointId()), Long.toString(checkpoint.checkpointId()));
        return checkpoint;
    }

    /** Encodes a checkpoint to the bytes of a whole legacy checkpoint file, as SeaTunnel 2.3.x writes it. */
    public static byte[] encodeFile(CompletedCheckpoint checkpoint) {
        byte[] states = encodeCheckpoint(checkpoint);
        return PipelineStateCodec.encode(new PipelineState(Long.toString(checkpoint.jobId()),
                checkpoint.pipelineId(), checkpoint.checkpointId(), states));
    }

    private static void check(String source, String what, String wrapper, String inner) {
        if (!wrapper.equals(inner)) {
            throw new CheckpointCorruptedException(source, "Cannot decode legacy v0 checkpoint file: the wrapper's "
                    + what + " differs from the checkpoint's", inner, wrapper);
        }
    }
}
