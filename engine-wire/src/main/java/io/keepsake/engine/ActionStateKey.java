package io.keepsake.engine;

/**
 * Identifies one action (a source, transform or sink instance) whose state a checkpoint holds.
 *
 * <p>The name must be well-formed UTF-16 (no unpaired surrogate), because every format writes it as
 * UTF-8 and an unpaired surrogate cannot survive that round trip. The empty name is allowed.
 *
 * @param name the action's state name; never null
 */
public record ActionStateKey(String name) {

    /** Validates the components (and copies collections). */
    public ActionStateKey {
        Checks.notNull(name, "action state key", "name");
        int bad = firstUnpairedSurrogate(name);
        Checks.check(bad < 0, "action state key", "name has an unpaired surrogate at index " + bad, name);
    }

    /** Returns the key with the given name. */
    public static ActionStateKey of(String name) {
        return new ActionStateKey(name);
    }

    private static int firstUnpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            } else if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }
}
