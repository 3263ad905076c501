package io.keepsake.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The specification of one configuration key: its name, how its text becomes a value, its default,
 * what it means and which values are valid. Settings are read from a table of these instead of by
 * hand, so every key is parsed and refused the same way: a value that does not parse, or breaks a
 * rule, is an {@link InvalidStorageArgumentException} shaped {@code "Cannot configure <what>: <key>
 * <problem> (<value as given>)"}. The text is trimmed before it is parsed. Immutable and thread-safe.
 *
 * @param <T> the type of the value
 */
public final class ConfigOption<T> {

    private final String key;
    private final String description;
    private final T defaultValue;
    private final Function<String, T> parser;
    private final String parseProblem;
    private final List<Rule<T>> rules;

    private record Rule<T>(Predicate<T> valid, String problem) {
    }

    private ConfigOption(String key, String description, T defaultValue, Function<String, T> parser,
                         String parseProblem, List<Rule<T>> rules) {
        this.key = Objects.requireNonNull(key, "key");
        this.description = Objects.requireNonNull(description, "description");
        this.defaultValue = defaultValue;
        this.parser = Objects.requireNonNull(parser, "parser");
        this.parseProblem = Objects.requireNonNull(parseProblem, "parseProblem");
        this.rules = List.copyOf(rules);
    }

    /**
     * A key whose trimmed text {@code parser} turns into a value; a parser that throws a
     * {@link RuntimeException} refuses the text with {@code parseProblem}.
     *
     * @param defaultValue the value when the key is absent; null for none
     */
    public static <T> ConfigOption<T> of(String key, String description, T defaultValue, String parseProblem,
                                         Function<String, T> parser) {
        return new ConfigOption<>(key, description, defaultValue, parser, parseProblem, List.of());
    }

    /** A text key, trimmed. */
    public static ConfigOption<String> text(String key, String description, String defaultValue) {
        return of(key, description, defaultValue, "is not text", v -> v);
    }

    /** An {@code int} key; text that is not one is refused with {@code problem}. */
    public static ConfigOption<Integer> integer(String key, String description, Integer defaultValue, String problem) {
        return of(key, description, defaultValue, problem, Integer::parseInt);
    }

    /** A {@code long} key; text that is not one is refused with {@code problem}. */
    public static ConfigOption<Long> longInteger(String key, String description, Long defaultValue, String problem) {
        return of(key, description, defaultValue, problem, Long::parseLong);
    }

    /** A {@code true}/{@code false} key, ignoring case; anything else is refused with "must be true or false". */
    public static ConfigOption<Boolean> bool(String key, String description, Boolean defaultValue) {
        return of(key, description, defaultValue, "must be true or false", v -> switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(v);
        });
    }

    /** This option with one more rule: a parsed value that {@code valid} refuses is refused with {@code problem}. */
    public ConfigOption<T> check(Predicate<T> valid, String problem) {
        List<Rule<T>> more = new ArrayList<>(rules);
        more.add(new Rule<>(Objects.requireNonNull(valid, "valid"), Objects.requireNonNull(problem, "problem")));
        return new ConfigOption<>(key, description, defaultValue, parser, parseProblem, more);
    }

    /** The key. */
    public String key() {
        return key;
    }

    /** What the key means, for documentation and help. */
    public String description() {
        return description;
    }

    /** The value when the key is absent, or null. */
    public T defaultValue() {
        return defaultValue;
    }

    /** True when {@code config} gives this key. */
    public boolean isSet(Map<String, String> config) {
        return config.get(key) != null;
    }

    /**
     * The key's value in {@code config}, or the default when it is absent (the default is not checked).
     *
     * @param what what is being configured, as messages name it ("s3 storage")
     * @throws InvalidStorageArgumentException when the text does not parse or a rule refuses the value
     */
    public T read(Map<String, String> config, String what) {
        String text = config.get(key);
        if (text == null) {
            return defaultValue;
        }
        T value;
        try {
            value = parser.apply(text.trim());
        } catch (RuntimeException e) {
            throw invalid(what, parseProblem, text);
        }
        for (Rule<T> rule : rules) {
            if (!rule.valid().test(value)) {
                throw invalid(what, rule.problem(), text);
            }
        }
        return value;
    }

    /** A refusal of {@code text} given for this key, saying why. */
    public InvalidStorageArgumentException invalid(String what, String problem, String text) {
        return new InvalidStorageArgumentException("Cannot configure " + what + ": " + key + " " + problem + " ("
                + text + ")");
    }

    @Override
    public String toString() {
        return key;
    }
}
