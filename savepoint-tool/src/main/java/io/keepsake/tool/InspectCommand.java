package io.keepsake.tool;

import io.keepsake.engine.ActionState;
import io.keepsake.engine.CompletedCheckpoint;
import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.ChunkDigests;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointMeta;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.tool.internal.Formats;
import io.keepsake.tool.internal.Json;
import io.keepsake.tool.internal.SavepointRecord;
import io.keepsake.tool.internal.SavepointStatus;
import io.keepsake.tool.internal.TextTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code keepsake inspect JOB SAVEPOINT} or {@code keepsake inspect PATH}: everything the verified
 * metadata of one savepoint says; with {@code --decode}, also every payload read, verified and
 * decoded through the reader registry and summarised per action. A savepoint that does not verify,
 * or whose format version this build does not read, is still shown as far as it could be read,
 * with the reason (also on stderr), and exits 4 or 5; one that the tool's JVM ran out of heap or
 * stack decoding is shown the same way and exits 6; a savepoint that is not there exits 3, with
 * {@code --json} as the error document.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "Show the metadata and manifest of one savepoint; --decode also decodes every payload.")
public final class InspectCommand extends StorageCommand {

    @Parameters(arity = "1..2", paramLabel = "JOB SAVEPOINT | PATH",
            description = "The job id and savepoint id, or the savepoint's directory: a local path or"
                    + " file:// in both jars; hdfs://, s3://, s3a://, azure://, abfs[s]:// and wasb[s]:// in"
                    + " keepsake.jar.")
    List<String> arguments = new ArrayList<>();

    @Option(names = "--decode", description = "Read, verify and decode every payload and summarise its checkpoint.")
    boolean decode;

    @Option(names = "--chunks", description = "Also list each payload chunk's byte range and SHA-256 (format version 2),"
            + " the digests a message about a damaged chunk names.")
    boolean chunks;

    @Override
    SavepointTarget target() {
        SavepointTarget t = SavepointTarget.of("inspect", arguments);
        if (t.savepointId() == null) {
            throw new ToolUsageException("Cannot inspect: give JOB SAVEPOINT or a savepoint directory path ("
                    + String.join(" ", arguments) + ")");
        }
        return t;
    }

    /**
     * Reads the savepoint's metadata (and, with --decode, its payloads) and prints what it could read:
     * a savepoint that is corrupted or incompatible is still shown, with what is known and the reason,
     * and the exit code says what went wrong. Only a savepoint that is not there is an error.
     */
    @Override
    protected int run(OpenedStorage storage) throws Exception {
        SavepointTarget t = target();
        SavepointStorage savepoints = storage.savepoints();
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
        SavepointHandle handle = null;
        Map<Integer, CompletedCheckpoint> decoded = null;
        SavepointStatus status;
        try {
            handle = savepoints.readMetadata(t.jobId(), t.savepointId());
            registry.forVersion(handle.meta().formatVersion());
            decoded = decode ? registry.read(savepoints, handle) : null;
            status = new SavepointStatus(SavepointStatus.State.OK, "", null, handle.meta().formatVersion());
        } catch (SavepointCorruptedException e) {
            status = new SavepointStatus(SavepointStatus.State.CORRUPTED, e.getMessage(), e.file(), version(handle, null));
        } catch (SavepointIncompatibleException e) {
            status = new SavepointStatus(SavepointStatus.State.INCOMPATIBLE, e.getMessage(), null,
                    version(handle, e.foundVersion()));
        } catch (SavepointResourcesExhaustedException e) {
            // No file: "file" names a file that failed to verify, and this one did not; the reason names it.
            status = new SavepointStatus(SavepointStatus.State.RESOURCES_EXHAUSTED, e.getMessage(), null,
                    version(handle, null));
        }
        String location = handle != null ? handle.location() : SavepointRecord.locationOf(status.file());
        return render(new Inspection(t, location, handle, status, decoded, decode, chunks));
    }

    private static Integer version(SavepointHandle handle, Integer found) {
        return handle != null ? Integer.valueOf(handle.meta().formatVersion()) : found;
    }

