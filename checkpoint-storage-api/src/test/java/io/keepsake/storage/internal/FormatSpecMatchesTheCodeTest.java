package io.keepsake.storage.internal;

import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointKind;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointRequest;
import io.keepsake.storage.Versions;
import io.protostuff.Schema;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/format-spec.md states what the code writes and reads: its constants, its field tables, the
 * names of the layout and its digest test vectors are compared here with the code.
 */
class FormatSpecMatchesTheCodeTest {

    private static final Path SPEC = Path.of("../docs/format-spec.md");

    private static String spec() throws IOException {
        return Files.readString(SPEC);
    }

    /** The lines of the section that starts with {@code heading}, up to the next blank line after its table. */
    private static List<String[]> table(String spec, String heading) {
        int at = spec.indexOf(heading);
        assertThat(at).as("the spec has a table under '%s'", heading).isNotNegative();
        List<String[]> rows = new ArrayList<>();
        boolean inTable = false;
        for (String line : spec.substring(at + heading.length()).split("\n")) {
            if (line.startsWith("|")) {
                inTable = true;
                String[] cells = line.substring(1, line.length() - 1).split("\\|", -1);
                for (int i = 0; i < cells.length; i++) {
                    cells[i] = cells[i].trim();
                }
                if (!cells[0].equals("name") && !cells[0].equals("tag") && !cells[0].equals("payload")
                        && !cells[0].startsWith("---")) {
                    rows.add(cells);
                }
            } else if (inTable) {
                break;
            }
        }
        assertThat(rows).as("rows of the table under '%s'", heading).isNotEmpty();
        return rows;
    }

    private static String unquote(String cell) {
        return cell.replace("`", "");
    }

    @Test
    void everyConstantOfTheSpecIsTheCodes() throws IOException {
        Map<String, String> code = new LinkedHashMap<>();
        code.put("metadata magic", String.format("0x%08X", MetadataCodec.MAGIC));
        code.put("metadata header length", String.valueOf(MetadataCodec.HEADER_LENGTH));
        code.put("metadata trailer length", String.valueOf(MetadataCodec.TRAILER_LENGTH));
        code.put("metadata maximum length", String.valueOf(MetadataCodec.MAX_LENGTH));
        code.put("oldest format version", String.valueOf(Versions.OLDEST_FORMAT_VERSION));
        code.put("newest format version", String.valueOf(Versions.CURRENT_FORMAT_VERSION));
        code.put("first chunked format version", String.valueOf(MetadataCodec.FIRST_CHUNKED_VERSION));
        code.put("chunk size written", String.valueOf(ChunkDigests.CHUNK_SIZE));
        code.put("largest chunk size read", String.valueOf(ChunkDigests.MAX_CHUNK_SIZE));
        code.put("chunk digest length", String.valueOf(ChunkDigests.DIGEST_LENGTH));
        code.put("longest name", String.valueOf(Names.MAX_LENGTH));
        code.put("longest index marker name", String.valueOf(StorageLayout.MAX_MARKER_BYTES));

        Map<String, String> stated = new LinkedHashMap<>();
        for (String[] row : table(spec(), "## 1. Constants")) {
            stated.put(row[0], unquote(row[1]));
        }
        assertThat(stated).as("every constant the spec states, against the code's").isEqualTo(code);
    }

    @Test
    void theMagicIsTheAsciiTheSpecNamesAndAnEncodedFileStartsWithTheFrameItDraws() throws IOException {
        String spec = spec();
        byte[] magic = ByteBuffer.allocate(4).putInt(MetadataCodec.MAGIC).array();
        assertThat(spec).contains("ASCII \"" + new String(magic, StandardCharsets.US_ASCII) + "\"")
                .contains("shorter than " + (MetadataCodec.HEADER_LENGTH + MetadataCodec.TRAILER_LENGTH) + " bytes");

        for (int version = Versions.OLDEST_FORMAT_VERSION; version <= Versions.CURRENT_FORMAT_VERSION; version++) {
            byte[] file = MetadataCodec.encode(meta(version));
            ByteBuffer frame = ByteBuffer.wrap(file);
            assertThat(frame.getInt()).isEqualTo(MetadataCodec.MAGIC);
            assertThat(frame.getInt()).isEqualTo(version);
            int bodyLength = frame.getInt();
            assertThat(file).hasSize(12 + bodyLength + 32);
            byte[] checksum = sha256(java.util.Arrays.copyOfRange(file, 0, 12 + bodyLength));
            assertThat(java.util.Arrays.copyOfRange(file, 12 + bodyLength, file.length)).isEqualTo(checksum);
        }
    }

