package io.keepsake.reader;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;

/**
 * Format version 2: the bundle and payloads of version 1, but every manifest
 * entry also records its chunk size and each chunk's SHA-256, and its digest is derived from
 * those (docs/formats.md). The storage's payload stream reads a payload ahead and checks its chunks
 * on the storage's verifier threads, handing out each chunk only once it verified, so reading,
 * checking and decoding overlap on every core in memory bounded by a few chunks. The payloads
 * decode exactly as version 1's. Not API: reached through {@link SavepointReaderRegistry}.
 */
final class V2SavepointReader extends WirePayloadReader {

    V2SavepointReader() {
        super(2);
    }

    /** A version 2 manifest without chunk digests cannot be checked chunk by chunk: corruption, before any payload is opened. */
    @Override
    void requireManifest(SavepointHandle handle) {
        for (ManifestEntry entry : handle.meta().manifest()) {
            if (entry.chunks() == null) {
                throw new SavepointCorruptedException(handle.location() + "/_metadata.ser", "The manifest of savepoint "
                        + handle.savepointId() + " of job " + handle.jobId() + " is in format version 2 but has no"
                        + " chunk digests for " + entry.file(), "chunk digests", "none");
            }
        }
    }
}
