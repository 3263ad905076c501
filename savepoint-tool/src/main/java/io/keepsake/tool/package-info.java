/**
 * The {@code keepsake} operator command line (list, inspect, verify, delete, gc, migrate, prepare-restore, demo).
 * An application, not a library: its classes are not API.
 */
package io.keepsake.tool;
