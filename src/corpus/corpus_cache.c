/* corpus_cache.c — reading a corpus through its binary cache; see corpus_cache.h. */
#include "corpus/corpus_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus/corpus_binary.h"
#include "corpus/corpus_internal.h"
#include "corpus/corpus_read.h"
#include "corpus/stopwords.h"
#include "corpus/vocab_file.h"

int corpus_cache_choose(const char *value, const char *corpus_path, char **cache_path, lda_error *err)
{
    *cache_path = NULL;
    if (!value || strcmp(value, "off") == 0)
        return 0;
    if (strcmp(value, "auto") == 0 ? asprintf(cache_path, "%s%s", corpus_path, CORPUS_CACHE_SUFFIX) < 0
                                   : !(*cache_path = strdup(value))) {
        *cache_path = NULL;
        lda_error_fail(err, "out of memory");
        return -1;
    }
    return 0;
}

/* "NAME = /absolute/path", its size and modification time; 0 when it cannot be found. */
static int describe_file(FILE *key, const char *name, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    char *abs = realpath(path, NULL);
    fprintf(key, "%s = %s\n%s_size = %lld\n%s_mtime = %lld.%09ld\n", name, abs ? abs : path, name,
            (long long)sb.st_size, name, (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec);
    free(abs);
    return 1;
}

/* The stop words by what they are (stopwords.h: the list the files make, wherever they are),
 * or, when they cannot be read, by their files (the reader will say why). */
static void describe_stopwords(FILE *key, const corpus_options *opt)
{
    stopword_list list;
    lda_error ignored = {0};
    if (stopword_list_load(&list, opt, &ignored) == 0) {
        fprintf(key, "stopwords = %zu words, crc32 %08x\n", list.count, stopword_list_crc(&list));
        stopword_list_free(&list);
    } else {
        fprintf(key, "stopwords = %s + %s (cannot be read)\n", opt->stopwords_path ? opt->stopwords_path : "built-in",
                opt->extra_stopwords_path ? opt->extra_stopwords_path : "none");
    }
}

/* The options that shape what the format's reader makes of the source. */
static void describe_options(FILE *key, const char *path, corpus_format format, const corpus_options *opt)
{
    if (corpus_format_is_text(format)) {
        describe_stopwords(key, opt);
        fprintf(key, "token_pattern = %s\npretokenized = %s\nlowercase = %s\n",
                opt->token_pattern ? opt->token_pattern : "none", opt->pretokenized ? "yes" : "no",
                opt->lowercase ? "yes" : "no");
        fprintf(key, "min_word_length = %d\nmin_df = %zu\nmax_df = %.17g\nmax_vocab = %zu\n", opt->min_word_len,
                opt->min_df, opt->max_df, opt->max_vocab);
    } else if (vocab_is_none(opt->vocab_path)) {
        fprintf(key, "vocab = none\n");
    } else {
        lda_error ignored = {0}; /* a vocabulary not found is reported by the reader */
        char *vocab = opt->vocab_path ? strdup(opt->vocab_path) : vocab_path_find(path, format, &ignored);
        if (!vocab || !describe_file(key, "vocab", vocab))
            fprintf(key, "vocab = %s (not found)\n", vocab ? vocab : "?");
        free(vocab);
    }
}

/* What path read with opt depends on, under the first line `header`. */
static char *describe_source(const char *path, const corpus_options *opt, const char *header, corpus_format *format,
                             lda_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        lda_error_input(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    *format = opt->format;
    if (*format == CORPUS_FORMAT_AUTO && corpus_detect_format(path, format, err) < 0)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *key = open_memstream(&text, &len);
    if (!key) {
        lda_error_fail(err, "out of memory");
        return NULL;
    }
    fprintf(key, "%s readers version %d\n", header, CORPUS_READERS_VERSION);
    describe_file(key, "source", path);
    fprintf(key, "format = %s\n", corpus_format_name(*format));
    describe_options(key, path, *format, opt);
    if (fclose(key) != 0 || !text) {
        free(text);
        lda_error_fail(err, "out of memory");
        return NULL;
    }
    return text;
}

char *corpus_cache_key(const char *path, const corpus_options *opt, corpus_format *format, lda_error *err)
{
    return describe_source(path, opt, CORPUS_CACHE_NOTE, format, err);
}

char *corpus_source_note(const char *path, const corpus_options *opt, corpus_format *format, lda_error *err)
{
    return describe_source(path, opt, "ldagpu format,", format, err);
}

/* The name of the first line where two keys differ ("source_mtime"), into buf. */
static const char *first_difference(const char *a, const char *b, char *buf, size_t size)
{
    while (*a && *b) {
        const char *ea = strchrnul(a, '\n'), *eb = strchrnul(b, '\n');
        if (ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0) {
            const char *name_end = strstr(a, " = ");
            size_t n = name_end && name_end < ea ? (size_t)(name_end - a) : (size_t)(ea - a);
            snprintf(buf, size, "%.*s", (int)n, a);
            return buf;
        }
        a = *ea ? ea + 1 : ea;
        b = *eb ? eb + 1 : eb;
    }
    snprintf(buf, size, "%s", *a || *b ? "the options" : "nothing");
    return buf;
}

/* What the cache file holds: its corpus when valid (the report says "read"), else NULL with
 * *why saying what is wrong with it ("" when there is none) and *may_write whether it may be
 * replaced. */
static corpus *valid_cache(const char *cache_path, const char *key, char *why, size_t why_size, int *may_write)
{
    struct stat sb;
    char *note = NULL;
    lda_error e = {0};
    corpus_format source_format;
    corpus *c = NULL;
    *may_write = 1;
    why[0] = '\0';
    if (stat(cache_path, &sb) != 0) /* none yet (or none reachable: writing it will say why) */
        return NULL;
    if (!corpus_binary_sniff(cache_path)) {
        *may_write = 0;
        snprintf(why, why_size, "it exists and is not an ldagpu binary corpus, so it is left as it is");
    } else if (corpus_binary_read_note(cache_path, &note, &source_format, &e) != 0) {
        snprintf(why, why_size, "it was damaged (%s)", e.msg);
    } else if (strncmp(note, CORPUS_CACHE_NOTE, strlen(CORPUS_CACHE_NOTE)) != 0) {
        *may_write = 0;
        snprintf(why, why_size, "it is a binary corpus that is not a cache (ldagpu format's or generate's), so it is "
                 "left as it is");
    } else if (strcmp(note, key) != 0) {
        char name[64];
        snprintf(why, why_size, "it was stale: %s differs", first_difference(note, key, name, sizeof name));
    } else if (!(c = corpus_binary_read(cache_path, &e))) {
        snprintf(why, why_size, "it was damaged (%s)", e.msg);
    }
    free(note);
    return c;
}

corpus *corpus_read_cached(const char *path, const corpus_options *opt, const char *cache_path,
                           corpus_cache_report *report, lda_error *err)
{
    memset(report, 0, sizeof *report);
    report->outcome = CORPUS_CACHE_UNUSED;
    corpus_format format;
    lda_error e = {0};
    char *key = NULL, *real_source = realpath(path, NULL), *real_cache = realpath(cache_path, NULL);
    const int same_file = real_source && real_cache && strcmp(real_source, real_cache) == 0;
    free(real_source);
    free(real_cache);
    if (same_file) {
        lda_error_input(err, "--cache %s is the corpus itself", cache_path);
        return NULL;
    }
    if (opt->fixed_vocab || !(key = corpus_cache_key(path, opt, &format, &e)) || format == CORPUS_FORMAT_BINARY) {
        snprintf(report->message, sizeof report->message, "cache %s not used: %s", cache_path,
                 opt->fixed_vocab ? "the corpus is read in a model's vocabulary"
                 : key           ? "the corpus is binary already"
                                 : "the corpus cannot be read");
        free(key);
        return corpus_read(path, opt, err);
    }
    char why[sizeof report->message - 256];
    int may_write;
    corpus *c = valid_cache(cache_path, key, why, sizeof why, &may_write);
    if (c) {
        report->outcome = CORPUS_CACHE_READ;
        snprintf(report->message, sizeof report->message, "read the cache %s (valid for %s and these options)",
                 cache_path, path);
    } else if ((c = corpus_read(path, opt, err))) {
        if (!may_write) {
            report->warning = 1;
            snprintf(report->message, sizeof report->message, "warning: cache %s not written: %s", cache_path, why);
        } else if (corpus_binary_write(cache_path, c, c->format, key, &e) != 0) {
            report->warning = 1;
            snprintf(report->message, sizeof report->message, "warning: cache %s not written: %s", cache_path,
                     e.msg);
        } else {
            report->outcome = CORPUS_CACHE_WRITTEN;
            snprintf(report->message, sizeof report->message, "wrote the cache %s%s%s%s", cache_path,
                     why[0] ? " (" : "", why, why[0] ? ")" : "");
        }
    }
    free(key);
    return c;
}
