/**
 * Implementation detail, not API: the layout, the legacy checkpoint store, the savepoint store and
 * its staged writer (the one commit protocol), garbage collection, the metadata codec, name
 * validation and the hashing and verifying streams. Nothing outside {@code checkpoint-storage-api}
 * should import it; tests of the backends may reach {@code ComposedStorage} for its file system.
 */
package io.keepsake.storage.internal;
