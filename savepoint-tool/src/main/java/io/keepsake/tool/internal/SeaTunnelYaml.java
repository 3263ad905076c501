package io.keepsake.tool.internal;

import io.keepsake.tool.ToolUsageException;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * Reads the checkpoint storage section of SeaTunnel's {@code seatunnel.yaml}
 * ({@code seatunnel.engine.checkpoint.storage}: {@code type} and the {@code plugin-config} map),
 * so the tool opens the storage an engine is configured with. It understands the block-style YAML
 * that file is written in: nested mappings by indentation, plain, single- and double-quoted
 * scalars, comments and keys with dots; sequences, block scalars and flow collections elsewhere
 * in the file are skipped, not interpreted. It is not a general YAML parser (no anchors, no tags,
 * no multi-document streams), which keeps the tool free of a YAML library. Stateless.
 */
public final class SeaTunnelYaml {

    /** Where the section lives in the file. */
    public static final List<String> SECTION = List.of("seatunnel", "engine", "checkpoint", "storage");

    /**
     * The storage section of a SeaTunnel file.
     *
     * @param type         {@code checkpoint.storage.type}, such as {@code hdfs}, {@code localfile} or {@code keepsake}
     * @param pluginConfig {@code checkpoint.storage.plugin-config}, values as strings, nested keys joined by dots
     */
    public record StorageSection(String type, Map<String, String> pluginConfig) {

        public StorageSection {
            pluginConfig = Map.copyOf(pluginConfig);
        }
    }

    private SeaTunnelYaml() {
    }

    /**
     * Reads the storage section out of a file's text; {@code source} names the file in messages.
     *
     * @throws ToolUsageException when the text is not the YAML this reader understands or the section is missing
     */
    public static StorageSection storageSection(String text, String source) {
        Map<String, Object> root = parse(text, source);
        Object node = root;
        StringBuilder path = new StringBuilder();
        for (String key : SECTION) {
            path.append(path.length() == 0 ? "" : ".").append(key);
            if (!(node instanceof Map<?, ?> map) || !(map.get(key) instanceof Map<?, ?>)) {
                throw new ToolUsageException("Cannot read --config file: it has no '" + String.join(".", SECTION)
                        + "' section (missing '" + path + "'), which SeaTunnel's seatunnel.yaml has (" + source + ")");
            }
            node = map.get(key);
        }
        Map<?, ?> storage = (Map<?, ?>) node;
        Object type = storage.get("type");
        if (!(type instanceof String t) || t.isBlank()) {
            throw new ToolUsageException("Cannot read --config file: '" + String.join(".", SECTION)
                    + ".type' is missing (" + source + ")");
        }
        Map<String, String> plugin = new LinkedHashMap<>();
        Object config = storage.get("plugin-config");
        if (config instanceof Map<?, ?> m) {
            flatten("", m, plugin);
        } else if (config != null && !"".equals(config)) {
            throw new ToolUsageException("Cannot read --config file: '" + String.join(".", SECTION)
                    + ".plugin-config' is not a mapping (" + source + ")");
        }
        return new StorageSection(t.trim(), plugin);
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, String> out) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = prefix + e.getKey();
            if (e.getValue() instanceof Map<?, ?> child) {
                flatten(key + ".", child, out);
            } else {
                out.put(key, String.valueOf(e.getValue()));
            }
        }
    }

    private record Level(int indent, Map<String, Object> map) {
    }

    /**
     * Parses block-style YAML mappings into nested maps of strings; what the reader skips (sequences,
     * block scalars) becomes an empty string.
     *
     * @throws ToolUsageException when a line is neither a mapping entry nor something skipped
     */
    public static Map<String, Object> parse(String text, String source) {
        Map<String, Object> root = new LinkedHashMap<>();
        Deque<Level> stack = new ArrayDeque<>();
        stack.push(new Level(-1, root));
        int skipAbove = -1;
        String[] lines = text.split("\r?\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String raw = lines[n];
            String content = raw.strip();
            if (content.isEmpty() || content.startsWith("#") || content.equals("---") || content.equals("...")) {
                continue;
            }
            int indent = indentOf(raw, n + 1, source);
            if (skipAbove >= 0 && indent > skipAbove) {
                continue;
            }
            skipAbove = -1;
            if (content.equals("-") || content.startsWith("- ")) {
                // A sequence item and everything under it: not part of the storage section's shape.
                skipAbove = indent;
                continue;
            }
            while (stack.peek().indent() >= indent) {
                stack.pop();
            }
            int colon = keyEnd(content);
            if (colon < 0) {
                throw new ToolUsageException("Cannot read --config file: line " + (n + 1) + " is not 'key: value' ("
                        + source + ": " + content + ")");
            }
            String key = unquote(content.substring(0, colon).strip());
            String value = stripComment(content.substring(colon + 1)).strip();
            Map<String, Object> parent = stack.peek().map();
            if (value.isEmpty()) {
                Map<String, Object> child = new LinkedHashMap<>();
                parent.put(key, child);
                stack.push(new Level(indent, child));
            } else if (value.startsWith("|") || value.startsWith(">")) {
                parent.put(key, "");
                skipAbove = indent;
            } else {
                parent.put(key, unquote(value));
            }
        }
        return root;
    }

    private static int indentOf(String line, int number, String source) {
        int i = 0;
        while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
            if (line.charAt(i) == '\t') {
                throw new ToolUsageException("Cannot read --config file: line " + number + " is indented with a tab,"
                        + " which YAML does not allow (" + source + ")");
            }
            i++;
        }
        return i;
    }

    /** The index of the colon that ends the key (followed by a space or the end), outside quotes; -1 when none. */
    private static int keyEnd(String content) {
        int i = firstUnquoted(content, j -> content.charAt(j) == ':'
                && (j + 1 == content.length() || content.charAt(j + 1) == ' ')
                || content.charAt(j) == '#' && j > 0 && content.charAt(j - 1) == ' ');
        return i >= 0 && content.charAt(i) == ':' ? i : -1;
    }

    private static String stripComment(String value) {
        String v = value.strip();
        int i = firstUnquoted(v, j -> v.charAt(j) == '#' && (j == 0 || v.charAt(j - 1) == ' '));
        return i < 0 ? v : v.substring(0, i);
    }

    /**
     * The index of the first character at which {@code mark} holds, outside the quoted string the
     * text may begin with ({@code "..."} or {@code '...'}); -1 when there is none.
     */
    private static int firstUnquoted(String text, IntPredicate mark) {
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if ((c == '"' || c == '\'') && i == 0) {
                quote = c;
            } else if (mark.test(i)) {
                return i;
            }
        }
        return -1;
    }

    private static String unquote(String s) {
        if (s.length() >= 2 && (s.charAt(0) == '"' && s.endsWith("\"") || s.charAt(0) == '\'' && s.endsWith("'"))) {
            String inner = s.substring(1, s.length() - 1);
            return s.charAt(0) == '\'' ? inner.replace("''", "'") : inner.replace("\\\"", "\"").replace("\\\\", "\\");
        }
        return s;
    }
}
