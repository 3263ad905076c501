package io.keepsake.tool.internal;

import io.keepsake.storage.SavepointMeta;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one JSON record of a savepoint directory that {@code list} and {@code verify} print (schema
 * {@code savepoint} in docs/keepsake-output.schema.json): every field is always present, null when
 * it is not known or does not apply. Stateless.
 */
public final class SavepointRecord {

    private SavepointRecord() {
    }

    /**
     * The record of one directory.
     *
     * @param job         the job
     * @param savepointId the directory's name
     * @param location    the directory, or null when not known
     * @param meta        its verified metadata, or null when it did not verify
     * @param status      what the tool found
     */
    public static Map<String, Object> of(String job, String savepointId, String location, SavepointMeta meta,
                                         SavepointStatus status) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("job", job);
        r.put("savepointId", savepointId);
        r.put("location", location);
        r.put("kind", meta == null ? null : meta.kind().stableName());
        r.put("formatVersion", meta != null ? Integer.valueOf(meta.formatVersion()) : status.formatVersion());
        r.put("completed", meta == null ? null : Formats.time(meta.completedTimestamp()));
        r.put("pipelines", meta == null ? List.of() : Formats.pipelines(meta));
        r.put("bytes", meta == null ? null : Formats.totalBytes(meta));
        r.put("status", status.state().word());
        r.put("reason", status.reasonOrNull());
        r.put("file", status.file());
        return r;
    }

    /** The savepoint directory a failed file lies in when it is the directory's {@code _metadata.ser}; else null. */
    public static String locationOf(String file) {
        String suffix = "/_metadata.ser";
        return file != null && file.endsWith(suffix) ? file.substring(0, file.length() - suffix.length()) : null;
    }
}
