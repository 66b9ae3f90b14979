/* cmd_train.c — `ldagpu train CORPUS [options]` and `ldagpu train --resume MODEL [options]`. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "train/trainer.h"

enum {
    OPT_TOPICS, OPT_ITERATIONS, OPT_ALPHA, OPT_BETA, OPT_SEED, OPT_OUTPUT, OPT_UPDATE, OPT_PRECISION,
    OPT_DEVICE, OPT_SAMPLER, OPT_MODEL, OPT_SPLIT, OPT_REFRESH, OPT_THREADS, OPT_EVAL_EVERY, OPT_FORMAT, OPT_VOCAB,
    OPT_STOPWORDS, OPT_MIN_WORD_LEN, OPT_MIN_DF, OPT_MAX_DF, OPT_MAX_VOCAB, OPT_TOP, OPT_QUIET, OPT_HOLDOUT,
    OPT_HOLDOUT_ITERATIONS, OPT_CHECKPOINT_EVERY, OPT_RESUME, OPT_CONFIG, OPT_HELP, OPT_COUNT
};

static const lda_option_spec train_options[] = {
    [OPT_TOPICS] = {"topics", 'K', "N", "number of topics", "100"},
    [OPT_ITERATIONS] = {"iterations", 'n', "N", "Gibbs iterations", "100"},
    [OPT_ALPHA] = {"alpha", 'a', "A", "symmetric document-topic prior", "50/K"},
    [OPT_BETA] = {"beta", 'b', "B", "symmetric topic-word prior", "0.01"},
    [OPT_SEED] = {"seed", 's', "S", "random seed; the same seed, corpus and device give the same model", "1"},
    [OPT_OUTPUT] = {"output", 'o', "DIR", "model folder to write", "model"},
    [OPT_UPDATE] = {"update", 0, "draw|mean", "θ/φ update rule", "draw", lda_update_choices},
    [OPT_PRECISION] = {"precision", 0, "float|double", "precision of the sampler's partial sums", "float",
                       lda_precision_choices},
    [OPT_DEVICE] = {"device", 0, "auto|cpu|cuda", "where to train", "auto", lda_device_choices},
    [OPT_SAMPLER] = {"sampler", 0, "NAME", "GPU z-sampling kernel", "butterfly", lda_sampler_choices},
    [OPT_MODEL] = {"model", 'm', "NAME", "model version (sets --update too)", "uncollapsed", lda_model_choices},
    [OPT_SPLIT] = {"split", 0, "N", "butterfly: warps sharing a document group's token rows (0: the sampler's choice)", "0"},
    [OPT_REFRESH] = {"refresh", 0, "R", "draw z in R parts, bringing counts and φ up to date after each (butterfly)",
                     "1"},
    [OPT_THREADS] = {"threads", 'j', "N", "CPU threads (CPU backend)", "all cores"},
    [OPT_EVAL_EVERY] = {"eval-every", 'e', "N", "log-likelihoods every N iterations (0: only the last)", "10"},
    [OPT_FORMAT] = {"format", 'f', "auto|text|uci|ldac", "corpus format", "auto"},
    [OPT_VOCAB] = {"vocab", 0, "FILE|none", "vocabulary file of a UCI or LDA-C corpus (none: words named by their ids)", "derived from the corpus name"},
    [OPT_STOPWORDS] = {"stopwords", 0, "FILE|none", "stop-word list for raw text", "built-in English list"},
    [OPT_MIN_WORD_LEN] = {"min-word-length", 0, "N", "raw text: drop shorter words", "3"},
    [OPT_MIN_DF] = {"min-df", 0, "N", "raw text: drop words in fewer documents", "2"},
    [OPT_MAX_DF] = {"max-df", 0, "F", "raw text: drop words in more than this fraction of documents", "0.5"},
    [OPT_MAX_VOCAB] = {"max-vocab", 0, "N", "raw text: keep the N most frequent words (0: all)", "0"},
    [OPT_TOP] = {"top", 't', "N", "top words per topic in topics.txt", "20"},
    [OPT_QUIET] = {"quiet", 'q', NULL, "no per-iteration log lines", NULL},
    [OPT_HOLDOUT] = {"holdout", 0, "F", "hold out this fraction of the documents (chosen by the seed) and report their "
                     "per-token log-likelihood by document completion on evaluated iterations", "0"},
    [OPT_HOLDOUT_ITERATIONS] = {"holdout-iterations", 0, "N", "sweeps estimating θ of each held-out document", "20"},
    [OPT_CHECKPOINT_EVERY] = {"checkpoint-every", 0, "N", "write a resumable state to OUTPUT/checkpoint every N "
                              "iterations (0: never; SIGINT/SIGTERM always write one)", "0"},
    [OPT_RESUME] = {"resume", 0, "MODEL", "continue MODEL's run (its newest state) for -n more iterations, with its "
                    "settings and corpus; CORPUS is then optional", NULL},
    [OPT_CONFIG] = {"config", 'c', "FILE", "read 'key = value' settings first (keys: the long options)", NULL},
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec train_spec = {
    "train",
    "train CORPUS [options]  |  train --resume MODEL [-n N] [options]",
    "Trains an LDA topic model on CORPUS with an uncollapsed Gibbs sampler and writes the model\n"
    "folder. CORPUS is raw text (one document per line), a UCI docword file, or LDA-C; gzip is fine.\n"
    "With --resume, only -n, -o, --eval-every, --checkpoint-every, -j, -q, --device, --sampler, -t and\n"
    "--vocab may differ from the model's settings; 50 + 50 resumed iterations equal 100 in one run.\n"
    "SIGINT or SIGTERM stops after the current iteration and writes a checkpoint and the model\n"
    "(exit status 130 or 143).",
    train_options,
    OPT_CONFIG,
    OPT_HELP,
};

typedef struct {
    lda_train_options o;
    const char *resume;             /* --resume MODEL */
    unsigned char given[OPT_COUNT]; /* options set by a flag or the config file */
} train_ctx;

