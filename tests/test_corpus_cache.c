/* test_corpus_cache.c — the corpus cache (corpus/corpus_cache.h): used while it matches the
 * source and the options, refreshed when either changes or it is damaged, never a failure when
 * it cannot be written, never written over a file that is not one; and train --cache, format. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus/corpus_binary.h"
#include "corpus/corpus_cache.h"
#include "helpers.h"
#include "readers_fixture.h"

TestSuite(cache, .init = fixture_setup, .fini = fixture_teardown);

static const char TEXT[] = "alpha beta gamma alpha\n\nbeta beta delta\ngamma alpha delta\n";

/* Reads path through the cache; asserts the outcome, a message holding `needle`, and that the
 * corpus is the one corpus_read makes. */
static void expect_cached(const char *path, const corpus_options *opt, const char *cache,
                          corpus_cache_outcome outcome, const char *needle)
{
    corpus_cache_report report;
    lda_error err = {0};
    corpus *c = corpus_read_cached(path, opt, cache, &report, &err);
    cr_assert_not_null(c, "%s", err.msg);
    cr_assert_eq(report.outcome, outcome, "outcome %d: %s", report.outcome, report.message);
    cr_assert_not_null(strstr(report.message, needle), "message \"%s\" lacks \"%s\"", report.message, needle);
    cr_assert_eq(report.warning, strstr(report.message, "not written") != NULL, "a warning exactly when the cache "
                 "should have been written and was not: %s", report.message);
    corpus *direct = read_ok(path, opt);
    test_expect_same_corpus(direct, c);
    cr_assert_eq(c->format, direct->format, "read as the source reads");
    corpus_free(direct);
    corpus_free(c);
}

/* Gives path the modification time `seconds` (a time no write of this test makes). */
static void set_mtime(const char *path, long seconds)
{
    struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
}

Test(cache, written_once_then_read_while_valid)
{
    fixture_path src = fixture_write("c.txt", TEXT, 0), cache = fixture_name("c.txt.ldab");
    corpus_options opt = fixture_text_options();
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "wrote the cache");
    cr_assert(corpus_binary_sniff(cache.s));
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
}

Test(cache, a_changed_source_is_parsed_again)
{
    fixture_path src = fixture_write("c.txt", TEXT, 0), cache = fixture_name("cache.ldab");
    corpus_options opt = fixture_text_options();
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "wrote the cache");
    set_mtime(src.s, 1000000000);
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: source_mtime differs");
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
    fixture_write("c.txt", "alpha beta gamma alpha\n\nbeta beta delta\ngamma alpha delta\nbeta zeta\n", 0);
    set_mtime(src.s, 1000000000); /* only the size tells */
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: source_size differs");
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
}

Test(cache, a_changed_option_or_option_file_is_parsed_again)
{
    fixture_path src = fixture_write("c.txt", TEXT, 0), cache = fixture_name("cache.ldab");
    corpus_options opt = fixture_text_options();
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "wrote the cache");
    opt.min_df = 2;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: min_df differs");
    opt.max_vocab = 2;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: max_vocab differs");
    opt.max_df = 0.9;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: max_df differs");
    opt.min_word_len = 5;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: min_word_length differs");
    opt = fixture_text_options();
    fixture_path stop = fixture_write("stop.txt", "alpha\n", 0), extra = fixture_write("extra.txt", "beta\n", 0);
    opt.stopwords_path = stop.s;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: stopwords differs");
    /* the stop words are known by what they are: the same words at another time or place are the same */
    set_mtime(stop.s, 1000000000);
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
    fixture_path moved = fixture_write("moved.txt", "ALPHA\n", 0);
    opt.stopwords_path = moved.s;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
    fixture_write("moved.txt", "gamma\n", 0);
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: stopwords differs");
    opt.extra_stopwords_path = extra.s;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: stopwords differs");
    opt.stopwords_path = NULL; /* the built-in list */
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: stopwords differs");
    opt.token_pattern = "\\w+";
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: token_pattern differs");
    opt.token_pattern = NULL;
    opt.pretokenized = 1;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: token_pattern differs");
    opt.lowercase = 0;
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: lowercase differs");
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
}

