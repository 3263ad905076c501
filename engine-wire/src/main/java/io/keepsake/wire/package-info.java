/**
 * Byte formats of the engine's checkpoint model. The API is two codecs:
 * {@link io.keepsake.wire.CheckpointWireCodec} (engine-wire-v1, the savepoint payload format) and
 * {@link io.keepsake.wire.LegacyCheckpointCodec} (legacy v0, what SeaTunnel 2.3.x writes to its
 * checkpoint files).
 *
 * <p>Everything else here is package-private implementation: the {@code Wire*} transfer objects
 * with their frozen protostuff tags and hand-written schemas, the pinned legacy layout
 * ({@code LegacyLayout}, written by {@code LegacyV0Writer} and read by {@code LegacyV0Reader}), and
 * the bounded protostuff-format reader ({@code BoundedInput}) that both decoders read untrusted
 * bytes through. None of it is API; it may change in any release, but the bytes it reads and
 * writes may not.
 */
package io.keepsake.wire;
