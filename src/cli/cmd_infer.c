/* cmd_infer.c — `ldagpu infer MODEL CORPUS [-o theta.tsv] [--doc-topics dense|top:N]`: topic
 * proportions of new documents under a trained model's φ (inference.h), every one or each
 * document's largest (model/theta.h's order, as train's top:N). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "cli/model_run_options.h"
#include "model/checkpoint.h"
#include "model/model.h"
#include "model/model_corpus.h"
#include "model/theta.h"
#include "train/inference.h"
#include "util/atomic_file.h"
#include "util/clock.h"

enum {
    OPT_OUTPUT, OPT_DOC_TOPICS, OPT_ITERATIONS, OPT_SEED, LDA_MODEL_RUN_OPTION_IDS,
    OPT_HELP
};

static const lda_choice infer_doc_topics[] = {
    {"dense", LDA_DOC_TOPICS_DENSE, "the K proportions of each document"},
    {"top:N", LDA_DOC_TOPICS_TOP, "its N largest, topic and proportion pairs, as train's top:N orders them"},
    {NULL, 0, NULL},
};

static const lda_option_spec infer_options[] = {
    [OPT_OUTPUT] = {"output", 'o', "FILE", "θ as TSV: a header, then one row per input document (its 0-based "
                    "index, its name and label when the corpus has them, and K proportions); '-' is stdout", "-"},
    [OPT_DOC_TOPICS] = {"doc-topics", 0, "FORM", "what each row holds", "dense", infer_doc_topics},
    [OPT_ITERATIONS] = {"iterations", 'n', "N", "sampling sweeps over the documents", "50", .mallet = "num-iterations"},
    [OPT_SEED] = {"seed", 's', "S", "random seed; the same seed, model, corpus and device give the same θ", "1",
                  .mallet = "random-seed"},
    LDA_MODEL_RUN_OPTION_ROWS,
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec infer_spec = {
    "infer", "infer MODEL CORPUS [options]",
    "Estimates the topic proportions θ of the documents of CORPUS with the topics of the model\n"
    "folder MODEL held fixed: z is sampled for N sweeps, θ is the mean given the last z. Words the\n"
    "model does not know are counted and skipped; documents left without words get the uniform row.",
    infer_options, -1, OPT_HELP,
    NULL,
};

typedef struct {
    const char *output;
    lda_doc_topics doc_topics; /* dense or top:N */
    uint32_t iterations;
    uint64_t seed;
    lda_model_run_options run;
} infer_ctx;

static int apply_infer_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    infer_ctx *c = vctx;
    switch (index) {
    case OPT_OUTPUT:
        c->output = v;
        return 0;
    case OPT_DOC_TOPICS:
        if (lda_doc_topics_parse(where, v, &c->doc_topics, err))
            return -1;
        if (c->doc_topics.form != LDA_DOC_TOPICS_DENSE && c->doc_topics.form != LDA_DOC_TOPICS_TOP) {
            lda_error_input(err, "%s: infer writes dense or top:N, got '%s'", where, v);
            return -1;
        }
        return 0;
    case OPT_ITERATIONS:
        return lda_parse_u32(where, v, 1, 100000000, &c->iterations, err);
    case OPT_SEED:
        return lda_parse_u64(where, v, 0, UINT64_MAX, &c->seed, err);
    case OPT_DEVICE:
    case OPT_THREADS:
    case OPT_FORMAT:
    case OPT_VOCAB:
    case OPT_FORCE_TEXT:
        return lda_apply_model_run_option(&c->run, index - OPT_DEVICE, v, where, err);
    default:
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
}

/* One row per input document: its 0-based index, its name and label where the corpus has them,
 * then, dense, its K proportions; top:N, its N largest as topic and proportion pairs (theta.h's
 * order). */