Test(cache, a_uci_vocabulary_file_is_part_of_the_key)
{
    fixture_write("vocab.u.txt", "alpha\nbeta\ngamma\n", 0);
    fixture_path src = fixture_write("docword.u.txt", "3\n3\n3\n1 2 1\n3 1 2\n1 3 2\n", 0);
    fixture_path cache = fixture_name("u.ldab");
    corpus_options opt = fixture_text_options();
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "wrote the cache");
    opt.min_df = 3; /* a raw-text option: no part of what a UCI corpus reads as */
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
    fixture_write("vocab.u.txt", "ALPHA\nbeta\ngamma\n", 0);
    set_mtime(fixture_name("vocab.u.txt").s, 1000000000);
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: vocab_mtime differs");
    opt.vocab_path = "none";
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was stale: vocab differs");
}

Test(cache, a_cache_that_cannot_be_written_is_a_warning)
{
    fixture_path src = fixture_write("c.txt", TEXT, 0), cache = fixture_name("no/such/folder/c.ldab");
    corpus_options opt = fixture_text_options();
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_UNUSED, "warning: cache");
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_UNUSED, "not written: cannot write");
}

Test(cache, a_file_that_is_not_a_cache_is_left_alone)
{
    fixture_path src = fixture_write("c.txt", TEXT, 0), cache = fixture_write("precious.txt", "keep me\n", 0);
    corpus_options opt = fixture_text_options();
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_UNUSED, "not written: it exists and is not an ldagpu binary");
    char *kept = test_read_file(cache.s);
    cr_assert_str_eq(kept, "keep me\n");
    free(kept);
}

Test(cache, a_damaged_cache_is_rewritten)
{
    fixture_path src = fixture_write("c.txt", TEXT, 0), cache = fixture_name("cache.ldab");
    corpus_options opt = fixture_text_options();
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "wrote the cache");
    const long size = fixture_size(cache.s);
    FILE *f = fopen(cache.s, "r+b");
    cr_assert_not_null(f);
    fseek(f, size - 10, SEEK_SET); /* a byte of the vocabulary */
    fputc('#', f);
    fclose(f);
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "it was damaged (");
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_READ, "read the cache");
    fixture_truncate(cache.s, size / 2);
    expect_cached(src.s, &opt, cache.s, CORPUS_CACHE_WRITTEN, "truncated");
}

Test(cache, nothing_to_cache_for_a_binary_corpus_and_never_over_the_corpus)
{
    fixture_path src = fixture_write("c.txt", TEXT, 0), bin = fixture_name("c.ldab"), cache = fixture_name("x.ldab");
    corpus_options opt = fixture_text_options();
    corpus *c = read_ok(src.s, &opt);
    lda_error err = {0};
    cr_assert_eq(corpus_binary_write(bin.s, c, c->format, NULL, &err), 0, "%s", err.msg);
    corpus_free(c);
    expect_cached(bin.s, &opt, cache.s, CORPUS_CACHE_UNUSED, "the corpus is binary already");
    cr_assert_eq(access(cache.s, F_OK), -1, "no cache written");
    corpus_cache_report report;
    cr_assert_null(corpus_read_cached(src.s, &opt, src.s, &report, &err));
    cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
    cr_assert_not_null(strstr(err.msg, "is the corpus itself"), "%s", err.msg);
}

/* ---- through the commands ---- */

