/* cmd_topics.c — `ldagpu topics MODEL [--top N]`: the top words of every topic. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "cli_parse.h"
#include "commands.h"
#include "model.h"

enum { OPT_TOP, OPT_HELP };

static const lda_option_spec topics_options[] = {
    [OPT_TOP] = {"top", 't', "N", "words per topic", "20"},
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec topics_spec = {
    "topics", "topics MODEL [options]",
    "Prints each topic of the model folder MODEL: its number, its share of the training tokens,\n"
    "and its most probable words.",
    topics_options, -1, OPT_HELP,
};

typedef struct {
    uint32_t top;
} topics_ctx;

static int apply_topics_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    topics_ctx *c = vctx;
    if (index == OPT_TOP)
        return lda_parse_u32(where, v, 1, 100000, &c->top, err);
    lda_error_fail(err, "internal error: option %d has no handler", index);
    return -1;
}

int lda_cmd_topics(int argc, char **argv)
{
    topics_ctx ctx = {20};
    lda_error err = {0};
    const char *positional[1];
    int npos, help;
    if (lda_options_parse(&topics_spec, argc, argv, apply_topics_option, &ctx, positional, 1, &npos, &help, &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&topics_spec, stdout);
        return LDA_EXIT_OK;
    }
    if (npos != 1) {
        lda_error_input(&err, "no model folder given (usage: ldagpu %s)", topics_spec.usage);
        return lda_report(argv[0], &err);
    }
    lda_model m;
    if (lda_model_read(&m, positional[0], 0, 0, &err))
        return lda_report(argv[0], &err);
    int rc = lda_model_print_topics(&m, stdout, ctx.top, &err) ? lda_report(argv[0], &err) : LDA_EXIT_OK;
    lda_model_free(&m);
    return rc;
}
