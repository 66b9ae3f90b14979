/* vocab_file.c — finding and reading UCI / LDA-C vocabulary files; see vocab_file.h. */
#include "corpus/vocab_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpus/corpus_internal.h"
#include "corpus/vocab_check.h"
#include "util/fields.h"
#include "util/gzlines.h"

enum { MAX_CANDIDATES = 3 };

static int has_suffix(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* dir[0..dir_len) (with its '/') + prefix + name[0..name_len) + suffix, malloc'd; NULL when
 * out of memory. */
static char *path_in_dir(const char *dir, size_t dir_len, const char *prefix, const char *name,
                         size_t name_len, const char *suffix)
{
    char *p = NULL;
    if (asprintf(&p, "%.*s%s%.*s%s", (int)dir_len, dir, prefix, (int)name_len, name, suffix) < 0)
        return NULL;
    return p;
}

/* UCI: docword.NAME.txt[.gz] -> vocab.NAME.txt[.gz], the corpus's compression tried first.
 * Returns the number of candidates, 0 if the name does not follow the convention. */
static int uci_candidates(const char *dir, size_t dir_len, const char *base, char **out)
{
    static const char prefix[] = "docword.";
    if (strncmp(base, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *name = base + sizeof prefix - 1; /* NAME.txt[.gz] */
    size_t len = strlen(name);
    int gz = has_suffix(name, len, ".gz");
    if (gz)
        len -= 3;
    out[0] = path_in_dir(dir, dir_len, "vocab.", name, len, gz ? ".gz" : "");
    out[1] = path_in_dir(dir, dir_len, "vocab.", name, len, gz ? "" : ".gz");
    return 2;
}

/* LDA-C: NAME.vocab, NAME.vocab.gz, vocab.txt, where NAME is the corpus file name without
 * ".gz" and without its last extension (ap.dat -> ap). */
static int ldac_candidates(const char *dir, size_t dir_len, const char *base, char **out)
{
    size_t len = strlen(base);
    if (has_suffix(base, len, ".gz"))
        len -= 3;
    const char *dot = memrchr(base, '.', len);
    if (dot && dot > base)
        len = (size_t)(dot - base);
    out[0] = path_in_dir(dir, dir_len, "", base, len, ".vocab");
    out[1] = path_in_dir(dir, dir_len, "", base, len, ".vocab.gz");
    out[2] = path_in_dir(dir, dir_len, "", "vocab.txt", 9, "");
    return 3;
}

char *vocab_path_find(const char *corpus_path, corpus_format format, lda_error *err)
{
    const char *slash = strrchr(corpus_path, '/');
    const char *base = slash ? slash + 1 : corpus_path;
    size_t dir_len = (size_t)(base - corpus_path);
    char *cand[MAX_CANDIDATES] = {0};
    int n = format == CORPUS_FORMAT_UCI ? uci_candidates(corpus_path, dir_len, base, cand)
                                        : ldac_candidates(corpus_path, dir_len, base, cand);
    if (n == 0) {
        lda_error_input(err, "%s: cannot tell where its vocabulary is (a UCI corpus named "
                        "docword.NAME.txt has vocab.NAME.txt beside it; otherwise give the "
                        "vocabulary file)", corpus_path);
        return NULL;
    }
    char *found = NULL;
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok = ok && cand[i];
    for (int i = 0; ok && i < n && !found; i++)
        if (access(cand[i], F_OK) == 0)
            found = cand[i];
    if (!ok)
        lda_error_fail(err, "out of memory (a file name)");
    else if (!found && n == 2)
        lda_error_input(err, "%s: No such file or directory (the vocabulary of %s; also tried %s)",
                        cand[0], corpus_path, cand[1]);
    else if (!found)
        lda_error_input(err, "%s: No such file or directory (the vocabulary of %s; also tried "
                        "%s and %s)", cand[0], corpus_path, cand[1], cand[2]);
    for (int i = 0; i < n; i++)
        if (cand[i] != found)
            free(cand[i]);
    return found;
}

int vocab_is_none(const char *vocab_path)
{
    return vocab_path && strcmp(vocab_path, "none") == 0;
}

int vocab_of_ids(uint64_t first, uint32_t n, const char *source, char ***words_out, lda_error *err)
{
    char **words = calloc(n ? n : 1, sizeof *words);
    for (uint32_t i = 0; words && i < n; i++) {
        if (asprintf(&words[i], "%llu", (unsigned long long)(first + i)) < 0) {
            words[i] = NULL;
            free_strings(words, i);
            words = NULL;
        }
    }
    if (!words) {
        lda_error_fail(err, "out of memory for a vocabulary of %u word ids (%s; --vocab none names each word by its id)",
                       (unsigned)n, source);
        return -1;
    }
    *words_out = words;
    return 0;
}

/* Appends a copy of word[0..len) to *words, growing it. */
static int push_word(char ***words, size_t *cap, uint32_t count, const char *word, size_t len,
                     lda_error *err)
{
    if (count == *cap) {
        size_t new_cap = *cap ? *cap * 2 : 1024;
        char **grown = realloc(*words, new_cap * sizeof *grown);
        if (!grown) {
            lda_error_fail(err, "out of memory (a vocabulary of %zu words)", new_cap);
            return -1;
        }
        *words = grown;
        *cap = new_cap;
    }
    char *copy = strndup(word, len);
    if (!copy) {
        lda_error_fail(err, "out of memory (a vocabulary of %u words)", (unsigned)count);
        return -1;
    }
    (*words)[count] = copy;
    return 0;
}

/* Checks the number of words read once the file has ended. */
static int check_count(gzlines *r, uint32_t count, uint32_t expected, const char *reason,
                       lda_error *err)
{
    const char *path = gzlines_path(r);
    if (count == 0 && (!reason || expected > 0)) {
        if (reason)
            lda_error_input(err, "%s: the vocabulary is empty (expected %u words: %s)", path,
                            (unsigned)expected, reason);
        else
            lda_error_input(err, "%s: the vocabulary is empty (expected one word a line)", path);
        return -1;
    }
    if (reason && count < expected) {
        lda_error_input(err, "%s:%zu: the vocabulary ends after %u words (expected %u: %s)",
                        path, gzlines_lineno(r), (unsigned)count, (unsigned)expected, reason);
        return -1;
    }
    return 0;
}

int vocab_file_read(const char *path, uint32_t expected, const char *expected_reason,
                    char ***words_out, uint32_t *count_out, lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return -1;
    char **words = NULL;
    size_t cap = 0;
    uint32_t count = 0;
    size_t blank_line = 0; /* first blank line since the last word */
    char *line;
    size_t len;
    int failed = 0;
    while (!failed && (line = gzlines_next(r, &len, err))) {
        while (len > 0 && is_field_blank(line[len - 1]))
            len--;
        while (len > 0 && is_field_blank(*line))
            line++, len--;
        if (len == 0) {
            if (!blank_line)
                blank_line = gzlines_lineno(r);
            continue;
        }
        if (blank_line) {
            lda_error_input(err, "%s:%zu: empty line in the vocabulary (expected one word a "
                            "line: word ids are line numbers)", path, blank_line);
            failed = 1;
        } else if (expected_reason && count == expected) {
            lda_error_input(err, "%s:%zu: more words than expected (expected %u: %s)", path,
                            gzlines_lineno(r), (unsigned)expected, expected_reason);
            failed = 1;
        } else if (count == CORPUS_NO_WORD - 1) {
            lda_error_input(err, "%s:%zu: too many words (at most %u)", path, gzlines_lineno(r),
                            (unsigned)(CORPUS_NO_WORD - 1));
            failed = 1;
        } else if (push_word(&words, &cap, count, line, len, err) < 0) {
            failed = 1;
        } else {
            count++;
        }
    }
    failed = failed || gzlines_failed(r) || check_count(r, count, expected, expected_reason, err) < 0 ||
             vocab_check(words, count, path, VOCAB_BY_LINE, err) < 0;
    gzlines_close(r);
    if (failed) {
        free_strings(words, count);
        return -1;
    }
    *words_out = words;
    *count_out = count;
    return 0;
}