static int apply_train_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    train_ctx *ctx = vctx;
    lda_train_options *o = &ctx->o;
    lda_params *p = &o->params;
    if (index >= 0 && index < OPT_COUNT)
        ctx->given[index] = 1;
    corpus_options *co = &o->corpus;
    int choice;
    uint32_t u32;
    uint64_t u64;
    switch (index) {
    case OPT_TOPICS:
        return lda_parse_u32(where, v, 1, 1u << 20, &p->num_topics, err);
    case OPT_ITERATIONS:
        return lda_parse_u32(where, v, 0, 100000000, &p->iterations, err);
    case OPT_ALPHA:
        return lda_parse_double(where, v, 0.0, 1, INFINITY, &p->alpha, err);
    case OPT_BETA:
        return lda_parse_double(where, v, 0.0, 1, INFINITY, &p->beta, err);
    case OPT_SEED:
        return lda_parse_u64(where, v, 0, UINT64_MAX, &p->seed, err);
    case OPT_OUTPUT:
        o->output_dir = v;
        return 0;
    case OPT_UPDATE:
        if (lda_parse_choice(where, v, lda_update_choices, &choice, err))
            return -1;
        p->update = (lda_update)choice;
        return 0;
    case OPT_PRECISION:
        if (lda_parse_choice(where, v, lda_precision_choices, &choice, err))
            return -1;
        p->precision = (lda_precision)choice;
        return 0;
    case OPT_DEVICE:
        return lda_parse_device(where, v, &p->device, err);
    case OPT_SAMPLER:
        if (lda_parse_choice(where, v, lda_sampler_choices, &choice, err))
            return -1;
        p->sampler = (lda_sampler)choice;
        return 0;
    case OPT_MODEL:
        if (lda_parse_choice(where, v, lda_model_choices, &choice, err))
            return -1;
        lda_params_set_model(p, (lda_model_kind)choice);
        return 0;
    case OPT_SPLIT:
        return lda_parse_u32(where, v, 0, 1024, &p->split, err);
    case OPT_REFRESH:
        return lda_parse_u32(where, v, 1, 256, &p->refresh, err);
    case OPT_THREADS:
        return lda_parse_threads(where, v, &p->threads, err);
    case OPT_EVAL_EVERY:
        return lda_parse_u32(where, v, 0, UINT32_MAX, &p->eval_every, err);
    case OPT_FORMAT:
        return lda_parse_corpus_format(where, v, &co->format, err);
    case OPT_VOCAB:
        co->vocab_path = v;
        return 0;
    case OPT_STOPWORDS:
        co->stopwords_path = v;
        return 0;
    case OPT_MIN_WORD_LEN:
        if (lda_parse_u32(where, v, 1, 1000, &u32, err))
            return -1;
        co->min_word_len = (int)u32;
        return 0;
    case OPT_MIN_DF:
        if (lda_parse_u64(where, v, 1, UINT64_MAX, &u64, err))
            return -1;
        co->min_df = (size_t)u64;
        return 0;
    case OPT_MAX_DF:
        return lda_parse_double(where, v, 0.0, 1, 1.0, &co->max_df, err);
    case OPT_MAX_VOCAB:
        if (lda_parse_u64(where, v, 0, UINT32_MAX, &u64, err))
            return -1;
        co->max_vocab = (size_t)u64;
        return 0;
    case OPT_TOP:
        return lda_parse_u32(where, v, 1, 100000, &o->top_words, err);
    case OPT_QUIET:
        if (!v) {
            o->quiet = 1;
            return 0;
        }
        return lda_parse_flag_value(where, v, &o->quiet, err);
    case OPT_HOLDOUT:
        if (lda_parse_double(where, v, 0.0, 0, 1.0, &o->holdout, err) || o->holdout >= 1.0) {
            lda_error_input(err, "%s: expected a fraction in [0, 1), got '%s'", where, v);
            return -1;
        }
        return 0;
    case OPT_HOLDOUT_ITERATIONS:
        return lda_parse_u32(where, v, 1, 1000000, &o->holdout_iterations, err);
    case OPT_CHECKPOINT_EVERY:
        return lda_parse_u32(where, v, 0, UINT32_MAX, &o->checkpoint_every, err);
    case OPT_RESUME:
        ctx->resume = v;
        return 0;
    default:
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
}