    @Test
    void theFieldTablesOfTheMetadataBodyAreTheSchemas() throws IOException {
        String spec = spec();
        requireTable(table(spec, "Body (top-level message):"), MetadataBody.SCHEMA);
        requireTable(table(spec, "Entry (group under tag 9):"), MetadataBody.ENTRY_SCHEMA);
        requireTable(table(spec, "Property (group under tag 10):"), MetadataBody.PROPERTY_SCHEMA);
    }

    private static void requireTable(List<String[]> rows, Schema<?> schema) {
        Map<Integer, String> stated = new LinkedHashMap<>();
        for (String[] row : rows) {
            stated.put(Integer.parseInt(row[0]), row[1]);
        }
        Map<Integer, String> code = new LinkedHashMap<>();
        for (int tag = 1; schema.getFieldName(tag) != null; tag++) {
            code.put(tag, schema.getFieldName(tag));
        }
        assertThat(stated).as("the tags of %s", schema.messageName()).isEqualTo(code);
    }

    @Test
    void theNamesOfTheLayoutAreTheOnesTheCodeWrites() throws IOException {
        String spec = spec();
        assertThat(spec).contains("`" + MetadataCodec.FILE_NAME + "`", "`<savepointRoot>/" + RootMarker.NAME + "`",
                StorageLayout.INDEX_DIR + "/", StorageLayout.STAGING_DIR + "/",
                "`<attemptId>" + AttemptId.LEASE_SUFFIX + "`", "`<attemptId>" + AttemptId.OUTCOME_SUFFIX + "`",
                "`<attemptId>" + GcPlanner.TOMBSTONE_MARK + "<16 hex>/`",
                "`<attemptId>" + AttemptId.OUTCOME_SUFFIX + StagedFiles.TEMP_MARK + "<16 hex>`",
                "`<savepointId>.<16 hex>" + SavepointDeletion.RECORD_SUFFIX + "`");

        String template = AttemptId.payloadName(7, "ATTEMPT").replace("7", "<pid>")
                .replace("ATTEMPT", "<attemptId>");
        assertThat(spec).contains("\n" + template + "\n");

        String savepointId = "sp-1764570000000-1a2b3c4d";
        assertThat(SavepointRequest.generateId(1_764_570_000_000L)).matches("sp-1764570000000-[0-9a-f]{8}");
        assertThat(spec).contains("(`" + savepointId + "`)");
        Matcher example = Pattern.compile("`(pipeline-1\\.[^`]+\\.wire)`").matcher(spec);
        assertThat(example.find()).as("the spec's example payload name").isTrue();
        assertThat(AttemptId.ofPayloadName(savepointId, example.group(1)))
                .as("the attempt in the example payload name").hasValueSatisfying(attempt ->
                        assertThat(attempt.payloadName(1)).isEqualTo(example.group(1)));
    }

    @Test
    void theIndexMarkerExampleIsWhatTheCodeWritesAndReads() throws IOException {
        String spec = spec();
        assertThat(spec).contains("<pid>_<checkpointId>[,<pid>_<checkpointId>...]~<completedTimestamp>@<savepointId>");
        Matcher m = Pattern.compile("Example: `([^`]+)`").matcher(spec);
        assertThat(m.find()).as("the spec's example marker").isTrue();
        String example = m.group(1);

        String zeros = "0".repeat(64);
        SavepointMeta meta = new SavepointMeta(1, "sp-1764570000000-1a2b3c4d", "job", SavepointKind.MANUAL, "test",
                1_764_570_000_000L, 1_764_570_000_123L, "engine-wire-v1",
                List.of(new ManifestEntry(2, 42, "b.wire", 0, zeros), new ManifestEntry(1, 42, "a.wire", 0, zeros)),
                Map.of());
        assertThat(StorageLayout.indexMarker(meta)).hasValue(example);
        StorageLayout.Marker parsed = StorageLayout.parseMarker(example).orElseThrow();
        assertThat(parsed.completed()).hasValue(1_764_570_000_123L);
        assertThat(parsed.savepointId()).isEqualTo("sp-1764570000000-1a2b3c4d");
    }

