/* api_texts.c — corpora of texts given in memory, and new documents in a model's vocabulary.
 *
 * Texts are written to a temporary file, a document a line (NAME<tab>TEXT with names), and
 * read back by the text reader, so a text is tokenized exactly as train tokenizes a line of a
 * file: there is one tokenizer. The file is removed at once; a message naming it names
 * "texts" instead, its line being the document's number (from 1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "corpus/corpus_read.h"
#include "corpus/text_fields.h"
#include "model/model_corpus.h"
#include "model/model_stopwords.h"

/* Writes the texts to a new temporary file; its path into path. */
static int write_texts(const char *const *texts, size_t n, const char *const *names, char *path, size_t size,
                       lda_error *e)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/ldagpu-texts-XXXXXX", dir && *dir ? dir : "/tmp");
    const int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        lda_error_errno(e, path);
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        return -1;
    }
    for (size_t d = 0; d < n; d++) {
        if (names) {
            char why[TEXT_FIELDS_WHY_MAX];
            const char *problem = names[d] ? text_field_problem(names[d], strlen(names[d]), 1, why) : "it is NULL";
            if (problem) {
                lda_error_input(e, "document %zu's name: %s", d, problem);
                goto fail;
            }
            fputs(names[d], f);
            fputc('\t', f);
        }
        if (!texts[d]) {
            lda_error_input(e, "text %zu is NULL", d);
            goto fail;
        }
        for (const char *p = texts[d]; *p; p++) /* a line break or tab inside a text is a space */
            fputc(*p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p, f);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        f = NULL;
        lda_error_errno(e, path);
        goto fail;
    }
    return 0;
fail:
    if (f)
        fclose(f);
    unlink(path);
    return -1;
}

/* "…/ldagpu-texts-Ab12Cd:3: what" becomes "texts:3: what". */
static void name_texts(lda_error *e, const char *path)
{
    char *at = strstr(e->msg, path);
    if (!at)
        return;
    char rest[sizeof e->msg];
    snprintf(rest, sizeof rest, "%s", at + strlen(path));
    snprintf(at, sizeof e->msg - (size_t)(at - e->msg), "texts%s", rest);
}

typedef corpus *(*texts_reader)(const char *path, const void *ctx, lda_error *e);

static corpus *read_texts(const char *const *texts, size_t n, const char *const *names, texts_reader read,
                          const void *ctx, lda_error *e)
{
    char path[4096];
    if (!texts && n) {
        lda_error_input(e, "no texts");
        return NULL;
    }
    if (write_texts(texts, n, names, path, sizeof path, e))
        return NULL;
    corpus *c = read(path, ctx, e);
    unlink(path);
    if (!c)
        name_texts(e, path);
    return c;
}

static corpus *read_with_settings(const char *path, const void *ctx, lda_error *e)
{
    const ldagpu_settings *s = ctx;
    return corpus_read(path, &s->o.settings.corpus, e);
}

ldagpu_corpus *ldagpu_corpus_from_texts(const char *const *texts, size_t n, const char *const *names,
                                        const ldagpu_settings *s, ldagpu_error *err)
{
    lda_error e = {0};
    ldagpu_settings *read_with = api_settings_copy(s, err);
    if (!read_with)
        return NULL;
    if (ldagpu_settings_set(read_with, "format", names ? "named" : "text", err)) {
        ldagpu_settings_free(read_with);
        return NULL;
    }
    corpus *c = read_texts(texts, n, names, read_with_settings, read_with, &e);
    if (!c) {
        ldagpu_settings_free(read_with);
        return api_fail_null(err, &e);
    }
    ldagpu_corpus *h = api_corpus_wrap(c, read_with, NULL, &e);
    return h ? (api_ok(err), h) : api_fail_null(err, &e);
}

/* ---- new documents in a model's vocabulary ---- */

typedef struct {
    const lda_model *m;
    corpus_format format;
} in_model;

/* Reads path as `ldagpu infer` would with the model's folder: its stop words, which a model in
 * memory holds as a list (model_stopwords.h), go to the reader as a temporary file. */
static corpus *read_in_model(const char *path, const void *ctx, lda_error *e)
{
    const in_model *im = ctx;
    lda_model m = *im->m; /* a shallow copy, to point at the list's file; never freed */
    const char *recorded = m.settings.corpus.stopwords_path;
    char stop[4096] = "";
    if (m.stopwords && recorded && strcmp(recorded, LDA_MODEL_STOPWORDS_FILE) == 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(stop, sizeof stop, "%s/ldagpu-stopwords-XXXXXX", dir && *dir ? dir : "/tmp");
        const int fd = mkstemp(stop);
        if (fd < 0) {
            lda_error_errno(e, stop);
            return NULL;
        }
        close(fd);
        if (stopword_list_write(m.stopwords, stop, e)) {
            unlink(stop);
            return NULL;
        }
        m.settings.corpus.stopwords_path = stop;
    }
    corpus *c = lda_model_read_corpus(&m, path, im->format, NULL, e);
    if (stop[0])
        unlink(stop);
    return c;
}

/* A handle over a corpus in the model's vocabulary: it records the model's reader settings. */
static ldagpu_corpus *wrap_in_model(corpus *c, const char *path, ldagpu_error *err)
{
    lda_error e = {0};
    if (!c)
        return NULL;
    ldagpu_settings *read_with = ldagpu_settings_new(err);
    if (!read_with) {
        corpus_free(c);
        return NULL;
    }
    ldagpu_corpus *h = api_corpus_wrap(c, read_with, path, &e);
    return h ? (api_ok(err), h) : api_fail_null(err, &e);
}

ldagpu_corpus *ldagpu_model_texts(const ldagpu_model *m, const char *const *texts, size_t n, const char *const *names,
                                  ldagpu_error *err)
{
    lda_error e = {0};
    const in_model im = {&m->t.m, names ? CORPUS_FORMAT_NAMED : CORPUS_FORMAT_TEXT};
    corpus *c = read_texts(texts, n, names, read_in_model, &im, &e);
    return c ? wrap_in_model(c, NULL, err) : api_fail_null(err, &e);
}

ldagpu_corpus *ldagpu_model_read_corpus(const ldagpu_model *m, const char *path, ldagpu_error *err)
{
    lda_error e = {0};
    if (!path) {
        lda_error_input(&e, "ldagpu_model_read_corpus: no path");
        return api_fail_null(err, &e);
    }
    const in_model im = {&m->t.m, CORPUS_FORMAT_AUTO};
    corpus *c = read_in_model(path, &im, &e);
    return c ? wrap_in_model(c, path, err) : api_fail_null(err, &e);
}
