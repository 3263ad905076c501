package io.keepsake.seatunnel;

import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Records how long a passing engine scenario took, from its first statement to its last, as the
 * figure named {@link #value()} in milliseconds ({@link Figures}); a failing one records nothing.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(TimedScenario.Timer.class)
@interface TimedScenario {

    /** The figure's name, ending in its unit ({@code ..., ms}). */
    String value();

    /** Starts the clock just before the test method runs and records the figure after it passed. */
    final class Timer implements BeforeTestExecutionCallback, AfterTestExecutionCallback {

        private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(Timer.class);

        @Override
        public void beforeTestExecution(ExtensionContext context) {
            context.getStore(STORE).put("start", System.nanoTime());
        }

        @Override
        public void afterTestExecution(ExtensionContext context) {
            long start = context.getStore(STORE).remove("start", long.class);
            if (context.getExecutionException().isEmpty()) {
                String figure = context.getRequiredTestMethod().getAnnotation(TimedScenario.class).value();
                Figures.record(figure, KeepsakePluginScenariosTest.millisSince(start));
            }
        }
    }
}
