/* cli_parse.c — the options several commands share; see cli_parse.h. */
#include "cli/cli_parse.h"

#include "corpus/corpus.h"

int lda_parse_threads(const char *where, const char *text, int *out, lda_error *err)
{
    uint32_t n;
    if (lda_parse_u32(where, text, 1, 4096, &n, err))
        return -1;
    *out = (int)n;
    return 0;
}

int lda_parse_device(const char *where, const char *text, lda_device *out, lda_error *err)
{
    int choice;
    if (lda_parse_choice(where, text, lda_device_choices, &choice, err))
        return -1;
    *out = (lda_device)choice;
    return 0;
}

int lda_parse_corpus_format(const char *where, const char *text, corpus_format *out, lda_error *err)
{
    if (corpus_format_parse(text, out)) {
        lda_error_input(err, "%s: expected auto, text, uci or ldac, got '%s'", where, text);
        return -1;
    }
    return 0;
}
