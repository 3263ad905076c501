package io.keepsake.tool.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JsonTest {

    @Test
    void writesNestedValuesInOrder() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("b", 1);
        doc.put("a", List.of(true, 2L));
        doc.put("n", null);
        doc.put("empty", new ArrayList<>());

        assertThat(Json.write(doc)).isEqualTo("{\n  \"b\": 1,\n  \"a\": [\n    true,\n    2\n  ],\n  \"n\": null,\n"
                + "  \"empty\": []\n}");
    }

    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertThat(Json.write("say \"hi\"\\\n\t\u0001")).isEqualTo("\"say \\\"hi\\\"\\\\\\n\\t\\u0001\"");
        assertThat(Json.write(Arrays.asList("源", null))).isEqualTo("[\n  \"源\",\n  null\n]");
    }
}
