/* model_stopwords.c — see model_stopwords.h. */
#include "model/model_stopwords.h"

#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"

/* Replaces the model's string *slot with a copy of value (NULL: none). */
static int set_string(const char **slot, const char *value, lda_error *err)
{
    char *copy = NULL;
    if (value && !(copy = strdup(value))) {
        lda_error_fail(err, "out of memory");
        return -1;
    }
    free((char *)*slot);
    *slot = copy;
    return 0;
}

static int names_the_folder_file(const lda_model *m)
{
    const char *path = m->settings.corpus.stopwords_path;
    return path && strcmp(path, LDA_MODEL_STOPWORDS_FILE) == 0;
}

int lda_model_keep_stopwords(lda_model *m, const stopword_list *list, lda_error *err)
{
    corpus_options *opt = &m->settings.corpus;
    m->stopwords = list;
    return set_string(&opt->stopwords_path, list->count ? LDA_MODEL_STOPWORDS_FILE : "none", err) ||
           set_string(&opt->extra_stopwords_path, NULL, err);
}

int lda_model_write_stopwords(const lda_model *m, const char *dir, lda_error *err)
{
    if (!names_the_folder_file(m))
        return 0;
    if (!m->stopwords) {
        lda_error_fail(err, "internal error: the model's stop words are not known");
        return -1;
    }
    char *path = lda_path_join(dir, LDA_MODEL_STOPWORDS_FILE, err);
    int rc = path ? stopword_list_write(m->stopwords, path, err) : -1;
    free(path);
    return rc;
}

int lda_model_find_stopwords(lda_model *m, const char *dir, lda_error *err)
{
    if (!names_the_folder_file(m))
        return 0;
    char *path = lda_path_join(dir, LDA_MODEL_STOPWORDS_FILE, err);
    int rc = path ? set_string(&m->settings.corpus.stopwords_path, path, err) : -1;
    free(path);
    return rc;
}
