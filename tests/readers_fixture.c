/* readers_fixture.c — see readers_fixture.h. */
#include "readers_fixture.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[256];

void fixture_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/ldagpu-test-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp %s", tmpdir);
}

void fixture_teardown(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            fixture_path p = fixture_name(e->d_name);
            unlink(p.s);
        }
    }
    closedir(d);
    rmdir(tmpdir);
}

fixture_path fixture_name(const char *name)
{
    fixture_path p;
    snprintf(p.s, sizeof p.s, "%s/%s", tmpdir, name);
    return p;
}

fixture_path fixture_write(const char *name, const char *content, int gz)
{
    fixture_path p = fixture_name(name);
    size_t n = strlen(content);
    if (gz) {
        gzFile g = gzopen(p.s, "wb");
        cr_assert_not_null(g, "gzopen %s", p.s);
        cr_assert_eq(gzwrite(g, content, (unsigned)n), (int)n);
        cr_assert_eq(gzclose(g), Z_OK);
    } else {
        FILE *f = fopen(p.s, "wb");
        cr_assert_not_null(f, "fopen %s", p.s);
        cr_assert_eq(fwrite(content, 1, n, f), n);
        cr_assert_eq(fclose(f), 0);
    }
    return p;
}

void fixture_truncate(const char *path, long keep)
{
    cr_assert_eq(truncate(path, keep), 0, "truncate %s", path);
}

long fixture_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

size_t fixture_complete_lines(const char *path)
{
    gzFile g = gzopen(path, "rb");
    cr_assert_not_null(g);
    char buf[4096];
    size_t lines = 0;
    int n;
    while ((n = gzread(g, buf, sizeof buf)) > 0)
        for (int i = 0; i < n; i++)
            lines += buf[i] == '\n';
    gzclose(g);
    return lines;
}

corpus_options fixture_text_options(void)
{
    corpus_options opt;
    corpus_options_default(&opt);
    opt.stopwords_path = "none";
    opt.min_df = 1;
    opt.max_df = 1.0;
    return opt;
}

static void expect_consistent(const corpus *c)
{
    cr_assert_eq(c->num_docs + c->num_empty_docs, c->num_input_docs);
    cr_assert_eq(c->doc_offsets[0], 0);
    cr_assert_eq(c->doc_offsets[c->num_docs], c->num_tokens);
    for (size_t d = 0; d < c->num_docs; d++) {
        cr_assert_lt(c->doc_offsets[d], c->doc_offsets[d + 1], "document %zu is empty", d);
        cr_assert_lt(c->input_index[d], c->num_input_docs);
        if (d > 0)
            cr_assert_lt(c->input_index[d - 1], c->input_index[d]);
    }
    for (size_t i = 0; i < c->num_tokens; i++)
        cr_assert_lt(c->words[i], c->vocab_size);
    for (uint32_t w = 0; w < c->vocab_size; w++)
        cr_assert(c->vocab[w] && c->vocab[w][0], "word %u is empty", (unsigned)w);
}

corpus *read_ok(const char *path, const corpus_options *opt)
{
    lda_error err = {0};
    corpus *c = corpus_read(path, opt, &err);
    cr_assert_not_null(c, "reading %s failed: %s", path, err.msg);
    expect_consistent(c);
    return c;
}

static void expect_failure(const char *path, const corpus_options *opt, lda_error *err)
{
    corpus *c = corpus_read(path, opt, err);
    if (c)
        corpus_free(c);
    cr_assert_null(c, "reading %s succeeded", path);
    cr_assert_eq(err->status, LDA_EXIT_BAD_INPUT, "status %d: %s", err->status, err->msg);
    cr_assert_null(strchr(err->msg, '\n'), "message has a newline: %s", err->msg);
}

void expect_error(const char *path, const corpus_options *opt, ...)
{
    lda_error err = {0};
    expect_failure(path, opt, &err);
    va_list ap;
    va_start(ap, opt);
    for (const char *needle; (needle = va_arg(ap, const char *));)
        cr_assert_not_null(strstr(err.msg, needle), "message \"%s\" lacks \"%s\"", err.msg, needle);
    va_end(ap);
}

void expect_error_at(const char *path, const corpus_options *opt, const char *file, size_t line,
                     const char *needle)
{
    char where[600];
    if (line)
        snprintf(where, sizeof where, "%s:%zu: ", file, line);
    else
        snprintf(where, sizeof where, "%s: ", file);
    expect_error(path, opt, where, needle, NULL);
}

static void join_words(const corpus *c, const uint32_t *ids, size_t n, char *out, size_t cap)
{
    out[0] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        cr_assert_lt(ids[i], c->vocab_size);
        int k = snprintf(out + len, cap - len, "%s%s", i ? " " : "", c->vocab[ids[i]]);
        cr_assert(k >= 0 && (size_t)k < cap - len, "too many words for the test buffer");
        len += (size_t)k;
    }
}

void expect_doc(const corpus *c, size_t d, const char *expected)
{
    cr_assert_lt(d, c->num_docs, "no document %zu (%zu documents)", d, c->num_docs);
    char got[4096];
    join_words(c, c->words + c->doc_offsets[d], c->doc_offsets[d + 1] - c->doc_offsets[d], got,
               sizeof got);
    cr_assert_str_eq(got, expected, "document %zu", d);
}

void expect_vocab(const corpus *c, const char *expected)
{
    char got[4096] = "";
    size_t len = 0;
    for (uint32_t w = 0; w < c->vocab_size; w++) {
        int k = snprintf(got + len, sizeof got - len, "%s%s", w ? " " : "", c->vocab[w]);
        cr_assert(k >= 0 && (size_t)k < sizeof got - len, "too many words for the test buffer");
        len += (size_t)k;
    }
    cr_assert_str_eq(got, expected);
}
