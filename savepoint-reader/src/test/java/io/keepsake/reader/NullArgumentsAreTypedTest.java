package io.keepsake.reader;

import io.keepsake.engine.SavepointSaveSession;
import io.keepsake.storage.InvalidStorageArgumentException;
import io.keepsake.storage.SavepointHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The restore and save entries (the restorer, the reader registry, the save session and the
 * restored state) refuse a null with an {@link InvalidStorageArgumentException} naming it, never
 * a {@link NullPointerException}.
 */
class NullArgumentsAreTypedTest extends OnLocalStorage {


    private SavepointHandle save() {
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, "42", List.of(1)).open()) {
            session.report(TestCheckpoints.savepointOf(42, 1, 7));
            session.pipelineSuspended(1);
            return session.commit();
        }
    }

    @Test
    void nullArgumentsOfRestoreAndSaveEntriesAreTypedErrorsNamingTheArgument() {
        SavepointHandle h = save();
        SavepointReaderRegistry registry = SavepointReaderRegistry.standard();
        SavepointRestorer restorer = new SavepointRestorer(storage);
        List<Map.Entry<String, Executable>> calls = List.of(
                Map.entry("storage", () -> registry.read(null, h)),
                Map.entry("handle", () -> registry.read(storage, null)),
                Map.entry("storage", () -> registry.check(null, h)),
                Map.entry("handle", () -> registry.check(storage, null)),
                Map.entry("job id", () -> restorer.recoverLatest(null)),
                Map.entry("job id", () -> restorer.restoreSavepoint(null, h.savepointId())),
                Map.entry("savepoint id", () -> restorer.restoreSavepoint("42", null)),
                Map.entry("storage", () -> SavepointSaveSession.builder(null, "42", List.of(1))),
                Map.entry("expectedPipelines", () -> SavepointSaveSession.builder(storage, "42", null)),
                Map.entry("expectedPipelines", () -> SavepointSaveSession.builder(storage, "42",
                        Arrays.asList(1, null))),
                Map.entry("kind", () -> SavepointSaveSession.builder(storage, "42", List.of(1)).kind(null)),
                Map.entry("source", () -> new RestoredState(null, Optional.empty(), Map.of(), Map.of(), List.of())),
                Map.entry("savepoint", () -> new RestoredState(RestoredState.Source.SAVEPOINT, null, Map.of(),
                        Map.of(), List.of())),
                Map.entry("checkpoints", () -> new RestoredState(RestoredState.Source.SAVEPOINT, Optional.empty(),
                        null, Map.of(), List.of())),
                Map.entry("warnings", () -> new RestoredState(RestoredState.Source.SAVEPOINT, Optional.empty(),
                        Map.of(), Map.of(), null)),
                Map.entry("location", () -> new RestoredState.Origin(1L, Optional.empty(), null)));
        for (Map.Entry<String, Executable> call : calls) {
            InvalidStorageArgumentException e = assertThrows(InvalidStorageArgumentException.class, call.getValue(),
                    "a null " + call.getKey() + " must be a typed error");
            assertThat(e.getMessage()).as(call.getKey()).startsWith("Cannot ").contains(call.getKey())
                    .contains("null");
        }
    }

    @Test
    void aNullCheckpointReportedToASessionIsATypedError() {
        try (SavepointSaveSession session = SavepointSaveSession.builder(storage, "42", List.of(1)).open()) {
            InvalidStorageArgumentException e = assertThrows(InvalidStorageArgumentException.class,
                    () -> session.report(null));
            assertThat(e.getMessage()).startsWith("Cannot report checkpoint").contains("checkpoint is null");
        }
    }
}
