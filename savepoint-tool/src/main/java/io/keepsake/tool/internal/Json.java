package io.keepsake.tool.internal;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A small JSON writer for the tool's {@code --json} output, so the tool needs no JSON library.
 * It writes trees of {@link Map} (string keys, kept in iteration order), {@link Collection},
 * {@link String}, {@link Number}, {@link Boolean} and null, indented by two spaces. It does not
 * parse JSON. Stateless and thread-safe.
 */
public final class Json {

    /**
     * The version of the tool's JSON schema, the first field of every document (docs/tool.md,
     * docs/keepsake-output.schema.json). 2: every document has {@code error}; {@code list} and
     * {@code verify} share one savepoint record, {@code delete} and {@code gc} one removal record;
     * {@code gc} reports {@code olderThanMillis}.
     */
    public static final int SCHEMA_VERSION = 3;

    private Json() {
    }

    /** A new result document for {@code command}: {@code schemaVersion}, {@code command} and a null {@code error}. */
    public static Map<String, Object> document(String command) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schemaVersion", SCHEMA_VERSION);
        doc.put("command", command);
        doc.put("error", null);
        return doc;
    }

    /**
     * An error document for {@code command}: {@code schemaVersion}, {@code command} and {@code error}
     * only, the error holding every one of its fields ({@code file} null unless a file failed to verify).
     */
    public static Map<String, Object> errorDocument(String command, int exitCode, String type,
                                                            String exception, String message, String file) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("exitCode", exitCode);
        e.put("type", type);
        e.put("exception", exception);
        e.put("message", message);
        e.put("file", file);
        Map<String, Object> doc = document(command);
        doc.put("error", e);
        return doc;
    }

    /**
     * A record of one file holding a pipeline's checkpoint: {@code pipeline}, {@code checkpoint}, the
     * file's path under {@code fileKey} and again under {@code file} (that field's schema version 2
     * name, kept until version 3), and {@code bytes}; the caller may add fields after these.
     */
    public static Map<String, Object> fileRecord(int pipeline, long checkpoint, String fileKey, String path, long bytes) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("pipeline", pipeline);
        r.put("checkpoint", checkpoint);
        r.put(fileKey, path);
        r.put("file", path);
        r.put("bytes", bytes);
        return r;
    }

    /** Renders a value tree as indented JSON text, without a trailing newline. */
    public static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value, 0);
        return b.toString();
    }

    private static void write(StringBuilder b, Object value, int depth) {
        if (value == null) {
            b.append("null");
        } else if (value instanceof String s) {
            quote(b, s);
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte) {
            b.append(value);
        } else if (value instanceof Number n) {
            double d = n.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                b.append("null");
            } else {
                b.append(n);
            }
        } else if (value instanceof Map<?, ?> map) {
            writeObject(b, map, depth);
        } else if (value instanceof Collection<?> list) {
            writeArray(b, list, depth);
        } else {
            quote(b, value.toString());
        }
    }

    private static void writeObject(StringBuilder b, Map<?, ?> map, int depth) {
        if (map.isEmpty()) {
            b.append("{}");
            return;
        }
        b.append("{\n");
        Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<?, ?> e = it.next();
            indent(b, depth + 1);
            quote(b, String.valueOf(e.getKey()));
            b.append(": ");
            write(b, e.getValue(), depth + 1);
            b.append(it.hasNext() ? ",\n" : "\n");
        }
        indent(b, depth);
        b.append('}');
    }

    private static void writeArray(StringBuilder b, Collection<?> list, int depth) {
        if (list.isEmpty()) {
            b.append("[]");
            return;
        }
        b.append("[\n");
        Iterator<?> it = list.iterator();
        while (it.hasNext()) {
            indent(b, depth + 1);
            write(b, it.next(), depth + 1);
            b.append(it.hasNext() ? ",\n" : "\n");
        }
        indent(b, depth);
        b.append(']');
    }

    private static void indent(StringBuilder b, int depth) {
        b.append("  ".repeat(depth));
    }

    /** Appends {@code s} as a JSON string literal, escaping quotes, backslashes and control characters. */
    static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