    /**
     * What inspect read: the savepoint's metadata when it could be read, its status, and with
     * {@code decode} the decoded checkpoints when they read back; {@code chunks} lists chunk digests.
     */
    private record Inspection(SavepointTarget t, String location, SavepointHandle handle, SavepointStatus status,
                              Map<Integer, CompletedCheckpoint> decoded, boolean decode, boolean chunks)
            implements CommandResult {

        @Override
        public int exitCode() {
            return status.exitCode();
        }

        @Override
        public List<String> warnings() {
            return status.exitCode() == ExitCodes.OK ? List.of()
                    : List.of("keepsake inspect: " + status.state().word() + ": " + status.reason());
        }

        private SavepointMeta meta() {
            return handle == null ? null : handle.meta();
        }

        @Override
        public void putJson(Map<String, Object> doc) {
            SavepointMeta meta = meta();
            doc.put("job", t.jobId());
            doc.put("savepointId", t.savepointId());
            doc.put("location", location);
            doc.put("kind", meta == null ? null : meta.kind().stableName());
            doc.put("formatVersion", status.formatVersion());
            doc.put("supportedFormatVersions", List.of(SavepointReaderRegistry.MIN_SUPPORTED_FORMAT_VERSION,
                    SavepointReaderRegistry.CURRENT_FORMAT_VERSION));
            doc.put("producerVersion", meta == null ? null : meta.producerVersion());
            doc.put("triggered", meta == null ? null : Formats.time(meta.triggerTimestamp()));
            doc.put("completed", meta == null ? null : Formats.time(meta.completedTimestamp()));
            doc.put("payloadFormat", meta == null ? null : meta.payloadFormat());
            doc.put("pipelines", meta == null ? List.of() : Formats.pipelines(meta));
            doc.put("bytes", meta == null ? null : Formats.totalBytes(meta));
            doc.put("properties", meta == null ? null : new LinkedHashMap<>(meta.properties()));
            doc.put("manifest", meta == null ? null : meta.manifest().stream().map(this::manifestRecord).toList());
            doc.put("statusChecked", decode ? "payloads" : "metadata");
            doc.put("status", status.state().word());
            doc.put("reason", status.reasonOrNull());
            doc.put("file", status.file());
            doc.put("checkpoints", decoded == null ? null
                    : decoded.values().stream().map(Inspection::checkpointRecord).toList());
        }

        private Map<String, Object> manifestRecord(ManifestEntry e) {
            Map<String, Object> m = Json.fileRecord(e.pipelineId(), e.checkpointId(), "payloadFile", e.file(), e.length());
            m.put("sha256", e.sha256());
            m.put("chunkSize", e.chunks() == null ? null : e.chunks().chunkSize());
            m.put("chunks", chunks && e.chunks() != null ? chunkRecords(e) : null);
            return m;
        }

        private static Map<String, Object> checkpointRecord(CompletedCheckpoint cp) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("pipeline", cp.pipelineId());
            c.put("checkpoint", cp.checkpointId());
            c.put("type", cp.checkpointType().typeName());
            c.put("triggered", Formats.time(cp.triggerTimestamp()));
            c.put("completed", Formats.time(cp.completedTimestamp()));
            c.put("vertices", cp.taskStatistics().size());
            List<Map<String, Object>> actions = new ArrayList<>();
            for (ActionState a : cp.taskStates().values()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("action", a.stateKey().name());
                m.put("parallelism", a.parallelism());
                m.put("nonEmptySlots", Formats.nonEmptySlots(a));
                m.put("coordinatorState", a.coordinatorState() != null);
                m.put("bytes", Formats.stateBytes(a));
                actions.add(m);
            }
            c.put("actions", actions);
            return c;
        }

        @Override
        public void printText(PrintWriter out) {
            SavepointMeta meta = meta();
            printFacts(out, meta);
            if (meta == null) {
                out.println();
                out.println("The metadata could not be read, so nothing else is known; the reason is above.");
                return;
            }
            out.println();
            out.println("Properties" + (meta.properties().isEmpty() ? ": none" : ""));
            if (!meta.properties().isEmpty()) {
                TextTable props = new TextTable("KEY", "VALUE");
                meta.properties().forEach(props::row);
                props.printRows(out, "  ");
            }
            printManifest(out, meta);
            if (decode && decoded == null) {
                out.println();
                out.println("Decoded checkpoints: none shown, the savepoint did not read back ("
                        + status.state().word() + ")");
            }
            if (decoded != null) {
                printDecoded(out);
            }
        }

