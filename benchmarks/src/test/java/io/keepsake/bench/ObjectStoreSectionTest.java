package io.keepsake.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the object-store section once on tiny sizes (one round, 3 and 12 savepoints), SeaTunnel's
 * S3A storage in its child JVM and the Azure rows on Azurite included, and checks the structure of
 * what it returns: every row is there with a verdict, and every operation of both sides (on Azure:
 * Keepsake and the SDK's floor) was seen making requests. Times, ratios and S3 verdicts are not checked.
 */
class ObjectStoreSectionTest {

    private static final Pattern TABLE_ROW = Pattern.compile(
            "\\| (.+?) \\| (0|20) ms \\| [^|]+ \\| [^|]+ \\| [^|]+ \\| (\\d+)(?: \\(\\d+\\))? / (\\d+|-)(?: \\(\\d+\\))?"
                    + " \\| (\\d+) / (\\d+|-) \\| [^|]+ \\|");

    @Test
    void tinyRunHasEveryRowAndRequestsOnBothSides() throws Exception {
        System.setProperty(ObjectStoreSection.TINY_PROPERTY, "true");
        ReportSection.Result result;
        try {
            result = new ObjectStoreSection().run(ReportOptions.tiny(BenchFiles.baseDirectory()));
        } finally {
            System.clearProperty(ObjectStoreSection.TINY_PROPERTY);
        }
        List<GoalRow> expected = new ObjectStoreSection().notRun("-");
        assertThat(result.rows()).hasSize(expected.size());
        assertThat(result.rows()).allSatisfy(row -> {
            assertThat(row.verdict()).as(row.comparison() + ": " + row.spread()).isNotEqualTo(GoalRow.Verdict.NOT_RUN);
            assertThat(row.measured()).isNotBlank();
        });

        assertThat(result.rows()).filteredOn(row -> row.comparison().startsWith("Azure: ")).hasSize(6)
                .allSatisfy(row -> {
                    assertThat(row.verdict()).isEqualTo(GoalRow.Verdict.REPORTED);
                    assertThat(row.measured()).matches("[0-9.]+x of the floor; requests \\d+ vs \\d+, round trips"
                            + " \\d+ vs \\d+");
                });

        assertThat(result.tables()).hasSize(2);
        List<String> lines = result.tables().get(0).lines().filter(l -> TABLE_ROW.matcher(l).matches()).toList();
        // 9 rows (7 compared, 2 lists of Keepsake alone), each at 0 and 20 ms
        assertThat(lines).hasSize(18);
        for (String line : lines) {
            Matcher m = TABLE_ROW.matcher(line);
            assertThat(m.matches()).isTrue();
            assertThat(Integer.parseInt(m.group(3))).as(line).isPositive();
            assertThat(Integer.parseInt(m.group(5))).as(line).isPositive();
            if (!m.group(1).startsWith("list of a job")) {
                assertThat(Integer.parseInt(m.group(4))).as(line).isPositive();
                assertThat(Integer.parseInt(m.group(6))).as(line).isPositive();
            }
        }
        // the Azure table: 6 rows (Keepsake beside the SDK's floor), each at 0 and 20 ms, requests on both sides
        List<String> azure = result.tables().get(1).lines().filter(l -> TABLE_ROW.matcher(l).matches()).toList();
        assertThat(azure).hasSize(12);
        for (String line : azure) {
            Matcher m = TABLE_ROW.matcher(line);
            assertThat(m.matches()).isTrue();
            assertThat(m.group(1)).startsWith("Azure: ");
            for (int group : new int[] {3, 4, 5, 6}) {
                assertThat(Integer.parseInt(m.group(group))).as(line).isPositive();
            }
        }
    }
}
