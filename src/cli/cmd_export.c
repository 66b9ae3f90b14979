/* cmd_export.c — `ldagpu export MODEL --output-topic-keys F --output-doc-topics F --pyldavis F`:
 * the model in the text formats Mallet writes and as pyLDAvis.prepare's arguments (export.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "model/export.h"
#include "model/model.h"
#include "train/heldout.h"
#include "util/atomic_file.h"

enum { OPT_TOPIC_KEYS, OPT_DOC_TOPICS, OPT_PYLDAVIS, OPT_COUNTS, OPT_TOP_WORDS, OPT_THRESHOLD, OPT_MAX, OPT_CORPUS, OPT_HELP };

static const lda_option_spec export_options[] = {
    [OPT_TOPIC_KEYS] = {"output-topic-keys", 0, "FILE", "Mallet's topic keys: 'TOPIC<tab>ALPHA<tab>word word ...' "
                        "a line", NULL},
    [OPT_DOC_TOPICS] = {"output-doc-topics", 0, "FILE", "Mallet's document topics: 'DOC<tab>NAME<tab>p0<tab>p1 "
                        "...' a line, θ of every input document (NAME: its name, or DOC again)", NULL},
    [OPT_PYLDAVIS] = {"pyldavis", 0, "FILE", "JSON for pyLDAvis.prepare(**json.load(f)) (reads the training "
                      "corpus)", NULL},
    [OPT_COUNTS] = {"counts", 0, "DIR", "the count matrices of the last z as NumPy files in DIR: "
                    "topic_word_counts.npy (K x V) and doc_topic_counts.npy (D x K) (reads the training corpus)", NULL},
    [OPT_TOP_WORDS] = {"num-top-words", 0, "N", "words per topic in the topic keys", "20"},
    [OPT_THRESHOLD] = {"doc-topics-threshold", 0, "F", "document topics: only topics of at least this proportion, "
                       "largest first, as 'TOPIC<tab>PROPORTION' pairs (Mallet's sparse form)", "0: dense"},
    [OPT_MAX] = {"doc-topics-max", 0, "N", "document topics: at most N topics a document (sparse form)",
                 "all"},
    [OPT_CORPUS] = {"corpus", 0, "PATH", "where the training corpus is now, if it moved", "the path in model.conf"},
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec export_spec = {
    "export", "export MODEL [options]",
    "Writes the model folder MODEL in formats other tools read: Mallet's topic keys and document\n"
    "topics (--output-topic-keys, --output-doc-topics), and pyLDAvis's input (--pyldavis; the\n"
    "documents trained on, held-out ones excluded), and the count matrices as NumPy files (--counts).\n"
    "φ, θ, the topic sizes and z are already NumPy files in MODEL (phi.npy, θ in the form train's\n"
    "--doc-topics chose: theta.npy, doc_topics_*.npy or theta_*.npy, topic_tokens.npy, z.npy). Document\n"
    "topics and pyLDAvis need θ: from a model that keeps part of it (top:N, sparse:EPS), the document\n"
    "topics it holds exactly are written and others refused, and pyLDAvis gets its rows rescaled (said).",
    export_options, -1, OPT_HELP,
    NULL,
};

typedef struct {
    const char *topic_keys, *doc_topics, *pyldavis, *counts, *corpus;
    uint32_t top_words, max;
    double threshold;
    int sparse;
} export_ctx;

static int apply_export_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    export_ctx *c = vctx;
    switch (index) {
    case OPT_TOPIC_KEYS:
        c->topic_keys = v;
        return 0;
    case OPT_DOC_TOPICS:
        c->doc_topics = v;
        return 0;
    case OPT_PYLDAVIS:
        c->pyldavis = v;
        return 0;
    case OPT_COUNTS:
        c->counts = v;
        return 0;
    case OPT_TOP_WORDS:
        return lda_parse_u32(where, v, 1, 100000, &c->top_words, err);
    case OPT_THRESHOLD:
        c->sparse = 1;
        return lda_parse_double(where, v, 0.0, 0, 1.0, &c->threshold, err);
    case OPT_MAX:
        c->sparse = 1;
        return lda_parse_u32(where, v, 1, UINT32_MAX, &c->max, err);
    case OPT_CORPUS:
        c->corpus = v;
        return 0;
    default:
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
}

typedef enum { OUT_TOPIC_KEYS, OUT_DOC_TOPICS, OUT_PYLDAVIS } output_kind;

/* Writes one output to path atomically. */
static int write_output(output_kind kind, const char *path, const export_ctx *ctx, const lda_model *m,
                        const corpus *docs, uint64_t *empty_rows, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    int rc = kind == OUT_TOPIC_KEYS ? lda_export_topic_keys(m, ctx->top_words, af.f, err)
             : kind == OUT_DOC_TOPICS ? lda_export_doc_topics(m, ctx->sparse, ctx->threshold, ctx->max, af.f, err)
                                      : lda_export_pyldavis(m, docs, af.f, empty_rows, err);
    if (rc == 0 && ferror(af.f)) {
        lda_error_fail(err, "cannot write %s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc) {
        lda_atomic_abort(&af);
        return -1;
    }
    return lda_atomic_commit(&af, err);
}

/* --counts DIR names a folder or one that can be made: anything else is the user's mistake
 * (status 2), found before the model is read. */
static int check_counts_folder(const char *dir, lda_error *err)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (errno != ENOTDIR)
            return 0;
        lda_error_input(err, "--counts %s: a part of it is not a folder", dir);
        return -1;
    }
    if (S_ISDIR(sb.st_mode))
        return 0;
    lda_error_input(err, "--counts %s: it exists and is not a folder", dir);
    return -1;
}

