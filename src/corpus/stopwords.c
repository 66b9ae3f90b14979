/* stopwords.c — the stop-word list in use; see stopwords.h.
 *
 * A user's file is read the way scripts/embed-words.sh reads the built-in list ('#'
 * comments, blanks ignored), so data/stopwords.txt given as a file means the same as the
 * default. Entries that are not plain letters never equal a word of the built-in tokenizer;
 * they are kept rather than rejected (MALLET-style lists with "don't" load, and such entries
 * do match words of --token-pattern and --pretokenized). */
#include "corpus/stopwords.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "corpus/unicode.h"
#include "util/atomic_file.h"
#include "util/fields.h"
#include "util/gzlines.h"
#include "util/strmap.h"

/* The words gathered, each once, in a map; `lower` is room for the lowercased word. */
typedef struct {
    strmap *m;
    char *lower;
    size_t lower_cap;
} gathering;

static int add_word(gathering *g, const char *word, size_t len, lda_error *err)
{
    uint32_t id;
    return lda_utf8_lower_room(&g->lower, &g->lower_cap, len, err) < 0
               ? -1
               : strmap_intern(g->m, g->lower, lda_utf8_lower(word, len, g->lower, NULL), &id, err);
}

static int add_file(gathering *g, const char *path, lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return -1;
    char *line;
    size_t len;
    while ((line = gzlines_next(r, &len, err))) {
        char *comment = memchr(line, '#', len);
        if (comment)
            len = (size_t)(comment - line);
        size_t i = 0;
        while (i < len) {
            while (i < len && is_field_blank(line[i]))
                i++;
            size_t start = i;
            while (i < len && !is_field_blank(line[i]))
                i++;
            if (i > start && add_word(g, line + start, i - start, err) < 0) {
                gzlines_close(r);
                return -1;
            }
        }
    }
    int failed = gzlines_failed(r);
    gzlines_close(r);
    return failed ? -1 : 0;
}

static int add_list(gathering *g, const char *path, lda_error *err)
{
    if (path && strcmp(path, "none") == 0)
        return 0;
    if (path)
        return add_file(g, path, err);
    for (size_t i = 0; i < lda_builtin_stopwords_count; i++)
        if (add_word(g, lda_builtin_stopwords[i], strlen(lda_builtin_stopwords[i]), err) < 0)
            return -1;
    return 0;
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int stopword_list_load(stopword_list *l, const corpus_options *opt, lda_error *err)
{
    memset(l, 0, sizeof *l);
    gathering g = {0};
    int failed = !(g.m = strmap_new(1024, err)) || add_list(&g, opt->stopwords_path, err) < 0 ||
                 (opt->extra_stopwords_path && add_file(&g, opt->extra_stopwords_path, err) < 0);
    const size_t n = failed ? 0 : strmap_size(g.m);
    if (!failed && n && !(l->words = lda_calloc(n, sizeof *l->words, "the stop-word list", err)))
        failed = 1;
    for (size_t i = 0; !failed && i < n; i++) {
        if (!(l->words[i] = strdup(strmap_key(g.m, (uint32_t)i)))) {
            lda_error_fail(err, "out of memory (the stop-word list)");
            failed = 1;
        }
        l->count = i + 1;
    }
    strmap_free(g.m);
    free(g.lower);
    if (failed) {
        stopword_list_free(l);
        return -1;
    }
    if (l->count > 1)
        qsort(l->words, l->count, sizeof *l->words, by_bytes);
    return 0;
}

void stopword_list_free(stopword_list *l)
{
    for (size_t i = 0; l->words && i < l->count; i++)
        free(l->words[i]);
    free(l->words);
    memset(l, 0, sizeof *l);
}

int stopword_list_equal(const stopword_list *a, const stopword_list *b)
{
    if (a->count != b->count)
        return 0;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->words[i], b->words[i]) != 0)
            return 0;
    return 1;
}

uint32_t stopword_list_crc(const stopword_list *l)
{
    uint32_t crc = (uint32_t)crc32_z(0, Z_NULL, 0);
    for (size_t i = 0; i < l->count; i++)
        crc = (uint32_t)crc32_z(crc, (const unsigned char *)l->words[i], strlen(l->words[i]) + 1);
    return crc;
}

int stopword_list_write(const stopword_list *l, const char *path, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    fprintf(af.f, "# stop words, lowercased: %zu\n", l->count);
    for (size_t i = 0; i < l->count; i++)
        fprintf(af.f, "%s\n", l->words[i]);
    return lda_atomic_commit(&af, err);
}
