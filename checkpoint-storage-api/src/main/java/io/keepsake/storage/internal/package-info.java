/**
 * Implementation detail, not API: the layout, the legacy checkpoint store, the savepoint store and
 * its staged writer (the one commit protocol), garbage collection, the metadata codec, name
 * validation and the hashing and verifying streams, and the crash-recovery lookup
 * ({@code NewestSavepoints}). Nothing outside {@code checkpoint-storage-api} should import it,
 * except the savepoint reader, whose recovery chooses through {@code NewestSavepoints}, and the
 * contract kit, which counts that lookup's reads on every backend; tests of the backends may reach
 * {@code ComposedStorage} for its file system.
 */
package io.keepsake.storage.internal;
