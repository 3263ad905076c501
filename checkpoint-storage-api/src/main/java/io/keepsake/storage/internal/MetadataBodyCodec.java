package io.keepsake.storage.internal;

import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.protostuff.LinkedBuffer;
import io.protostuff.ProtostuffIOUtil;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code _metadata.ser} in one format version: turns {@link SavepointMeta} into the
 * {@link MetadataBody} message and back. What every version shares (the top-level fields and the
 * properties) is here; what a version's manifest entries may hold is its subclass's:
 * {@link MetadataBodyV1} (length and SHA-256) and {@link MetadataBodyV2} (and chunk digests).
 * {@link MetadataCodec} frames the body. Stateless and thread-safe.
 */
abstract class MetadataBodyCodec {

    /**
     * The body of {@code version}: version 1's for version 1, version 2's for every other. Later
     * versions only add tags, which version 2's body skips when reading; versions below 1 exist
     * only as damaged or forged files, which the frame refuses when reading them.
     */
    static MetadataBodyCodec forVersion(int version) {
        return version == MetadataBodyV1.VERSION ? MetadataBodyV1.INSTANCE : MetadataBodyV2.INSTANCE;
    }

    /** The body's message form of one manifest entry of {@code meta}. */
    abstract MetadataBody.Entry encodeEntry(ManifestEntry entry, SavepointMeta meta);

    /** The manifest entry a body of {@code version} read from {@code file} holds. */
    abstract ManifestEntry decodeEntry(MetadataBody.Entry entry, int version, String file);

    /** The body's bytes; deterministic for equal input. */
    final byte[] encode(SavepointMeta meta) {
        MetadataBody body = new MetadataBody();
        body.formatVersion = meta.formatVersion();
        body.savepointId = meta.savepointId();
        body.jobId = meta.jobId();
        body.kind = meta.kind().stableName();
        body.producerVersion = meta.producerVersion();
        body.triggerTimestamp = meta.triggerTimestamp();
        body.completedTimestamp = meta.completedTimestamp();
        body.payloadFormat = meta.payloadFormat();
        body.manifest = new ArrayList<>();
        for (ManifestEntry e : meta.manifest()) {
            body.manifest.add(encodeEntry(e, meta));
        }
        body.properties = new ArrayList<>();
        meta.properties().forEach((k, v) -> {
            MetadataBody.Property p = new MetadataBody.Property();
            p.key = k;
            p.value = v;
            body.properties.add(p);
        });
        return ProtostuffIOUtil.toByteArray(body, MetadataBody.SCHEMA, LinkedBuffer.allocate(512));
    }

    /**
     * Decodes the body at {@code bytes[offset, offset + length)}, which the frame says is of
     * {@code version}, and checks that the body says so too and that every name in it is valid.
     *
     * @throws SavepointCorruptedException naming {@code file} when it does not decode or check
     */
    final SavepointMeta decode(byte[] bytes, int offset, int length, int version, String file) {
        MetadataBody body = MetadataBody.SCHEMA.newMessage();
        try {
            ProtostuffIOUtil.mergeFrom(bytes, offset, length, body, MetadataBody.SCHEMA);
        } catch (Exception | StackOverflowError e) {
            throw new SavepointCorruptedException(file, "Cannot decode savepoint metadata body: " + e.getMessage(),
                    null, null, e);
        }
        if (body.formatVersion != version) {
            throw new SavepointCorruptedException(file, "Savepoint metadata body disagrees with its header on the format version",
                    String.valueOf(version), String.valueOf(body.formatVersion));
        }
        try {
            List<ManifestEntry> manifest = new ArrayList<>();
            if (body.manifest != null) {
                for (MetadataBody.Entry d : body.manifest) {
                    manifest.add(decodeEntry(d, version, file));
                }
            }
            return new SavepointMeta(version, body.savepointId, body.jobId, SavepointKind.fromStableName(body.kind),
                    body.producerVersion, body.triggerTimestamp, body.completedTimestamp, body.payloadFormat,
                    manifest, properties(body));
        } catch (InvalidStorageArgumentException | NullPointerException e) {
            throw new SavepointCorruptedException(file, "Savepoint metadata is invalid: " + e.getMessage(),
                    null, null, e);
        }
    }

    private static Map<String, String> properties(MetadataBody body) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (body.properties != null) {
            for (MetadataBody.Property p : body.properties) {
                if (p.key == null || p.value == null) {
                    throw new InvalidStorageArgumentException("Cannot accept property: key or value is missing");
                }
                properties.put(p.key, p.value);
            }
        }
        return properties;
    }

    /** The message form of an entry's fields that every version has (tags 1 to 5). */
    static MetadataBody.Entry plainEntry(ManifestEntry e) {
        MetadataBody.Entry d = new MetadataBody.Entry();
        d.pipelineId = e.pipelineId();
        d.checkpointId = e.checkpointId();
        d.file = e.file();
        d.length = e.length();
        d.sha256 = e.sha256();
        return d;
    }
}
