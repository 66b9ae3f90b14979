/* text_fields.c — the named text formats' fields; see text_fields.h. */
#include "corpus/text_fields.h"

#include <stdio.h>
#include <string.h>

/* Fields before the text: 2 (name, label), 1 (name) or 0; the layout, for messages. */
static int fields_of(corpus_format f, const char **layout)
{
    *layout = f == CORPUS_FORMAT_MALLET ? "NAME<tab>LABEL<tab>TEXT (--format mallet)"
                                        : "NAME<tab>TEXT (--format named)";
    return f == CORPUS_FORMAT_MALLET ? 2 : f == CORPUS_FORMAT_NAMED ? 1 : 0;
}

const char *text_fields_split(corpus_format f, const char *line, size_t len, text_fields *out,
                              char why[TEXT_FIELDS_WHY_MAX])
{
    const char *layout;
    const int fields = fields_of(f, &layout);
    *out = (text_fields){NULL, NULL, line, 0, 0, len};
    const char *at = line, *end = line + len, *tab[2] = {NULL, NULL};
    for (int i = 0; i < fields; i++) {
        if (!(tab[i] = memchr(at, '\t', (size_t)(end - at)))) {
            snprintf(why, TEXT_FIELDS_WHY_MAX, "expected %s; the line has %s", layout, i ? "one tab" : "no tab");
            return why;
        }
        at = tab[i] + 1;
    }
    if (fields == 0)
        return NULL;
    out->name = line;
    out->name_len = (size_t)(tab[0] - line);
    if (fields == 2) {
        out->label = tab[0] + 1;
        out->label_len = (size_t)(tab[1] - out->label);
    }
    out->text = at;
    out->text_len = (size_t)(end - at);
    return NULL;
}

const char *text_field_problem(const char *s, size_t len, int is_name, char why[TEXT_FIELDS_WHY_MAX])
{
    const char *what = is_name ? "the document name" : "the label";
    if (is_name && len == 0) {
        snprintf(why, TEXT_FIELDS_WHY_MAX, "%s (the first field) is empty", what);
        return why;
    }
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) {
            snprintf(why, TEXT_FIELDS_WHY_MAX, "%s holds a control character (\\x%02x)", what, c);
            return why;
        }
    }
    return NULL;
}

/* Appends s[0..len) to *list (made when NULL). */
static int add(lda_string_list **list, const char *s, size_t len, lda_error *err)
{
    if (!*list && !(*list = lda_string_list_new(err)))
        return -1;
    return lda_string_list_add(*list, s, len, err);
}

int text_fields_take(corpus *c, corpus_format f, const gzlines *src, const char *line, size_t len,
                     const char **text, size_t *text_len, lda_error *err)
{
    text_fields t;
    char buf[TEXT_FIELDS_WHY_MAX];
    const char *why = text_fields_split(f, line, len, &t, buf);
    if (!why && t.name)
        why = text_field_problem(t.name, t.name_len, 1, buf);
    if (!why && t.label)
        why = text_field_problem(t.label, t.label_len, 0, buf);
    if (why) {
        lda_error_input(err, "%s:%zu: %s", gzlines_path(src), gzlines_lineno(src), why);
        return -1;
    }
    if ((t.name && add(&c->names, t.name, t.name_len, err)) || (t.label && add(&c->labels, t.label, t.label_len, err)))
        return -1;
    *text = t.text;
    *text_len = t.text_len;
    return 0;
}
