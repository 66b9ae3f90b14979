/* cmd_format.c — `ldagpu format CORPUS [-o FILE] [reader options]`: a corpus in any format
 * written as ldagpu's binary corpus (corpus/corpus_binary.h), which every command then reads
 * in one pass. Its note says where it came from and how it was read (corpus_source_note); it
 * is not a cache: `train --cache auto` writes CORPUS.cache.ldab, not the default output
 * CORPUS.ldab, and never replaces a file format wrote (corpus/corpus_cache.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/corpus_option_rows.h"
#include "corpus/corpus_binary.h"
#include "corpus/corpus_cache.h"
#include "corpus/corpus_read.h"
#include "model/settings.h"
#include "util/clock.h"

enum {
    OPT_OUTPUT, LDA_READER_OPTION_IDS, OPT_HELP, OPT_COUNT
};

static const lda_option_spec format_options[] = {
    [OPT_OUTPUT] = {"output", 'o', "FILE", "the binary corpus to write", "CORPUS.ldab"},
    LDA_READER_OPTION_ROWS,
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec format_spec = {
    "format", "format CORPUS [-o FILE] [options]",
    "Reads CORPUS (raw text, UCI, LDA-C or binary, with train's reader options) and writes it as\n"
    "ldagpu's binary corpus, which every command reads in one pass instead of parsing: the same\n"
    "documents, word ids, vocabulary and empty-document counts.",
    format_options, -1, OPT_HELP,
    NULL,
};

typedef struct {
    const char *output;
    lda_settings settings; /* .corpus: the reader options, parsed by the settings table */
} format_ctx;

static int apply_format_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    format_ctx *c = vctx;
    if (index == OPT_OUTPUT) {
        c->output = v;
        return 0;
    }
    const lda_setting *setting = index >= 0 && index < OPT_COUNT ? lda_setting_by_option(format_options[index].name)
                                                                  : NULL;
    if (!setting) {
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
    return lda_setting_parse(setting, where, v, &c->settings, 0, err);
}

/* Reads path, writes output with the cache key as its note. */
static int format_corpus(const char *path, const char *output, const corpus_options *opt, lda_error *err)
{
    char *real_in = realpath(path, NULL), *real_out = realpath(output, NULL);
    const int same = real_in && real_out && strcmp(real_in, real_out) == 0;
    free(real_in);
    free(real_out);
    if (same) {
        lda_error_input(err, "-o %s is the corpus itself", output);
        return -1;
    }
    const double t0 = lda_now_seconds();
    corpus_format format;
    lda_error key_err = {0};                                       /* a corpus that cannot be described */
    char *key = corpus_source_note(path, opt, &format, &key_err); /* cannot be read either: corpus_read says why */
    corpus *c = corpus_read(path, opt, err);
    const double t1 = lda_now_seconds();
    int rc = !c || corpus_binary_write(output, c, c->format, key, err) ? -1 : 0;
    if (rc == 0)
        fprintf(stderr, "ldagpu format: wrote %s: %zu documents (%zu empty, skipped), %zu tokens, %u words from %s "
                        "(%s), read in %.2f s, written in %.2f s\n",
                output, c->num_docs, c->num_empty_docs, c->num_tokens, c->vocab_size, path,
                corpus_format_name(c->format), t1 - t0, lda_now_seconds() - t1);
    corpus_free(c);
    free(key);
    return rc;
}

int lda_cmd_format(int argc, char **argv)
{
    format_ctx ctx = {.output = NULL};
    lda_settings_default(&ctx.settings);
    lda_error err = {0};
    const char *positional[1];
    int npos, help;
    if (lda_options_parse(&format_spec, argc, argv, apply_format_option, &ctx, NULL, positional, 1, &npos, &help,
                          &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&format_spec, stdout);
        return LDA_EXIT_OK;
    }
    if (npos != 1) {
        lda_error_input(&err, "no corpus given (usage: ldagpu %s)", format_spec.usage);
        return lda_report(argv[0], &err);
    }
    char *output = NULL;
    const int named = ctx.output ? (output = strdup(ctx.output)) != NULL
                                 : asprintf(&output, "%s%s", positional[0], CORPUS_BINARY_SUFFIX) >= 0;
    if (!named) {
        lda_error_fail(&err, "out of memory");
        return lda_report(argv[0], &err);
    }
    int rc = format_corpus(positional[0], output, &ctx.settings.corpus, &err) ? lda_report(argv[0], &err) : LDA_EXIT_OK;
    free(output);
    return rc;
}
