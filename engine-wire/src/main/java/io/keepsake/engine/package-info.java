/**
 * The engine's side of Keepsake: its runtime checkpoint model and the two entry points a job
 * master calls to turn that model into savepoints.
 *
 * <p>The model ({@link io.keepsake.engine.CompletedCheckpoint} and the values under it) is what a
 * pipeline coordinator holds after a checkpoint completes and what it is handed back on restore.
 * Each is an immutable value with deep value equality (byte arrays are compared by content), so
 * a decoded checkpoint can be compared with the original as a whole; none of the model types
 * knows a byte format.
 *
 * <p>The entry points do: {@link io.keepsake.engine.SavepointSaveSession} (one savepoint of one
 * job: encodes each reported checkpoint with the engine-wire-v1 codec of {@code io.keepsake.wire}
 * and streams it into the storage's staged writer) and
 * {@link io.keepsake.engine.RetainedCheckpoints} (promotes a failed job's latest checkpoints,
 * given or read from the legacy checkpoint storage and decoded with the legacy v0 codec, into a
 * retained-checkpoint savepoint through such a session). They sit
 * here, beside the model, because the engine calls them with model values; the byte formats
 * themselves live only in {@code io.keepsake.wire}.
 */
package io.keepsake.engine;