int lda_export_mallet_files(const char *dir, const char *topic_keys, const char *doc_topics, uint32_t top_words,
                            lda_doc_topics *written, lda_error *err)
{
    export_ctx ctx = {topic_keys, doc_topics, NULL, NULL, NULL, top_words, 0, 0.0, 0};
    lda_model m;
    if (lda_model_read(&m, dir, doc_topics != NULL, 0, err))
        return -1;
    const lda_doc_topics *form = &m.theta.form;
    ctx.sparse = doc_topics && !lda_theta_complete(&m.theta); /* Mallet's sparse form of what θ keeps */
    ctx.max = form->form == LDA_DOC_TOPICS_TOP ? form->top : 0;
    ctx.threshold = form->form == LDA_DOC_TOPICS_SPARSE ? form->threshold : 0.0;
    if (written)
        *written = *form;
    const int rc = (doc_topics && lda_export_doc_topics_check(&m, dir, ctx.sparse, ctx.threshold, ctx.max, err)) ||
                   (topic_keys && write_output(OUT_TOPIC_KEYS, topic_keys, &ctx, &m, NULL, NULL, err)) ||
                   (doc_topics && write_output(OUT_DOC_TOPICS, doc_topics, &ctx, &m, NULL, NULL, err))
                       ? -1
                       : 0;
    lda_model_free(&m);
    return rc;
}

int lda_cmd_export(int argc, char **argv)
{
    export_ctx ctx = {NULL, NULL, NULL, NULL, NULL, 20, 0, 0.0, 0};
    lda_error err = {0};
    const char *positional[1];
    int npos, help;
    if (lda_options_parse(&export_spec, argc, argv, apply_export_option, &ctx, NULL, positional, 1, &npos, &help, &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&export_spec, stdout);
        return LDA_EXIT_OK;
    }
    if (npos != 1) {
        lda_error_input(&err, "no model folder given (usage: ldagpu %s)", export_spec.usage);
        return lda_report(argv[0], &err);
    }
    if (!ctx.topic_keys && !ctx.doc_topics && !ctx.pyldavis && !ctx.counts) {
        lda_error_input(&err, "nothing to export: give --output-topic-keys, --output-doc-topics, --pyldavis or "
                              "--counts (see 'ldagpu export --help')");
        return lda_report(argv[0], &err);
    }
    lda_model m;
    corpus *docs = NULL;
    uint64_t empty_rows = 0;
    int rc = -1, mismatch = 0;
    if (ctx.counts && check_counts_folder(ctx.counts, &err))
        return lda_report(argv[0], &err);
    if (lda_model_read(&m, positional[0], ctx.doc_topics || ctx.pyldavis, ctx.counts != NULL, &err))
        return lda_report(argv[0], &err);
    /* Before any output is written: what θ cannot give is refused. */
    if (ctx.doc_topics &&
        lda_export_doc_topics_check(&m, positional[0], ctx.sparse, ctx.threshold, ctx.max, &err))
        goto out;
    if (ctx.pyldavis && m.theta.form.form == LDA_DOC_TOPICS_NONE) {
        lda_theta_refuse(&m.theta, positional[0], "pyLDAvis needs θ", "dense", &err);
        goto out;
    }
    if ((ctx.pyldavis || ctx.counts) && !(docs = lda_trained_documents(&m, positional[0], ctx.corpus, &mismatch, &err)))
        goto out;
    if ((ctx.topic_keys && write_output(OUT_TOPIC_KEYS, ctx.topic_keys, &ctx, &m, docs, NULL, &err)) ||
        (ctx.doc_topics && write_output(OUT_DOC_TOPICS, ctx.doc_topics, &ctx, &m, docs, NULL, &err)) ||
        (ctx.pyldavis && write_output(OUT_PYLDAVIS, ctx.pyldavis, &ctx, &m, docs, &empty_rows, &err)) ||
        (ctx.counts && lda_export_counts(&m, docs, ctx.counts, &err)))
        goto out;
    if (ctx.pyldavis && !lda_theta_complete(&m.theta)) {
        char form[64];
        fprintf(stderr, "ldagpu export: warning: %s keeps θ as %s: pyLDAvis's doc_topic_dists are its kept entries, "
                        "the others 0, each row rescaled to sum to 1 (%llu rows kept none and are uniform): an "
                        "approximation; 'ldagpu train --resume %s -n 0 --doc-topics dense' gives every entry\n",
                positional[0], lda_doc_topics_format(&m.theta.form, form, sizeof form),
                (unsigned long long)empty_rows, positional[0]);
    }
    rc = 0;
out:
    corpus_free(docs);
    lda_model_free(&m);
    return rc ? lda_report(argv[0], &err) : LDA_EXIT_OK;
}
