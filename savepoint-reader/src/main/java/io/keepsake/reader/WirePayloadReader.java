package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;
import io.keepsake.wire.CheckpointWireCodec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The reader of every format version whose payloads are {@code engine-wire-v1}: the payloads of
 * one savepoint, streamed through the storage's verifying streams (which check them as their
 * format version says) and decoded; the checkpoint's pipeline and checkpoint ids must match the
 * manifest. A version's reader extends it with what that version's manifest must hold
 * ({@link #requireManifest}). Only what the bytes prove is reported as corruption: a failing read
 * is a {@link SavepointStorageException}, and running out of heap or stack while decoding is a
 * {@link SavepointResourcesExhaustedException}. Stateless and thread-safe.
 */
abstract class WirePayloadReader implements SavepointFormatReader {

    private final CheckpointWireCodec codec = new CheckpointWireCodec();
    private final int formatVersion;

    /** The reader of savepoints in {@code formatVersion}. */
    WirePayloadReader(int formatVersion) {
        this.formatVersion = formatVersion;
    }

    @Override
    public final int formatVersion() {
        return formatVersion;
    }

    /**
     * Checks what this version's manifest must hold before any payload is opened; the default
     * accepts every manifest.
     *
     * @throws SavepointCorruptedException when the manifest lacks what its version requires
     */
    void requireManifest(SavepointHandle handle) {
    }

    @Override
    public final Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle) {
        requireManifest(handle);
        requirePayloadFormat(handle);
        Map<Integer, CompletedCheckpoint> byPipeline = new TreeMap<>();
        for (ManifestEntry entry : handle.meta().manifest()) {
            String source = handle.location() + "/" + entry.file();
            CompletedCheckpoint cp = readPayload(storage, handle, entry, source,
                    in -> codec.decode(in, entry.length(), source));
            requireManifestIds(entry, source, cp.pipelineId(), cp.checkpointId());
            byPipeline.put(entry.pipelineId(), cp);
        }
        return byPipeline;
    }

    /** Every payload read, verified and decoded without keeping the state; the pipelines that checked, in order. */
    @Override
    public final List<Integer> check(SavepointStorage storage, SavepointHandle handle) {
        requireManifest(handle);
        requirePayloadFormat(handle);
        List<Integer> pipelines = new ArrayList<>();
        for (ManifestEntry entry : handle.meta().manifest()) {
            String source = handle.location() + "/" + entry.file();
            CheckpointWireCodec.CheckpointSummary summary = readPayload(storage, handle, entry, source,
                    in -> codec.check(in, entry.length(), source));
            requireManifestIds(entry, source, summary.pipelineId(), summary.checkpointId());
            pipelines.add(entry.pipelineId());
        }
        Collections.sort(pipelines);
        return List.copyOf(pipelines);
    }

    /** Decoding one payload stream. */
    private interface PayloadDecoder<T> {
        T decode(InputStream in) throws IOException;
    }

    private static <T> T readPayload(SavepointStorage storage, SavepointHandle handle, ManifestEntry entry,
                                     String source, PayloadDecoder<T> decoder) {
        try (InputStream in = storage.openPayload(handle, entry)) {
            T value = decoder.decode(in);
            if (in.read() != -1) {
                throw new SavepointCorruptedException(source, "Payload has bytes after its checkpoint", "end", "more");
            }
            return value;
        } catch (IOException | UncheckedIOException e) {
            throw new SavepointStorageException("Cannot read payload of savepoint " + handle.savepointId()
                    + " of job " + handle.jobId() + ": " + e.getMessage() + " (" + source + ")", e);
        } catch (OutOfMemoryError | StackOverflowError e) {
            // The failed allocation or the deep stack is unwound here, so reporting it needs little of either.
            throw new SavepointResourcesExhaustedException(source,
                    SavepointResourcesExhaustedException.describe(handle.jobId(), handle.savepointId(), source, e), e);
        }
    }

    private void requirePayloadFormat(SavepointHandle handle) {
        String format = handle.meta().payloadFormat();
        if (!CheckpointWireCodec.FORMAT_NAME.equals(format)) {
            throw new SavepointIncompatibleException("Cannot read savepoint " + handle.savepointId() + " of job "
                    + handle.jobId() + ": payload format '" + format + "' is not " + CheckpointWireCodec.FORMAT_NAME
                    + " (" + handle.location() + ")", formatVersion, formatVersion, formatVersion);
        }
    }

    private static void requireManifestIds(ManifestEntry entry, String source, int pipelineId, long checkpointId) {
        if (pipelineId != entry.pipelineId() || checkpointId != entry.checkpointId()) {
            throw new SavepointCorruptedException(source, "Payload holds another checkpoint than the manifest says",
                    "pipeline " + entry.pipelineId() + " checkpoint " + entry.checkpointId(),
                    "pipeline " + pipelineId + " checkpoint " + checkpointId);
        }
    }
}