    @Test
    void theNewestMarkersAreNamedAsTheCodeWritesAndReadsThem() throws IOException {
        String spec = spec();
        assertThat(spec).contains(NewestMarkers.DIR + "/", "`" + NewestMarkers.SENTINEL_PREFIX + "<K>`",
                "`<K>` = " + NewestMarkers.KEPT + " ",
                "\n<pid>_<checkpointId>[,<pid>_<checkpointId>...]~<completedTimestamp>@<attemptId>\n@<attemptId>\n");
        Matcher m = Pattern.compile("Example:\\s+`([^`]+\\.[0-9a-f]{16})`").matcher(spec);
        assertThat(m.find()).as("the spec's example newest marker").isTrue();
        String zeros = "0".repeat(64);
        SavepointMeta meta = new SavepointMeta(1, "sp-1764570000000-1a2b3c4d", "job", SavepointKind.MANUAL, "test",
                1_764_570_000_000L, 1_764_570_000_123L, "engine-wire-v1",
                List.of(new ManifestEntry(2, 42, "b.wire", 0, zeros), new ManifestEntry(1, 42, "a.wire", 0, zeros)),
                Map.of());
        assertThat(NewestMarkers.name(meta, new AttemptId("sp-1764570000000-1a2b3c4d", "0f1e2d3c4b5a6978"))).isEqualTo(m.group(1));
        NewestMarkers.Marker parsed = NewestMarkers.parse(m.group(1)).orElseThrow();
        assertThat(parsed.savepointId()).isEqualTo("sp-1764570000000-1a2b3c4d");
        assertThat(parsed.claims()).isEqualTo(Map.of(1, 42L, 2, 42L));
        assertThat(NewestMarkers.parse("@sp-1.0f1e2d3c4b5a6978").orElseThrow().claimed()).isFalse();
        assertThat(NewestMarkers.sentinelKept(NewestMarkers.SENTINEL)).hasValue(NewestMarkers.KEPT);
    }

    @Test
    void theDigestTestVectorsAreWhatTheCodeDerives() throws IOException {
        List<String[]> rows = table(spec(), "Test vectors, with `chunkSize` 1,048,576");
        assertThat(rows).hasSize(2);
        byte[][] payloads = {new byte[0], "abc".getBytes(StandardCharsets.US_ASCII)};
        for (int i = 0; i < payloads.length; i++) {
            byte[] payload = payloads[i];
            byte[] chunkDigests = payload.length == 0 ? new byte[0] : sha256(payload);
            if (payload.length > 0) {
                assertThat(unquote(rows.get(i)[1])).isEqualTo(HexFormat.of().formatHex(chunkDigests));
            }
            String derived = ChunkDigests.of(ChunkDigests.CHUNK_SIZE, chunkDigests).fileDigestHex(payload.length);
            assertThat(unquote(rows.get(i)[2])).as("tag 5 of row %s", rows.get(i)[0]).isEqualTo(derived);
        }
    }

    private static SavepointMeta meta(int version) {
        byte[] payload = "abc".getBytes(StandardCharsets.US_ASCII);
        ManifestEntry entry = version >= MetadataCodec.FIRST_CHUNKED_VERSION
                ? new ManifestEntry(1, 5, "pipeline-1.wire", payload.length,
                        ChunkDigests.of(ChunkDigests.CHUNK_SIZE, sha256(payload)).fileDigestHex(payload.length),
                        ChunkDigests.of(ChunkDigests.CHUNK_SIZE, sha256(payload)))
                : new ManifestEntry(1, 5, "pipeline-1.wire", payload.length, HexFormat.of().formatHex(sha256(payload)));
        return new SavepointMeta(version, "sp-1", "job", SavepointKind.MANUAL, "test", 1L, 2L, "engine-wire-v1",
                List.of(entry), Map.of("k", "v"));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