static int write_theta(FILE *f, const corpus *c, const lda_layout *L, const float *theta_slots, uint32_t K,
                       const lda_doc_topics *form, lda_error *err)
{
    const uint32_t n = form->form == LDA_DOC_TOPICS_TOP ? (form->top < K ? form->top : K) : 0;
    float *uniform = lda_malloc_array(K, sizeof *uniform, "a theta row", err), *weights = NULL;
    uint32_t *topics = NULL;
    if (!uniform || !(topics = lda_malloc_array(n ? n : 1, sizeof *topics, "top topics", err)) ||
        !(weights = lda_malloc_array(n ? n : 1, sizeof *weights, "top topics", err))) {
        free(uniform);
        free(topics);
        return -1;
    }
    for (uint32_t k = 0; k < K; k++)
        uniform[k] = 1.0f / (float)K;
    fprintf(f, "document%s%s", c->names ? "\tname" : "", c->labels ? "\tlabel" : "");
    for (uint32_t k = 0; k < (n ? n : K); k++)
        if (n)
            fprintf(f, "\ttop%u_topic\ttop%u_weight", k + 1, k + 1);
        else
            fprintf(f, "\ttopic%u", k);
    fputc('\n', f);
    size_t kept = 0;
    for (size_t i = 0; i < c->num_input_docs; i++) {
        const float *row = lda_theta_input_row(c, L, theta_slots, K, i, &kept, uniform);
        fprintf(f, "%zu", i);
        if (c->names) /* a corpus with names (text_fields.h) */
            fprintf(f, "\t%s", lda_string_list_get(c->names, i));
        if (c->labels)
            fprintf(f, "\t%s", lda_string_list_get(c->labels, i));
        if (n) {
            lda_top_entries(NULL, row, K, n, topics, weights);
            for (uint32_t r = 0; r < n; r++)
                fprintf(f, "\t%u\t%.6g", topics[r], weights[r]);
        } else {
            for (uint32_t k = 0; k < K; k++)
                fprintf(f, "\t%.6g", row[k]);
        }
        fputc('\n', f);
    }
    free(uniform);
    free(topics);
    free(weights);
    if (ferror(f)) {
        lda_error_fail(err, "cannot write θ: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int lda_cmd_infer(int argc, char **argv)
{
    infer_ctx ctx = {"-", {LDA_DOC_TOPICS_DENSE, 0, 0.0}, 50, 1, LDA_MODEL_RUN_OPTIONS_DEFAULT};
    lda_error err = {0};
    const char *positional[2];
    int npos, help;
    if (lda_options_parse(&infer_spec, argc, argv, apply_infer_option, &ctx, NULL, positional, 2, &npos, &help, &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&infer_spec, stdout);
        return LDA_EXIT_OK;
    }
    if (npos != 2) {
        lda_error_input(&err, "expected a model folder and a corpus (usage: ldagpu %s)", infer_spec.usage);
        return lda_report(argv[0], &err);
    }
    lda_model m;
    corpus *c = NULL;
    lda_layout *L = NULL;
    float *theta = NULL;
    int to_stdout = strcmp(ctx.output, "-") == 0, rc = -1;
    lda_atomic_file af = {0};
    if (lda_backend_check_device(ctx.run.device, &err) || lda_model_read_finished(&m, positional[0], 0, 0, &err))
        return lda_report(argv[0], &err);
    /* The output first: a path that cannot be written (or is the corpus) fails before the work. */
    if (!to_stdout && (lda_atomic_protect(positional[1], "the corpus", &err) || lda_atomic_open(&af, ctx.output, &err)))
        goto out;
    double t0 = lda_now_seconds();
    m.settings.corpus.force_text |= ctx.run.force_text;
    if (!(c = lda_model_read_corpus(&m, positional[1], ctx.run.format, ctx.run.vocab, &err)))
        goto out;
    fprintf(stderr, "ldagpu infer: %s: %zu documents, %zu tokens; %zu tokens of words the model does not know "
                    "skipped\n",
            positional[1], c->num_input_docs, c->num_tokens, c->num_unknown_tokens);
    if (c->num_empty_docs)
        fprintf(stderr, "ldagpu infer: %zu document%s without a known word get%s the uniform row\n",
                c->num_empty_docs, c->num_empty_docs == 1 ? "" : "s", c->num_empty_docs == 1 ? "s" : "");
    lda_params p = m.settings.params;
    p.device = ctx.run.device;
    p.threads = ctx.run.threads;
    p.seed = ctx.seed;
    if (lda_model_infer(&m, c, &p, ctx.iterations, &L, &theta, &err))
        goto out;
    if (to_stdout) {
        if (write_theta(stdout, c, L, theta, m.num_topics, &ctx.doc_topics, &err))
            goto out;
        if (fflush(stdout) != 0) {
            lda_error_fail(&err, "cannot write θ to stdout: %s", strerror(errno));
            goto out;
        }
    } else {
        if (write_theta(af.f, c, L, theta, m.num_topics, &ctx.doc_topics, &err))
            goto out;
        if (lda_atomic_commit(&af, &err))
            goto out;
    }
    fprintf(stderr, "ldagpu infer: θ of %zu documents (K=%u, %u sweeps) in %.2f s%s%s\n", c->num_input_docs,
            m.num_topics, ctx.iterations, lda_now_seconds() - t0, to_stdout ? "" : " written to ",
            to_stdout ? "" : ctx.output);
    rc = 0;
out:
    if (af.f)
        lda_atomic_abort(&af);
    free(theta);
    lda_layout_free(L);
    corpus_free(c);
    lda_model_free(&m);
    return rc ? lda_report(argv[0], &err) : LDA_EXIT_OK;
}
