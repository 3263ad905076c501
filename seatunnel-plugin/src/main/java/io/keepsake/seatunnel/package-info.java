/**
 * SeaTunnel 2.3.x's own checkpoint storage SPI (factory id {@code keepsake}) on Keepsake's
 * backends, so the SeaTunnel engine keeps its savepoints; packaged as {@code keepsake-seatunnel.jar}.
 */
package io.keepsake.seatunnel;
