/**
 * The {@code keepsake} operator command line (list, inspect, verify, delete, gc, migrate, demo).
 * An application, not a library: its classes are not API.
 */
package io.keepsake.tool;
