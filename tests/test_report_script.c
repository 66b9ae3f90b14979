/* test_report_script.c — the report page's script does what a reader asks of it: run in Node.js
 * against a stand-in for the DOM built from the page (tests/report_script_check.js: on load, the
 * word finder, selecting a topic the finder dimmed, clearing it). Skipped where there is no node
 * (scripts/install-deps.sh --test installs it). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

Test(report_script, a_topic_the_finder_dimmed_still_shows_when_selected)
{
    int status;
    free(test_shell("command -v node", &status));
    if (status != 0)
        cr_skip_test("no node (scripts/install-deps.sh --test installs it)");
    char *dir = test_tmpdir(), args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s/data/wiki2k.txt.gz' -K 6 -n 5 --device cpu -q -o '%s/m'", test_root(), dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    /* 5 words a topic, so that a word one topic lists another does not */
    snprintf(args, sizeof args, "report '%s/m' --top 5 -o '%s/report.html'", dir, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "node '%s/tests/report_script_check.js' '%s/report.html' 2>&1", test_root(), dir);
    out = test_shell(cmd, &status);
    cr_assert_eq(status, 0, "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
}
