/**
 * Keepsake's public storage API: the legacy {@link io.keepsake.storage.CheckpointStorage} SPI that
 * engines call today (byte-compatible with SeaTunnel 2.3.x), the optional
 * {@link io.keepsake.storage.SavepointStorage} capability, {@link io.keepsake.storage.KeepsakeStorage}
 * which is both over one backend, factory discovery ({@link io.keepsake.storage.CheckpointStorageFactories}),
 * the {@link io.keepsake.storage.StorageListener} an engine hooks to observe it, the values they
 * exchange and the typed errors. Implementation detail lives in
 * {@code io.keepsake.storage.internal} and is not API; what a backend implements is in
 * {@code io.keepsake.storage.spi}.
 */
package io.keepsake.storage;
