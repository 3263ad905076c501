package io.keepsake.reader;

import io.keepsake.storage.KeepsakeStorage;
import io.keepsake.storage.localfile.LocalFileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * A test class whose tests each get a storage of the local backend on a fresh folder
 * ({@code temp/ns}), closed after the test; a subclass's own {@code @BeforeEach} runs after it
 * is opened.
 */
abstract class OnLocalStorage {

    @TempDir
    Path temp;

    /** The storage of the running test. */
    KeepsakeStorage storage;

    @BeforeEach
    void openStorage() {
        storage = KeepsakeStorage.open(new LocalFileSystem(), temp.resolve("ns").toString(), null);
    }

    @AfterEach
    void closeStorage() {
        storage.close();
    }
}
