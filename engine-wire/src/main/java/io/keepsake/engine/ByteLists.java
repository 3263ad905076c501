package io.keepsake.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Helpers for lists of byte arrays that may hold null elements. */
final class ByteLists {

    private ByteLists() {
    }

    /** Copies the list (not the arrays) into an unmodifiable list that keeps null elements. */
    static List<byte[]> copy(List<byte[]> list) {
        return Collections.unmodifiableList(new ArrayList<>(list));
    }

    static boolean deepEquals(List<byte[]> a, List<byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    static int deepHashCode(List<byte[]> list) {
        int h = 1;
        for (byte[] element : list) {
            h = 31 * h + Arrays.hashCode(element);
        }
        return h;
    }

    static String describe(List<byte[]> list) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < list.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            byte[] element = list.get(i);
            b.append(element == null ? "null" : element.length + " bytes");
        }
        return b.append(']').toString();
    }
}
