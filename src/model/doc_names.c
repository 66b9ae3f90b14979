/* doc_names.c — a model's doc_names.txt and doc_labels.txt; see doc_names.h. */
#include "model/doc_names.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpus/text_fields.h"
#include "util/atomic_file.h"
#include "util/gzlines.h"

static int write_list(const lda_string_list *l, const char *dir, const char *name, lda_error *err)
{
    char *path = lda_path_join(dir, name, err);
    lda_atomic_file af;
    if (!path || lda_atomic_open(&af, path, err)) {
        free(path);
        return -1;
    }
    free(path);
    for (size_t i = 0; i < l->count; i++) {
        fputs(lda_string_list_get(l, i), af.f);
        fputc('\n', af.f);
    }
    return lda_atomic_commit(&af, err);
}

int lda_doc_names_write(const lda_model *m, const char *dir, lda_error *err)
{
    return (m->doc_names && write_list(m->doc_names, dir, LDA_DOC_NAMES_FILE, err)) ||
                   (m->doc_labels && write_list(m->doc_labels, dir, LDA_DOC_LABELS_FILE, err))
               ? -1
               : 0;
}

static int remove_file(const char *dir, const char *name, lda_error *err)
{
    char *path = lda_path_join(dir, name, err);
    if (!path)
        return -1;
    int rc = unlink(path) != 0 && errno != ENOENT ? -1 : 0;
    if (rc)
        lda_error_fail(err, "cannot remove %s: %s", path, strerror(errno));
    free(path);
    return rc;
}

int lda_doc_names_remove_absent(const lda_model *m, const char *dir, lda_error *err)
{
    return (!m->doc_names && remove_file(dir, LDA_DOC_NAMES_FILE, err)) ||
                   (!m->doc_labels && remove_file(dir, LDA_DOC_LABELS_FILE, err))
               ? -1
               : 0;
}

/* dir/name: exactly m->num_docs lines, each a name (is_name) or label. */
static int read_list(const lda_model *m, const char *dir, const char *name, int is_name, lda_string_list **out,
                     lda_error *err)
{
    char *path = lda_path_join(dir, name, err);
    gzlines *r = path ? gzlines_open(path, err) : NULL;
    int failed = !r || !(*out = lda_string_list_new(err));
    char *line = NULL, why[TEXT_FIELDS_WHY_MAX];
    size_t len;
    while (!failed && (line = gzlines_next(r, &len, err))) {
        if ((*out)->count == m->num_docs)
            break; /* one more than there should be */
        if (text_field_problem(line, len, is_name, why)) {
            lda_error_input(err, "%s:%zu: %s", path, gzlines_lineno(r), why);
            failed = 1;
        } else {
            failed = lda_string_list_add(*out, line, len, err) < 0;
        }
    }
    failed = failed || gzlines_failed(r);
    if (!failed && (line || (*out)->count != m->num_docs)) {
        lda_error_input(err, "%s: expected %" PRIu64 " document %s (model.conf says so), found %s%zu", path,
                        m->num_docs, is_name ? "names" : "labels", line ? "more than " : "", (*out)->count);
        failed = 1;
    }
    if (r)
        gzlines_close(r);
    free(path);
    return failed ? -1 : 0;
}

int lda_doc_names_read(lda_model *m, const char *dir, lda_error *err)
{
    return (m->has_doc_names && read_list(m, dir, LDA_DOC_NAMES_FILE, 1, &m->doc_names, err)) ||
                   (m->has_doc_labels && read_list(m, dir, LDA_DOC_LABELS_FILE, 0, &m->doc_labels, err))
               ? -1
               : 0;
}

const char *lda_doc_name(const lda_string_list *names, uint64_t d, char buf[24])
{
    if (names)
        return lda_string_list_get(names, (size_t)d);
    snprintf(buf, 24, "%" PRIu64, d);
    return buf;
}
