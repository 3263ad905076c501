package io.keepsake.reader;

import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointStorage;

import java.util.List;
import java.util.Map;

/**
 * Format version 2: the bundle and payloads of version 1, but every manifest
 * entry also records its chunk size and each chunk's SHA-256, and its digest is derived from
 * those (docs/formats.md). The storage's payload stream reads a payload ahead and checks its chunks
 * on the storage's verifier threads, handing out each chunk only once it verified, so reading,
 * checking and decoding overlap on every core in memory bounded by a few chunks. The payloads
 * decode exactly as version 1's. Not API: reached through {@link SavepointReaderRegistry}.
 */
final class V2SavepointReader implements SavepointFormatReader {

    private final WirePayloads payloads = new WirePayloads(2);

    @Override
    public int formatVersion() {
        return 2;
    }

    @Override
    public Map<Integer, CompletedCheckpoint> read(SavepointStorage storage, SavepointHandle handle) {
        requireChunkDigests(handle);
        return payloads.read(storage, handle);
    }

    @Override
    public List<Integer> check(SavepointStorage storage, SavepointHandle handle) {
        requireChunkDigests(handle);
        return payloads.check(storage, handle);
    }

    /** A version 2 manifest without chunk digests cannot be checked chunk by chunk: corruption, before any payload is opened. */
    private static void requireChunkDigests(SavepointHandle handle) {
        for (ManifestEntry entry : handle.meta().manifest()) {
            if (entry.chunks() == null) {
                throw new SavepointCorruptedException(handle.location() + "/_metadata.ser", "The manifest of savepoint "
                        + handle.savepointId() + " of job " + handle.jobId() + " is in format version 2 but has no"
                        + " chunk digests for " + entry.file(), "chunk digests", "none");
            }
        }
    }
}
