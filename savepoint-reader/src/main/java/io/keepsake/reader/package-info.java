/**
 * Reading state back: {@link io.keepsake.reader.SavepointRestorer} for crash recovery
 * ({@code recoverLatest}) and for restoring a chosen savepoint ({@code restoreSavepoint},
 * {@code restoreSavepointAt}), what a restore returns ({@link io.keepsake.reader.RestoredState}),
 * and the registry of one reader per savepoint format version.
 */
package io.keepsake.reader;
