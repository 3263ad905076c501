package io.keepsake.storage.internal;

import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Index marker names: what is written parses back, and the parser accepts exactly its grammar. */
class IndexMarkerNameTest {

    /**
     * The grammar as a regular expression, the parser's specification (first '@' ends the claims
     * and the optional completion time).
     */
    private static final Pattern GRAMMAR = Pattern.compile("(-?\\d+_-?\\d+(?:,-?\\d+_-?\\d+)*)(?:~(-?\\d+))?@(.+)");

    private static SavepointMeta meta(String savepointId, long completed, List<ManifestEntry> manifest) {
        return new SavepointMeta(1, savepointId, "1", SavepointKind.MANUAL, "test", 1L, completed, "test-payload",
                manifest, Map.of());
    }

    private static List<ManifestEntry> manifest(Map<Integer, Long> claims) {
        return claims.entrySet().stream()
                .map(e -> new ManifestEntry(e.getKey(), e.getValue(), "pipeline-" + e.getKey() + ".wire", 1, "0".repeat(64)))
                .toList();
    }

    @Test
    void aWrittenMarkerParsesBackToItsIdClaimsAndCompletionTime() {
        List<ManifestEntry> manifest = List.of(
                new ManifestEntry(2, 7L, "pipeline-2.wire", 1, "0".repeat(64)),
                new ManifestEntry(-1, Long.MIN_VALUE, "pipeline--1.wire", 1, "0".repeat(64)),
                new ManifestEntry(10, Long.MAX_VALUE, "pipeline-10.wire", 1, "0".repeat(64)));
        String name = StorageLayout.indexMarker(meta("sp@1-é", -5L, manifest)).orElseThrow();
        assertThat(name).isEqualTo("-1_" + Long.MIN_VALUE + ",2_7,10_" + Long.MAX_VALUE + "~-5@sp@1-é");
        StorageLayout.Marker m = StorageLayout.parseMarker(name).orElseThrow();
        assertThat(m.savepointId()).isEqualTo("sp@1-é");
        assertThat(m.claims()).containsExactly(Map.entry(-1, Long.MIN_VALUE), Map.entry(2, 7L),
                Map.entry(10, Long.MAX_VALUE));
        assertThat(m.completed()).hasValue(-5L);
    }

    @Test
    void aMarkerWrittenBeforeMarkersCarriedTheCompletionTimeStillParses() {
        StorageLayout.Marker m = StorageLayout.parseMarker("1_42,2_42@sp-1").orElseThrow();
        assertThat(m.claims()).containsExactly(Map.entry(1, 42L), Map.entry(2, 42L));
        assertThat(m.completed()).isEmpty();
    }

    /** Names are at most 255 bytes: the completion time goes first, then the whole marker. */
    @Test
    void aNameTooLongWithTheCompletionTimeIsWrittenWithoutItAndOneTooLongWithoutItIsNotWritten() {
        Map<Integer, Long> claims = new TreeMap<>();
        for (int p = 0; p < 10; p++) {
            claims.put(p, 1_000_000_000_000_000L);
        }
        String id = "sp-" + "x".repeat(190);
        while (StorageLayout.indexMarker(meta(id, 1_764_570_000_000L, manifest(claims))).isEmpty()) {
            id = id.substring(0, id.length() - 1);
        }
        String longest = StorageLayout.indexMarker(meta(id, 1_764_570_000_000L, manifest(claims))).orElseThrow();
        assertThat(longest).hasSize(255).doesNotContain("~");
        assertThat(StorageLayout.parseMarker(longest).orElseThrow().completed()).isEmpty();
        String shorter = id.substring(0, id.length() - "~1764570000000".length());
        assertThat(StorageLayout.indexMarker(meta(shorter, 1_764_570_000_000L, manifest(claims))).orElseThrow())
                .hasSize(255).contains("~1764570000000@");
        assertThat(StorageLayout.indexMarker(meta(id + "x", 1_764_570_000_000L, manifest(claims)))).isEmpty();
    }

