/* corpus.c — the corpus type (corpus.h): its options' defaults, format names, and freeing
 * it and its strings. Reading one is corpus_read.c's job; this file depends on no reader. */
#include "corpus/corpus.h"

#include <stdlib.h>
#include <string.h>

void corpus_options_default(corpus_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->format = CORPUS_FORMAT_AUTO;
    opt->lowercase = 1;
    opt->min_word_len = 3;
    opt->min_df = 2;
    opt->max_df = 0.5;
}

void corpus_free(corpus *c)
{
    if (!c)
        return;
    free(c->doc_offsets);
    free(c->words);
    free(c->input_index);
    free(c->input_unknown);
    free_strings(c->vocab, c->vocab_size);
    lda_string_list_free(c->names);
    lda_string_list_free(c->labels);
    free(c);
}

const lda_choice corpus_format_choices[] = {
    {"auto", CORPUS_FORMAT_AUTO, "detected from the first bytes and lines (never mallet or named)"},
    {"text", CORPUS_FORMAT_TEXT, "raw text, one document a line"},
    {"uci", CORPUS_FORMAT_UCI, "UCI bag-of-words: docword file and vocabulary"},
    {"ldac", CORPUS_FORMAT_LDAC, "LDA-C: N id:count ... lines and vocabulary"},
    {"binary", CORPUS_FORMAT_BINARY, "ldagpu's binary corpus (ldagpu format, generate, --cache)"},
    {"mallet", CORPUS_FORMAT_MALLET, "text lines NAME<tab>LABEL<tab>TEXT (Mallet's import-file): named documents"},
    {"named", CORPUS_FORMAT_NAMED, "text lines NAME<tab>TEXT: named documents"},
    {NULL, 0, NULL},
};

int corpus_format_is_text(corpus_format f)
{
    return f == CORPUS_FORMAT_TEXT || f == CORPUS_FORMAT_MALLET || f == CORPUS_FORMAT_NAMED;
}

const char *corpus_format_name(corpus_format f)
{
    return lda_choice_name(corpus_format_choices, (int)f);
}

int corpus_format_parse(const char *name, corpus_format *out)
{
    const int f = lda_choice_parse(corpus_format_choices, name);
    if (f < 0)
        return -1;
    *out = (corpus_format)f;
    return 0;
}

char **copy_strings(char *const *words, size_t n, lda_error *err)
{
    char **copy = lda_calloc(n, sizeof *copy, "vocabulary", err);
    if (!copy)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        copy[i] = strdup(words[i]);
        if (!copy[i]) {
            lda_error_fail(err, "out of memory (copying the vocabulary)");
            free_strings(copy, i);
            return NULL;
        }
    }
    return copy;
}

void free_strings(char **words, size_t n)
{
    if (!words)
        return;
    for (size_t i = 0; i < n; i++)
        free(words[i]);
    free(words);
}
