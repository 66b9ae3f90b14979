/* cmd_train.c — `ldagpu train CORPUS [options]`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "cli_parse.h"
#include "commands.h"
#include "trainer.h"

enum {
    OPT_TOPICS, OPT_ITERATIONS, OPT_ALPHA, OPT_BETA, OPT_SEED, OPT_OUTPUT, OPT_UPDATE, OPT_PRECISION,
    OPT_DEVICE, OPT_SAMPLER, OPT_MODEL, OPT_SPLIT, OPT_THREADS, OPT_EVAL_EVERY, OPT_FORMAT, OPT_VOCAB, OPT_STOPWORDS, OPT_MIN_WORD_LEN,
    OPT_MIN_DF, OPT_MAX_DF, OPT_MAX_VOCAB, OPT_TOP, OPT_QUIET, OPT_CONFIG, OPT_HELP,
};

static const lda_option_spec train_options[] = {
    [OPT_TOPICS] = {"topics", 'K', "N", "number of topics", "100"},
    [OPT_ITERATIONS] = {"iterations", 'n', "N", "Gibbs iterations", "100"},
    [OPT_ALPHA] = {"alpha", 'a', "A", "symmetric document-topic prior", "50/K"},
    [OPT_BETA] = {"beta", 'b', "B", "symmetric topic-word prior", "0.01"},
    [OPT_SEED] = {"seed", 's', "S", "random seed; the same seed, corpus and device give the same model", "1"},
    [OPT_OUTPUT] = {"output", 'o', "DIR", "model folder to write", "model"},
    [OPT_UPDATE] = {"update", 0, "draw|mean", "θ/φ update: Dirichlet draws, or their means (mean-for-mode)", "draw"},
    [OPT_PRECISION] = {"precision", 0, "float|double", "precision of the sampler's partial sums", "float"},
    [OPT_DEVICE] = {"device", 0, "auto|cpu|cuda", "where to train; auto uses a GPU when present", "auto"},
    [OPT_SAMPLER] = {"sampler", 0, "NAME", "GPU z-sampler: butterfly, butterfly-stored, transpose, naive", "butterfly"},
    [OPT_MODEL] = {"model", 'm', "NAME",
                   "uncollapsed, mean-for-mode, theta-collapsed or collapsed (sets --update too)", "uncollapsed"},
    [OPT_SPLIT] = {"split", 0, "N", "butterfly: warps sharing a document group's token rows (0: default)", "0 (32)"},
    [OPT_THREADS] = {"threads", 'j', "N", "CPU threads (CPU backend)", "all cores"},
    [OPT_EVAL_EVERY] = {"eval-every", 'e', "N", "log-likelihoods every N iterations (0: only the last)", "10"},
    [OPT_FORMAT] = {"format", 'f', "auto|text|uci|ldac", "corpus format", "auto"},
    [OPT_VOCAB] = {"vocab", 0, "FILE", "vocabulary file of a UCI or LDA-C corpus", "derived from the corpus name"},
    [OPT_STOPWORDS] = {"stopwords", 0, "FILE|none", "stop-word list for raw text", "built-in English list"},
    [OPT_MIN_WORD_LEN] = {"min-word-length", 0, "N", "raw text: drop shorter words", "3"},
    [OPT_MIN_DF] = {"min-df", 0, "N", "raw text: drop words in fewer documents", "2"},
    [OPT_MAX_DF] = {"max-df", 0, "F", "raw text: drop words in more than this fraction of documents", "0.5"},
    [OPT_MAX_VOCAB] = {"max-vocab", 0, "N", "raw text: keep the N most frequent words (0: all)", "0"},
    [OPT_TOP] = {"top", 't', "N", "top words per topic in topics.txt", "20"},
    [OPT_QUIET] = {"quiet", 'q', NULL, "no per-iteration log lines", NULL},
    [OPT_CONFIG] = {"config", 'c', "FILE", "read 'key = value' settings first (keys: the long options)", NULL},
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec train_spec = {
    "train",
    "train CORPUS [options]",
    "Trains an LDA topic model on CORPUS with an uncollapsed Gibbs sampler and writes the model\n"
    "folder. CORPUS is raw text (one document per line), a UCI docword file, or LDA-C; gzip is fine.",
    train_options,
    OPT_CONFIG,
    OPT_HELP,
};

typedef struct {
    lda_train_options o;
} train_ctx;

static int apply_train_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    lda_train_options *o = &((train_ctx *)vctx)->o;
    lda_params *p = &o->params;
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
        if (lda_parse_choice(where, v, lda_device_choices, &choice, err))
            return -1;
        p->device = (lda_device)choice;
        return 0;
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
    case OPT_THREADS:
        if (lda_parse_u32(where, v, 1, 4096, &u32, err))
            return -1;
        p->threads = (int)u32;
        return 0;
    case OPT_EVAL_EVERY:
        return lda_parse_u32(where, v, 0, UINT32_MAX, &p->eval_every, err);
    case OPT_FORMAT:
        if (corpus_format_parse(v, &co->format)) {
            lda_error_input(err, "%s: expected auto, text, uci or ldac, got '%s'", where, v);
            return -1;
        }
        return 0;
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
    default:
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
}

int lda_cmd_train(int argc, char **argv)
{
    train_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    corpus_options_default(&ctx.o.corpus);
    lda_params_default(&ctx.o.params);
    ctx.o.output_dir = "model";
    ctx.o.top_words = 20;

    lda_error err = {0};
    const char *positional[1];
    int npos, help;
    if (lda_options_parse(&train_spec, argc, argv, apply_train_option, &ctx, positional, 1, &npos, &help, &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&train_spec, stdout);
        return LDA_EXIT_OK;
    }
    if (npos != 1) {
        lda_error_input(&err, "no corpus given (usage: ldagpu %s)", train_spec.usage);
        return lda_report(argv[0], &err);
    }
    ctx.o.corpus_path = positional[0];
    if (lda_train(&ctx.o, &err))
        return lda_report(argv[0], &err);
    return LDA_EXIT_OK;
}