    @Test
    void theMarkerInFormatsMdIsOneKeepsakeWritesForAGeneratedId() throws IOException {
        String formats = Files.readString(Path.of("../docs/formats.md"));
        Matcher example = Pattern.compile("`([^`\\s]+@sp-[^`\\s]+)`").matcher(formats);
        assertThat(example.find()).as("an index marker example in docs/formats.md").isTrue();
        StorageLayout.Marker marker = StorageLayout.parseMarker(example.group(1)).orElseThrow();
        assertThat(marker.completed()).as("the example's completion time").isPresent();
        assertThat(StorageLayout.indexMarker(meta(marker.savepointId(), marker.completed().getAsLong(),
                manifest(marker.claims())))).contains(example.group(1));
        String generated = SavepointRequest.generateId(System.currentTimeMillis());
        Pattern idShape = Pattern.compile("sp-\\d{13,}-[0-9a-f]{8}");
        assertThat(generated).matches(idShape);
        assertThat(marker.savepointId()).matches(idShape).hasSameSizeAs(generated);
    }

    @Test
    void malformedNamesAreNoMarkers() {
        for (String bad : new String[] {"", "@", "1_2@", "@sp", "1_2", "1@sp", "_2@sp", "1_@sp", "1_2,@sp",
                "1_2,3@sp", "1_2_3@sp", "+1_2@sp", "1_+2@sp", "1_2 @sp", "--1_2@sp", "1_2,1_3@sp",
                "2147483648_1@sp", "1_9223372036854775808@sp", "1_2@a\nb", "1_2@a\u2028", "١_2@sp",
                ".staging", "1_2,,3_4@sp", "1_2~@sp", "~5@sp", "1_2~5~6@sp", "1_2~+5@sp", "1_2~ 5@sp",
                "1_2~9223372036854775808@sp", "1_2~5,3_4@sp", "1_2,~5@sp"}) {
            assertThat(StorageLayout.parseMarker(bad)).as("'%s'", bad).isEmpty();
        }
    }

    /**
     * Random markers (one to three claims, half of them with a completion time, numbers up to and
     * past their type's range, ids over an alphabet with line terminators, '@' and '~'), most of
     * them then mutated by a few random edits:
     * the parser and the regular expression agree on every one, valid or not.
     */
    @Test
    void theParserAgreesWithTheGrammarOnRandomNames() {
        Random random = new Random(20261201L);
        String alphabet = "0123456789_,@-~\n\u2028\u0085\ra. ١+";
        String[] numbers = {"0", "-0", "7", "-12", "007", "2147483647", "2147483648", "-2147483648",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808"};
        int markers = 0;
        int others = 0;
        for (int i = 0; i < 200_000; i++) {
            StringBuilder b = new StringBuilder();
            int pairs = 1 + random.nextInt(3);
            for (int p = 0; p < pairs; p++) {
                b.append(p == 0 ? "" : ",").append(random.nextBoolean() ? numbers[random.nextInt(numbers.length)]
                        : Integer.toString(random.nextInt(5))).append('_')
                        .append(numbers[random.nextInt(numbers.length)]);
            }
            if (random.nextBoolean()) {
                b.append('~').append(numbers[random.nextInt(numbers.length)]);
            }
            b.append('@');
            int idLength = random.nextInt(4);
            for (int j = 0; j < idLength; j++) {
                b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            int edits = random.nextInt(3);
            for (int e = 0; e < edits && b.length() > 0; e++) {
                int at = random.nextInt(b.length());
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                switch (random.nextInt(3)) {
                    case 0 -> b.insert(at, c);
                    case 1 -> b.deleteCharAt(at);
                    default -> b.setCharAt(at, c);
                }
            }
            String name = b.toString();
            Optional<StorageLayout.Marker> expected = byGrammar(name);
            assertThat(StorageLayout.parseMarker(name)).as("'%s'", name).isEqualTo(expected);
            if (expected.isPresent()) {
                markers++;
            } else {
                others++;
            }
        }
        assertThat(markers).as("random names that are markers").isGreaterThan(20_000);
        assertThat(others).as("random names that are not").isGreaterThan(20_000);
    }

    private static Optional<StorageLayout.Marker> byGrammar(String name) {
        Matcher m = GRAMMAR.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        Map<Integer, Long> claims = new TreeMap<>();
        OptionalLong completed;
        try {
            for (String pair : m.group(1).split(",")) {
                int underscore = pair.indexOf('_', 1);
                if (claims.put(Integer.parseInt(pair.substring(0, underscore)),
                        Long.parseLong(pair.substring(underscore + 1))) != null) {
                    return Optional.empty();
                }
            }
            completed = m.group(2) == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(m.group(2)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return Optional.of(new StorageLayout.Marker(m.group(3), claims, completed));
    }
}
