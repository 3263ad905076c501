/**
 * Keepsake's side of the SeaTunnel 2.3.8 engine overlay: what the patched
 * {@code CheckpointManager} and {@code CheckpointCoordinator} call to save a job's savepoint as one
 * Keepsake bundle and to restore through the savepoint reader registry.
 */
package io.keepsake.seatunnel.engine;
