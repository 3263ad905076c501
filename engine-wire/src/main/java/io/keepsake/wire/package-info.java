/**
 * Byte formats of the engine's checkpoint model: {@link io.keepsake.wire.CheckpointWireCodec}
 * (engine-wire-v1, the savepoint payload format, with frozen protostuff tags on the
 * {@code Wire*} transfer objects) and {@link io.keepsake.wire.LegacyCheckpointCodec} (legacy v0,
 * what SeaTunnel 2.3.x writes to its checkpoint files).
 */
package io.keepsake.wire;