        private void printFacts(PrintWriter out, SavepointMeta meta) {
            String supported = "this build reads " + SavepointReaderRegistry.MIN_SUPPORTED_FORMAT_VERSION + " to "
                    + SavepointReaderRegistry.CURRENT_FORMAT_VERSION;
            TextTable facts = new TextTable("FIELD", "VALUE");
            facts.row("Savepoint", t.savepointId());
            facts.row("Job", t.jobId());
            facts.row("Location", location);
            if (meta == null) {
                facts.row("Format version", status.formatVersion() == null ? "unknown (" + supported + ")"
                        : status.formatVersion() + " (" + supported + ")");
                facts.row("Status", status.display());
                facts.printRows(out, "");
                return;
            }
            facts.row("Kind", meta.kind().stableName());
            facts.row("Format version", meta.formatVersion() + " (" + supported + ")");
            facts.row("Producer", meta.producerVersion());
            facts.row("Triggered", Formats.time(meta.triggerTimestamp()));
            facts.row("Completed", Formats.time(meta.completedTimestamp()));
            facts.row("Payload format", meta.payloadFormat());
            facts.row("Total bytes", Formats.totalBytes(meta));
            facts.row("Status", status.state() == SavepointStatus.State.OK
                    ? "ok (" + (decode ? "metadata and every payload verified" : "metadata verified; --decode reads every"
                    + " payload") + ")" : status.display());
            facts.printRows(out, "");
        }

        private void printManifest(PrintWriter out, SavepointMeta meta) {
            out.println();
            out.println("Manifest");
            TextTable manifest = new TextTable("PIPELINE", "CHECKPOINT", "FILE", "LENGTH", "PAYLOAD DIGEST");
            boolean chunked = false;
            for (ManifestEntry e : meta.manifest()) {
                manifest.row(e.pipelineId(), e.checkpointId(), e.file(), e.length(), e.sha256());
                chunked |= e.chunks() != null;
            }
            manifest.print(out, "  ");
            if (chunked) {
                out.println("  PAYLOAD DIGEST is derived from the payload's chunk digests (docs/formats.md), not the"
                        + " file's SHA-256;");
                out.println("  the message about a damaged chunk names that chunk's own SHA-256"
                        + (chunks ? ", listed below." : ": add --chunks to list them."));
            } else {
                out.println("  PAYLOAD DIGEST is the SHA-256 of the whole file, as sha256sum prints it.");
            }
            if (chunks && chunked) {
                printChunks(out, meta);
            }
        }

        private static void printChunks(PrintWriter out, SavepointMeta meta) {
            out.println();
            out.println("Chunks");
            TextTable table = new TextTable("FILE", "CHUNK", "BYTES", "SHA256");
            for (ManifestEntry e : meta.manifest()) {
                if (e.chunks() == null) {
                    continue;
                }
                for (Map<String, Object> c : chunkRecords(e)) {
                    long from = (Long) c.get("offset");
                    int length = (Integer) c.get("bytes");
                    table.row(e.file(), c.get("index"), from + " to " + (from + length - 1), c.get("sha256"));
                }
            }
            table.print(out, "  ");
        }

        private void printDecoded(PrintWriter out) {
            out.println();
            out.println("Decoded checkpoints (every payload's length and SHA-256 verified)");
            for (CompletedCheckpoint cp : decoded.values()) {
                out.println("  Pipeline " + cp.pipelineId() + ": checkpoint " + cp.checkpointId() + ", type "
                        + cp.checkpointType().typeName() + ", triggered " + Formats.time(cp.triggerTimestamp())
                        + ", completed " + Formats.time(cp.completedTimestamp()) + ", " + cp.taskStates().size()
                        + " action(s), " + cp.taskStatistics().size() + " vertex statistic(s)");
                TextTable actions = new TextTable("ACTION", "PARALLELISM", "NON-EMPTY SLOTS", "COORDINATOR",
                        "STATE BYTES");
                for (ActionState a : cp.taskStates().values()) {
                    actions.row(a.stateKey().name(), a.parallelism(), Formats.nonEmptySlots(a),
                            a.coordinatorState() != null ? "yes" : "no", Formats.stateBytes(a));
                }
                actions.print(out, "    ");
            }
        }
    }

    /** Each chunk of a format version 2 payload: index, byte offset, length and SHA-256. */
    private static List<Map<String, Object>> chunkRecords(ManifestEntry e) {
        List<Map<String, Object>> list = new ArrayList<>();
        ChunkDigests c = e.chunks();
        for (int i = 0; i < c.count(); i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("index", i);
            r.put("offset", c.offset(i));
            r.put("bytes", c.length(i, e.length()));
            r.put("sha256", c.sha256Hex(i));
            list.add(r);
        }
        return list;
    }
}
