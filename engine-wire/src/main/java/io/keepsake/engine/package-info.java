/**
 * The engine's runtime checkpoint model: what a pipeline coordinator holds after a checkpoint
 * completes and what it is handed back on restore.
 *
 * <p>Every type here is an immutable value with deep value equality (byte arrays are compared by
 * content), so a decoded checkpoint can be compared with the original as a whole. None of these
 * types knows about any byte format; the codecs in {@code io.keepsake.wire} map them to and from
 * bytes.
 */
package io.keepsake.engine;
