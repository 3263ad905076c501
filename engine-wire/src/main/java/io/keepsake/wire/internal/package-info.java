/**
 * Implementation detail of the wire codecs: the bounded protostuff-format reader and the pinned
 * legacy layout. Nothing here is API; it may change in any release.
 */
package io.keepsake.wire.internal;
