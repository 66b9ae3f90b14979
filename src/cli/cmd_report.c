/* cmd_report.c — `ldagpu report MODEL [-o report.html]`: one self-contained HTML page about
 * a model (report.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "model/model.h"
#include "model/report.h"
#include "model/train_log.h"
#include "train/heldout.h"
#include "util/atomic_file.h"

enum { OPT_OUTPUT, OPT_TOP, OPT_DOCS, OPT_CORPUS, OPT_THREADS, OPT_HELP };

static const lda_option_spec report_options[] = {
    [OPT_OUTPUT] = {"output", 'o', "FILE", "the HTML page to write", "report.html"},
    [OPT_TOP] = {"top", 't', "N", "words shown per topic", "15"},
    [OPT_DOCS] = {"docs", 0, "N", "documents shown per topic (those with the largest share of it)", "5"},
    [OPT_CORPUS] = {"corpus", 0, "PATH", "where the training corpus is now, if it moved", "the path in model.conf"},
    [OPT_THREADS] = {"threads", 'j', "N", "threads for the topic distances", "all cores"},
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec report_spec = {
    "report", "report MODEL [options]",
    "Writes one self-contained HTML page about the model folder MODEL (inline SVG and script, no\n"
    "network): the intertopic distance map (Jensen-Shannon divergences between topics placed by\n"
    "classical multidimensional scaling, as LDAvis), every topic's share, coherence and top words\n"
    "with bars, the documents most about each topic, and the training curves of log.csv. Coherence,\n"
    "word counts and documents come from the training corpus; without it the page says so.",
    report_options, -1, OPT_HELP,
    NULL,
};

typedef struct {
    const char *output, *corpus;
    uint32_t top, docs;
    int threads;
} report_ctx;

static int apply_report_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    report_ctx *c = vctx;
    switch (index) {
    case OPT_OUTPUT:
        c->output = v;
        return 0;
    case OPT_TOP:
        return lda_parse_u32(where, v, 1, 1000, &c->top, err);
    case OPT_DOCS:
        return lda_parse_u32(where, v, 0, 1000, &c->docs, err);
    case OPT_CORPUS:
        c->corpus = v;
        return 0;
    case OPT_THREADS:
        return lda_parse_threads(where, v, &c->threads, err);
    default:
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
}

int lda_cmd_report(int argc, char **argv)
{
    report_ctx ctx = {"report.html", NULL, 15, 5, 0};
    lda_error err = {0};
    const char *positional[1];
    int npos, help;
    if (lda_options_parse(&report_spec, argc, argv, apply_report_option, &ctx, NULL, positional, 1, &npos, &help, &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&report_spec, stdout);
        return LDA_EXIT_OK;
    }
    if (npos != 1) {
        lda_error_input(&err, "no model folder given (usage: ldagpu %s)", report_spec.usage);
        return lda_report(argv[0], &err);
    }
    lda_model m;
    lda_train_log log;
    lda_train_log_init(&log, NULL, 0, 0);
    corpus *docs = NULL;
    lda_html_report r = {0};
    lda_atomic_file af = {0};
    char *csv = NULL;
    int rc = -1, mismatch = 0;
    if (lda_model_read(&m, positional[0], 1, 0, &err))
        return lda_report(argv[0], &err);
    /* The output first: a path that cannot be written fails before the work. */
    if (lda_atomic_open(&af, ctx.output, &err) || !(csv = lda_path_join(positional[0], "log.csv", &err)) ||
        (access(csv, F_OK) == 0 && lda_train_log_read_csv(&log, csv, &err)))
        goto out;
    /* Without the corpus the page still has the map, the words and the curves; another corpus
     * than the model's is refused (its documents are not θ's rows). */
    lda_error corpus_err = {0};
    if (!(docs = lda_trained_documents(&m, positional[0], ctx.corpus, &mismatch, &corpus_err))) {
        if (mismatch) {
            err = corpus_err;
            goto out;
        }
        fprintf(stderr, "ldagpu report: warning: %s; the page has no coherence, word counts or document texts\n",
                corpus_err.msg);
    }
    r.m = &m;
    r.log = &log;
    r.title = positional[0];
    r.top_words = ctx.top;
    r.top_docs = ctx.docs;
    if (lda_report_gather(&r, docs, ctx.corpus ? ctx.corpus : m.corpus_path, corpus_err.msg, ctx.threads, &err) ||
        lda_report_write_html(&r, af.f, &err))
        goto out;
    if (ferror(af.f)) {
        lda_error_fail(&err, "cannot write %s: %s", ctx.output, strerror(errno));
        goto out;
    }
    if (lda_atomic_commit(&af, &err))
        goto out;
    fprintf(stderr, "ldagpu report: %s written (%u topics)\n", ctx.output, m.num_topics);
    rc = 0;
out:
    if (af.f)
        lda_atomic_abort(&af);
    lda_report_free(&r);
    corpus_free(docs);
    free(csv);
    lda_train_log_free(&log);
    lda_model_free(&m);
    return rc ? lda_report(argv[0], &err) : LDA_EXIT_OK;
}
