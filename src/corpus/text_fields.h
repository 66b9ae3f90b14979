/* text_fields.h — the named text formats: each line's document name (and label) split off
 * before its text is tokenized.
 *
 *   --format mallet   NAME<tab>LABEL<tab>TEXT   (the lines Mallet's import-file reads)
 *   --format named    NAME<tab>TEXT
 *
 * The text is the rest of the line, tabs and all. These formats are chosen by name, never
 * detected: a plain text line may hold tabs, and reading it as named would take its first words
 * away without a word. A line without its tabs is refused with its file and line. A name is not
 * empty; names and labels hold no control character (a byte below 0x20, or 0x7f), so each stays
 * one field of the TSV and Mallet outputs that list documents and one line of the model's
 * doc_names.txt and doc_labels.txt. */
#ifndef LDA_TEXT_FIELDS_H
#define LDA_TEXT_FIELDS_H

#include <stddef.h>

#include "core/error.h"
#include "corpus/corpus.h"
#include "util/gzlines.h"

/* Room for what is wrong with a line. */
enum { TEXT_FIELDS_WHY_MAX = 128 };

typedef struct {
    const char *name, *label, *text; /* label NULL: the format has none; name NULL: neither */
    size_t name_len, label_len, text_len;
} text_fields;

/* Splits line[0..len) as format f lays it out (a format without names: all of it is text).
 * NULL when the line fits; else what is wrong with it, written in why ("expected ...; the line
 * has no tab"). */
const char *text_fields_split(corpus_format f, const char *line, size_t len, text_fields *out,
                              char why[TEXT_FIELDS_WHY_MAX]);

/* NULL when s[0..len) may be a document name (is_name) or a label; else what is wrong with it,
 * written in why ("the document name holds a control character (\x01)"). */
const char *text_field_problem(const char *s, size_t len, int is_name, char why[TEXT_FIELDS_WHY_MAX]);

/* The reader's step for src's current line: splits it, appends its name and label to c->names
 * and c->labels (made at the first line) and gives its text. -1 with "FILE:LINE: what is
 * wrong" (status 2) for a line that does not fit. */
int text_fields_take(corpus *c, corpus_format f, const gzlines *src, const char *line, size_t len,
                     const char **text, size_t *text_len, lda_error *err);

#endif