Test(cache, train_uses_it_and_trains_the_same_model)
{
    char *dir = test_tmpdir(), args[2048], *out = NULL;
    const char *common = "-K 3 -n 3 -e 0 --device cpu -j 1";
    char *path = test_tiny_corpus(dir);
    snprintf(args, sizeof args, "train '%s' %s -o '%s/plain'", path, common, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    const char *expected[] = {"wrote the cache", "read the cache"};
    for (int run = 0; run < 2; run++) {
        snprintf(args, sizeof args, "train '%s' %s --cache auto -o '%s/cached%d'", path, common, dir, run);
        cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
        cr_assert_not_null(strstr(out, expected[run]), "run %d: %s", run, out);
        cr_assert_not_null(strstr(out, "(ldac)"), "read as its source: %s", out);
        free(out);
        char a[1024], b[1024];
        for (int i = 0; i < 3; i++) {
            const char *file[] = {"z.npy", "phi.npy", "model.conf"};
            snprintf(a, sizeof a, "%s/plain/%s", dir, file[i]);
            snprintf(b, sizeof b, "%s/cached%d/%s", dir, run, file[i]);
            cr_assert(test_same_bytes(a, b), "%s differs from %s", b, a);
        }
    }
    free(path);
    test_rmdir(dir);
    free(dir);
}

/* A small raw-text corpus in dir (its reader options matter, unlike LDA-C's); its path. */
static char *text_corpus(const char *dir)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    for (int d = 0; d < 40; d++)
        fprintf(f, "%s %s\n", d % 2 ? "apple banana cherry grape" : "engine piston rotor valve",
                d % 4 < 2 ? "lemon" : "wheel");
    fclose(f);
    char *path = test_write_file(dir, "c.txt", text);
    free(text);
    return path;
}

/* Runs ldagpu with args; asserts success and that the output says `needle`. */
static void run_saying(const char *args, const char *needle)
{
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "ldagpu %s: %s", args, out);
    cr_assert_not_null(strstr(out, needle), "ldagpu %s: no \"%s\" in: %s", args, needle, out);
    free(out);
}

/* format and --cache auto write different files, and a cache never replaces a binary corpus it
 * did not write as a cache (here: format's, given as --cache FILE, read with other options). */
Test(cache, train_never_replaces_what_format_wrote)
{
    char *dir = test_tmpdir(), args[4096], formatted[1024], saved[1024];
    char *path = text_corpus(dir);
    snprintf(formatted, sizeof formatted, "%s.ldab", path);
    snprintf(saved, sizeof saved, "%s/saved.ldab", dir);
    snprintf(args, sizeof args, "format '%s'", path);
    run_saying(args, ".ldab: 40 documents");
    snprintf(args, sizeof args, "cp '%s' '%s'", formatted, saved);
    cr_assert_eq(system(args), 0);
    const char *common = "-K 2 -n 1 --device cpu -j 1 --min-df 1"; /* not -q: the cache says what it did */
    snprintf(args, sizeof args, "train '%s' %s --cache auto -o '%s/m1'", path, common, dir);
    run_saying(args, "wrote the cache");
    cr_assert(test_same_bytes(formatted, saved), "train --cache auto replaced format's %s", formatted);
    snprintf(args, sizeof args, "train '%s' %s --cache '%s' -o '%s/m2'", path, common, formatted, dir);
    run_saying(args, "is not a cache");
    cr_assert(test_same_bytes(formatted, saved), "train --cache FILE replaced format's %s", formatted);
    free(path);
    test_rmdir(dir);
    free(dir);
}

Test(cache, format_never_replaces_the_cache)
{
    char *dir = test_tmpdir(), args[4096];
    char *path = text_corpus(dir);
    const char *common = "-K 2 -n 1 --device cpu -j 1"; /* not -q: the cache says what it did */
    snprintf(args, sizeof args, "train '%s' %s --cache auto -o '%s/m1'", path, common, dir);
    run_saying(args, "wrote the cache");
    snprintf(args, sizeof args, "format '%s' --min-df 1", path);
    run_saying(args, "documents");
    snprintf(args, sizeof args, "train '%s' %s --cache auto -o '%s/m2'", path, common, dir);
    run_saying(args, "read the cache");
    free(path);
    test_rmdir(dir);
    free(dir);
}
