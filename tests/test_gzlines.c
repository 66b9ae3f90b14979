/* test_gzlines.c — the line reader: line splitting across reads, '\r' stripping, line
 * numbers, the last line without '\n', and errors for missing and truncated files. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers_fixture.h"
#include "util/gzlines.h"

TestSuite(gzlines, .init = fixture_setup, .fini = fixture_teardown);

/* Reads every line of path into one string joined with '|'; asserts no error. */
static char *read_all(const char *path, size_t *lines)
{
    lda_error err = {0};
    gzlines *r = gzlines_open(path, &err);
    cr_assert_not_null(r, "%s", err.msg);
    size_t cap = 1 << 20, used = 0;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    out[0] = '\0';
    char *line;
    size_t len;
    *lines = 0;
    while ((line = gzlines_next(r, &len, &err))) {
        cr_assert_eq(strlen(line), len, "line %zu", gzlines_lineno(r));
        cr_assert_lt(used + len + 2, cap);
        used += (size_t)sprintf(out + used, "%s%s", *lines ? "|" : "", line);
        (*lines)++;
        cr_assert_eq(gzlines_lineno(r), *lines);
    }
    cr_assert_not(gzlines_failed(r), "%s", err.msg);
    gzlines_close(r);
    return out;
}

Test(gzlines, splits_lines_plain_and_gzip)
{
    for (int gz = 0; gz <= 1; gz++) {
        fixture_path p = fixture_write(gz ? "a.gz" : "a", "one\r\ntwo\n\nfour\r\nfive", gz);
        size_t lines;
        char *all = read_all(p.s, &lines);
        cr_assert_str_eq(all, "one|two||four|five");
        cr_assert_eq(lines, 5);
        free(all);
    }
}

Test(gzlines, empty_file_has_no_lines)
{
    size_t lines;
    char *all = read_all(fixture_write("e", "", 0).s, &lines);
    cr_assert_eq(lines, 0);
    free(all);
}

Test(gzlines, lines_across_read_blocks)
{
    /* Lines of every length from 0 to 1000 bytes, 700 KiB in all: many straddle blocks. */
    size_t total = 0;
    for (size_t n = 0; n <= 1000; n++)
        total += n + 1;
    char *text = malloc(total + 1);
    cr_assert_not_null(text);
    size_t pos = 0;
    for (size_t n = 0; n <= 1000; n++) {
        memset(text + pos, 'a' + (int)(n % 26), n);
        pos += n;
        text[pos++] = '\n';
    }
    text[pos] = '\0';
    for (int gz = 0; gz <= 1; gz++) {
        fixture_path p = fixture_write(gz ? "b.gz" : "b", text, gz);
        lda_error err = {0};
        gzlines *r = gzlines_open(p.s, &err);
        cr_assert_not_null(r);
        char *line;
        size_t len, n = 0;
        while ((line = gzlines_next(r, &len, &err))) {
            cr_assert_eq(len, n, "line %zu has %zu bytes", n + 1, len);
            for (size_t i = 0; i < len; i++)
                cr_assert_eq(line[i], 'a' + (int)(n % 26));
            n++;
        }
        cr_assert_eq(n, 1001);
        cr_assert_not(gzlines_failed(r));
        gzlines_close(r);
    }
    free(text);
}

Test(gzlines, missing_file)
{
    fixture_path p = fixture_name("missing.gz");
    lda_error err = {0};
    cr_assert_null(gzlines_open(p.s, &err));
    cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
    char expected[600];
    snprintf(expected, sizeof expected, "%s: No such file or directory", p.s);
    cr_assert_str_eq(err.msg, expected);
}

Test(gzlines, truncated_stream_is_an_error_not_a_short_file)
{
    fixture_path p = fixture_write("t.gz", "first line\nsecond line\n", 1);
    fixture_truncate(p.s, fixture_size(p.s) - 6);
    lda_error err = {0};
    gzlines *r = gzlines_open(p.s, &err);
    cr_assert_not_null(r);
    size_t len, n = 0;
    while (gzlines_next(r, &len, &err))
        n++;
    cr_assert(gzlines_failed(r));
    cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
    char expected[600];
    snprintf(expected, sizeof expected, "%s:%zu: truncated gzip data (unexpected end of file)", p.s,
             n + 1);
    cr_assert_str_eq(err.msg, expected);
    gzlines_close(r);
}

Test(gzlines, corrupt_stream_is_an_error)
{
    fixture_path p = fixture_write("c.gz", "first line\nsecond line\n", 1);
    FILE *f = fopen(p.s, "r+b");
    cr_assert_not_null(f);
    fseek(f, 12, SEEK_SET);
    fputs("\xff\xff\xff\xff", f);
    fclose(f);
    lda_error err = {0};
    gzlines *r = gzlines_open(p.s, &err);
    cr_assert_not_null(r);
    size_t len;
    while (gzlines_next(r, &len, &err))
        ;
    cr_assert(gzlines_failed(r));
    cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
    cr_assert_not_null(strstr(err.msg, p.s), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "gzip data"), "%s", err.msg);
    gzlines_close(r);
}
