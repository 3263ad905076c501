/**
 * What object-store backends (S3, Azure Blob) share and a file-system backend does not need: the
 * file-system primitives over name prefixes and their error wording, directory listings built from
 * a flat listing, the check that a store enforces create-if-absent on both requests that publish
 * an object, an output stream that buffers writes into fixed-size blocks and publishes them with
 * one conditional request, and the parsers of their settings' values. A backend supplies the
 * store-specific requests; the logic around them is written once here.
 */
package io.keepsake.storage.spi.objectstore;
