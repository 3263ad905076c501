package io.keepsake.tool.internal;

import io.keepsake.reader.SavepointReaderRegistry;
import io.keepsake.storage.ManifestEntry;
import io.keepsake.storage.SavepointCorruptedException;
import io.keepsake.storage.SavepointHandle;
import io.keepsake.storage.SavepointIncompatibleException;
import io.keepsake.storage.SavepointNotFoundException;
import io.keepsake.storage.SavepointResourcesExhaustedException;
import io.keepsake.storage.SavepointStorage;
import io.keepsake.storage.SavepointStorageException;

import java.util.List;

/**
 * Reads every byte of one savepoint once and decodes it, turning the typed errors into an outcome
 * the tool can print: {@link SavepointStorage#readMetadata} checks the metadata, then the
 * registry's reader for the format version streams each payload through the storage's verifying
 * stream, which checks its length and SHA-256 while the reader decodes it and drops the decoded
 * state (so memory stays bounded whatever the savepoint's size). Stateless and
 * thread-safe.
 */
public final class SavepointVerifier {

    /** How a savepoint fared. */
    public enum Verdict {
        /** Every byte verified and every payload decoded. */
        OK,
        /** The savepoint could not be read back; see the failure. */
        FAILED
    }

    /** Why a savepoint failed, coarse enough to choose an exit code. */
    public enum Failure {
        NONE("none"), CORRUPTED("corrupted"), INCOMPATIBLE("incompatible"), RESOURCES_EXHAUSTED("resources exhausted"),
        NOT_FOUND("not found"), ERROR("error");

        private final String word;

        Failure(String word) {
            this.word = word;
        }

        /** The word the tool prints. */
        public String word() {
            return word;
        }
    }

    /**
     * The outcome of verifying one savepoint.
     *
     * @param jobId       the job
     * @param savepointId the savepoint
     * @param verdict     ok or failed
     * @param failure     why it failed; {@link Failure#NONE} when ok
     * @param message     the typed exception's message; empty when ok
     * @param file        the file that failed to verify, when known
     * @param pipelines   the pipelines that decoded, in order (empty when failed)
     * @param bytes       how many payload bytes were read and verified (0 when failed)
     * @param handle      the savepoint as its verified metadata describes it; null when the metadata failed
     * @param formatVersion the format version found, when known (from the metadata, or from the refusal)
     */
    public record Outcome(String jobId, String savepointId, Verdict verdict, Failure failure, String message,
                          String file, List<Integer> pipelines, long bytes, SavepointHandle handle,
                          Integer formatVersion) {

        public Outcome {
            pipelines = List.copyOf(pipelines);
        }

        /** True when every byte verified. */
        public boolean ok() {
            return verdict == Verdict.OK;
        }
    }

    private SavepointVerifier() {
    }

    /** Verifies one savepoint; never throws a {@link SavepointStorageException}, it reports it. */
    public static Outcome verify(SavepointStorage storage, SavepointReaderRegistry registry, String jobId,
                                 String savepointId) {
        SavepointHandle handle = null;
        try {
            handle = storage.readMetadata(jobId, savepointId);
            List<Integer> pipelines = registry.check(storage, handle);
            // The reader consumed every payload to its end, so each length and SHA-256 was checked.
            long bytes = handle.meta().manifest().stream().mapToLong(ManifestEntry::length).sum();
            return new Outcome(jobId, savepointId, Verdict.OK, Failure.NONE, "", null, pipelines, bytes, handle,
                    handle.meta().formatVersion());
        } catch (SavepointCorruptedException e) {
            return failed(jobId, savepointId, Failure.CORRUPTED, e, e.file(), handle, null);
        } catch (SavepointIncompatibleException e) {
            return failed(jobId, savepointId, Failure.INCOMPATIBLE, e, null, handle, e.foundVersion());
        } catch (SavepointResourcesExhaustedException e) {
            return failed(jobId, savepointId, Failure.RESOURCES_EXHAUSTED, e, null, handle, null);
        } catch (SavepointNotFoundException e) {
            return failed(jobId, savepointId, Failure.NOT_FOUND, e, null, handle, null);
        } catch (SavepointStorageException e) {
            return failed(jobId, savepointId, Failure.ERROR, e, null, handle, null);
        }
    }

    private static Outcome failed(String jobId, String savepointId, Failure failure, SavepointStorageException e,
                                  String file, SavepointHandle handle, Integer foundVersion) {
        Integer version = handle != null ? Integer.valueOf(handle.meta().formatVersion()) : foundVersion;
        return new Outcome(jobId, savepointId, Verdict.FAILED, failure, String.valueOf(e.getMessage()), file, List.of(), 0,
                handle, version);
    }
}