/* ---- --resume: the model's settings, and the flags that may change them ---- */

static int may_change_on_resume(int index)
{
    switch (index) {
    case OPT_ITERATIONS: case OPT_OUTPUT: case OPT_EVAL_EVERY: case OPT_CHECKPOINT_EVERY: case OPT_THREADS:
    case OPT_QUIET: case OPT_DEVICE: case OPT_SAMPLER: case OPT_SPLIT: case OPT_TOP: case OPT_VOCAB: case OPT_RESUME:
    case OPT_CONFIG: case OPT_HELP:
        return 1;
    default:
        return 0;
    }
}

static int same_path(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    if (strcmp(a, b) == 0)
        return 1;
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    int same = ra && rb && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

/* Whether option `index` has the same value in the user's options u and the model's m;
 * the model's value as text into buf. */
static int same_setting(int index, const lda_train_options *u, const lda_train_options *m, char *buf, size_t size)
{
    const lda_params *a = &u->params, *b = &m->params;
    const corpus_options *ca = &u->corpus, *cb = &m->corpus;
    switch (index) {
    case OPT_TOPICS:
        snprintf(buf, size, "%u", b->num_topics);
        return a->num_topics == b->num_topics;
    case OPT_ALPHA:
        snprintf(buf, size, "%.17g", b->alpha);
        return a->alpha == b->alpha;
    case OPT_BETA:
        snprintf(buf, size, "%.17g", b->beta);
        return a->beta == b->beta;
    case OPT_SEED:
        snprintf(buf, size, "%llu", (unsigned long long)b->seed);
        return a->seed == b->seed;
    case OPT_UPDATE:
        snprintf(buf, size, "%s", lda_choice_name(lda_update_choices, b->update));
        return a->update == b->update;
    case OPT_PRECISION:
        snprintf(buf, size, "%s", lda_choice_name(lda_precision_choices, b->precision));
        return a->precision == b->precision;
    case OPT_REFRESH:
        snprintf(buf, size, "%u", b->refresh);
        return a->refresh == b->refresh;
    case OPT_MODEL:
        snprintf(buf, size, "%s", lda_choice_name(lda_model_choices, lda_params_model(b)));
        return lda_params_model(a) == lda_params_model(b);
    case OPT_FORMAT:
        snprintf(buf, size, "%s", corpus_format_name(cb->format));
        return ca->format == CORPUS_FORMAT_AUTO || ca->format == cb->format;
    case OPT_STOPWORDS:
        snprintf(buf, size, "%s", cb->stopwords_path ? cb->stopwords_path : "the built-in list");
        return same_path(ca->stopwords_path, cb->stopwords_path);
    case OPT_MIN_WORD_LEN:
        snprintf(buf, size, "%d", cb->min_word_len);
        return ca->min_word_len == cb->min_word_len;
    case OPT_MIN_DF:
        snprintf(buf, size, "%zu", cb->min_df);
        return ca->min_df == cb->min_df;
    case OPT_MAX_DF:
        snprintf(buf, size, "%.17g", cb->max_df);
        return ca->max_df == cb->max_df;
    case OPT_MAX_VOCAB:
        snprintf(buf, size, "%zu", cb->max_vocab);
        return ca->max_vocab == cb->max_vocab;
    case OPT_HOLDOUT:
        snprintf(buf, size, "%.17g", m->holdout);
        return u->holdout == m->holdout;
    case OPT_HOLDOUT_ITERATIONS:
        snprintf(buf, size, "%u", m->holdout_iterations);
        return u->holdout_iterations == m->holdout_iterations;
    default:
        snprintf(buf, size, "?");
        return 0;
    }
}

/* Replaces the options by the resumed state's settings, keeping what may change, and
 * refuses a flag that contradicts the model. corpus_path: CORPUS if given. */
static int merge_resume(train_ctx *ctx, const lda_resume_state *st, const char *corpus_path, lda_error *err)
{
    const lda_model *m = &st->m;
    lda_train_options r = ctx->o, *u = &ctx->o;
    lda_params_default(&r.params);
    r.params.num_topics = m->num_topics;
    r.params.alpha = m->params.alpha;
    r.params.beta = m->params.beta;
    r.params.seed = m->params.seed;
    r.params.update = m->params.update;
    r.params.theta_collapsed = m->params.theta_collapsed;
    r.params.precision = m->params.precision;
    r.params.refresh = m->params.refresh;
    r.params.split = u->params.split; /* the draws do not depend on it */
    r.params.sampler = ctx->given[OPT_SAMPLER] ? u->params.sampler : m->params.sampler;
    r.params.device = u->params.device;
    r.params.threads = u->params.threads;
    r.params.eval_every = u->params.eval_every;
    r.params.iterations = u->params.iterations;
    lda_model_corpus_options(m, &r.corpus);
    if (ctx->given[OPT_VOCAB])
        r.corpus.vocab_path = u->corpus.vocab_path;
    r.holdout = m->holdout;
    r.holdout_iterations = m->holdout_iterations;
    r.corpus_path = corpus_path ? corpus_path : m->corpus_path;
    if (!ctx->given[OPT_OUTPUT])
        r.output_dir = ctx->resume;
    for (int i = 0; i < OPT_COUNT; i++) {
        char recorded[512];
        if (!ctx->given[i] || may_change_on_resume(i) || same_setting(i, u, &r, recorded, sizeof recorded))
            continue;
        const lda_option_spec *o = &train_spec.options[i];
        char name[64];
        if (o->short_name)
            snprintf(name, sizeof name, "-%c/--%s", o->short_name, o->name);
        else
            snprintf(name, sizeof name, "--%s", o->name);
        lda_error_input(err, "--resume %s: %s differs from the model's setting (%s, in %s/model.conf); only -n, -o, "
                        "--eval-every, --checkpoint-every, -j, -q, --device, --sampler, -t and --vocab may change",
                        ctx->resume, name, recorded, st->dir);
        return -1;
    }
    if (m->iterations > UINT32_MAX - r.params.iterations) {
        lda_error_input(err, "--resume %s: %u + %u iterations is too many", ctx->resume, m->iterations,
                        r.params.iterations);
        return -1;
    }
    *u = r;
    return 0;
}

/* ---- signals: the handler only records which one came ---- */

static volatile sig_atomic_t stop_signal = 0;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    /* A second signal takes the default action: a run stuck while saving can still be killed. */
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int lda_cmd_train(int argc, char **argv)
{
    train_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    corpus_options_default(&ctx.o.corpus);
    lda_params_default(&ctx.o.params);
    ctx.o.output_dir = "model";
    ctx.o.top_words = 20;
    ctx.o.holdout_iterations = 20;

    lda_error err = {0};
    const char *positional[1];
    int npos, help;
    if (lda_options_parse(&train_spec, argc, argv, apply_train_option, &ctx, positional, 1, &npos, &help, &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&train_spec, stdout);
        return LDA_EXIT_OK;
    }
    lda_resume_state st;
    memset(&st, 0, sizeof st);
    if (ctx.resume) {
        if (lda_resume_load(ctx.resume, &st, &err) ||
            merge_resume(&ctx, &st, npos == 1 ? positional[0] : NULL, &err)) {
            lda_resume_free(&st);
            return lda_report(argv[0], &err);
        }
        ctx.o.resume = &st;
    } else if (npos != 1) {
        lda_error_input(&err, "no corpus given (usage: ldagpu %s)", train_spec.usage);
        return lda_report(argv[0], &err);
    } else {
        ctx.o.corpus_path = positional[0];
    }
    install_stop_handlers();
    ctx.o.stop = &stop_signal;
    int rc = lda_train(&ctx.o, &err) ? lda_report(argv[0], &err) : LDA_EXIT_OK;
    lda_resume_free(&st);
    if (rc == LDA_EXIT_OK && stop_signal)
        rc = 128 + stop_signal;
    return rc;
}
