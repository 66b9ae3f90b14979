/* cmd_train.c — `ldagpu train CORPUS [options]` and `ldagpu train --resume MODEL [options]`. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "backend/backend.h"
#include "backend/optimize_priors.h"
#include "cli/corpus_option_rows.h"
#include "model/model_corpus.h"
#include "model/settings.h"
#include "train/train_settings.h"
#include "train/trainer.h"
#include "util/input.h"
#include "util/ranks.h"

enum {
    OPT_TOPICS, OPT_ITERATIONS, OPT_ALPHA, OPT_BETA, OPT_SEED, OPT_OUTPUT, OPT_UPDATE, OPT_PRECISION,
    OPT_DEVICE, OPT_SAMPLER, OPT_MODEL, OPT_SPLIT, OPT_PHI_ESTIMATE, OPT_PHI_PASSES, OPT_REFRESH, OPT_PIECE_LENGTH, OPT_START_TOPICS, OPT_SAMPLE_START, OPT_CVB_START,
    OPT_OPTIMIZE_INTERVAL,
    OPT_OPTIMIZE_MODE, OPT_OPTIMIZE_BURN_IN, OPT_GPUS, OPT_STREAM_TOKENS, OPT_THREADS, OPT_EVAL_EVERY, LDA_READER_OPTION_IDS, OPT_CACHE, OPT_TOP, OPT_QUIET,
    OPT_HOLDOUT, OPT_HOLDOUT_ITERATIONS, OPT_DOC_TOPICS, OPT_TOPIC_KEYS, OPT_MALLET_DOC_TOPICS, OPT_CHECKPOINT_EVERY,
    OPT_RESUME, OPT_FORCE, OPT_CONFIG, OPT_HELP,
    OPT_COUNT
};

static const lda_option_spec train_options[] = {
    [OPT_TOPICS] = {"topics", 'K', "N", "number of topics", "100", .mallet = "num-topics"},
    [OPT_ITERATIONS] = {"iterations", 'n', "N", "Gibbs iterations", "100", .mallet = "num-iterations"},
    [OPT_ALPHA] = {"alpha", 'a', "A", "symmetric document-topic prior, a topic's (Mallet's --alpha is K times this)",
                   "50/K; 20/K where φ is the mean of the counts: collapsed, phi-mean, mean-for-mode"},
    [OPT_BETA] = {"beta", 'b', "B", "symmetric topic-word prior", "0.01"},
    [OPT_SEED] = {"seed", 's', "S", "random seed; the same seed, corpus and device give the same model", "1",
                  .mallet = "random-seed"},
    [OPT_OUTPUT] = {"output", 'o', "DIR", "model folder to write", "model"},
    [OPT_UPDATE] = {"update", 0, "draw|mean", "θ/φ update rule (--model sets it too: give one or the other)", "draw",
                    lda_update_choices},
    [OPT_PRECISION] = {"precision", 0, "float|double", "precision of the sampler's partial sums", "float",
                       lda_precision_choices},
    [OPT_DEVICE] = {"device", 0, "auto|cpu|cuda", "where to train", "auto", lda_device_choices},
    [OPT_SAMPLER] = {"sampler", 0, "NAME", "z sampler: auto, a GPU kernel (the CPU draws them by its dense reference), "
                     "or sparse (both)", "auto", lda_sampler_choices},
    [OPT_MODEL] = {"model", 'm', "NAME", "model version (sets --update); recommended: collapsed, the best held-out fit "
                   "in the least time", "uncollapsed", lda_model_choices},
    [OPT_SPLIT] = {"split", 0, "auto|staged|N", "butterfly, θ given: one block a document group with θ in shared "
                   "memory (staged), or N warps a group reading θ from global memory; auto: chosen from the corpus "
                   "and device (printed)", "auto"},
    [OPT_PHI_ESTIMATE] = {"phi-estimate", 0, "auto|counts|expected|cvb", "the topics (φ) written and scored, "
                          "collapsed model: the mean of the last sample's counts, of the counts each token's full "
                          "conditional expects (one more pass; better held-out), or of the expected counts after "
                          "passes of collapsed variational Bayes from the last sample (better again at K = 100); "
                          "auto: on the CPU cvb up to K = " LDA_STRINGIFY(LDA_PHI_CVB_UP_TO_K) ", else expected; "
                          "counts on the GPU", "auto", lda_phi_estimate_choices},
    [OPT_PHI_PASSES] = {"phi-passes", 0, "N", "--phi-estimate cvb's passes, at most one for each iteration the "
                        "model has had (2K bytes for each distinct word of a document while they run)",
                        LDA_STRINGIFY(LDA_PHI_CVB_PASSES)},
    [OPT_REFRESH] = {"refresh", 0, "R", "draw z in R parts, bringing counts and φ up to date after each (butterfly, sparse)",
                     "1"},
    [OPT_PIECE_LENGTH] = {"piece-length", 0, "auto|N", "documents longer than N tokens are drawn as pieces of at "
                          "most N (0: never); exact for uncollapsed and mean-for-mode, an approximation within a "
                          "long document when θ is collapsed; auto: 512 with θ given, 256 with θ collapsed (512 with "
                          "--sampler sparse at K >= " LDA_STRINGIFY(LDA_PIECE_LENGTH_SPARSE_MEAN_FROM_K) " collapsed, "
                          LDA_STRINGIFY(LDA_PIECE_LENGTH_SPARSE_LARGE_K) " theta-collapsed)",
                          "auto"},
    [OPT_START_TOPICS] = {"start-topics", 0, "auto|N", "each document's tokens start in N topics the document draws "
                          "at random (0: each token's topic at random among all K); auto: "
                          LDA_STRINGIFY(LDA_START_TOPICS_COLLAPSED) " for --model collapsed, else 0", "auto"},
    [OPT_SAMPLE_START] = {"sample-start", 0, "auto|N", "before the first iteration, N iterations on every "
                          LDA_STRINGIFY(LDA_SAMPLE_START_STRIDE) "th document (on the CPU), and each token's first "
                          "topic drawn from their topics (0: never; the time is counted in iteration 1's); auto: "
                          LDA_STRINGIFY(LDA_SAMPLE_START_ITERATIONS) " for --model collapsed on the CPU from K = "
                          LDA_STRINGIFY(LDA_SAMPLE_START_FROM_K) " where the sample holds "
                          LDA_STRINGIFY(LDA_SAMPLE_START_MIN_DOCS) " documents or more, else 0",
                          "auto"},
    [OPT_CVB_START] = {"cvb-start", 0, "auto|N", "before the first iteration, N passes of collapsed variational "
                       "Bayes (CVB0, on the CPU; 2K bytes for each distinct word of a document), and each token's "
                       "first topic drawn from its distribution (0: never; the time is counted in iteration 1's); "
                       "auto: " LDA_STRINGIFY(LDA_CVB_START_PASSES) " for --model collapsed on the CPU up to K = "
                       LDA_STRINGIFY(LDA_CVB_START_UP_TO_K) " where the corpus holds "
                       LDA_STRINGIFY(LDA_CVB_START_MIN_DOCS) " documents or more and the passes fit in memory, "
                       "else 0; not with --sample-start N", "auto"},
    [OPT_OPTIMIZE_INTERVAL] = {"optimize-interval", 0, "N", "learn α (one value per topic) and β from the counts "
                               "at the first multiple of N after the burn-in (0: never; with --optimize-mode every "
                               "at each multiple, as Mallet's --optimize-interval); held out better than symmetric "
                               "priors at small K, worse from K = " LDA_STRINGIFY(LDA_OPTIMIZE_WORSE_FROM_K), "0"},
    [OPT_OPTIMIZE_MODE] = {"optimize-mode", 0, "once|every", "learn the priors once, or at every interval",
                           "once", lda_optimize_mode_choices},
    [OPT_OPTIMIZE_BURN_IN] = {"optimize-burn-in", 0, "N", "iterations before the priors are first learned",
                              LDA_STRINGIFY(LDA_OPTIMIZE_BURN_IN_DEFAULT)},
    [OPT_GPUS] = {"gpus", 0, "N", "train on N GPUs (implies --device cuda): the documents split between them by "
                  "tokens, the word-topic counts summed after every z pass; the model is the one a single GPU "
                  "trains, byte for byte", "1"},
    [OPT_STREAM_TOKENS] = {"stream-tokens", 0, "auto|on|off", "keep the tokens in host memory and pass them "
                           "through the GPU a chunk at a time (--model collapsed --sampler sparse, one GPU); auto: "
                           "where the run does not fit the GPU's memory. The same model either way", "auto",
                           lda_stream_choices},
    [OPT_THREADS] = {"threads", 'j', "N", "CPU threads (CPU backend)", "all cores", .mallet = "num-threads"},
    [OPT_EVAL_EVERY] = {"eval-every", 'e', "N", "log-likelihoods every N iterations (0: only the last)", "10"},
    LDA_READER_OPTION_ROWS,
    [OPT_CACHE] = LDA_ROW_CACHE,
    [OPT_TOP] = {"top", 't', "N", "top words per topic in topics.txt and --output-topic-keys", "20",
                 .mallet = "num-top-words"},
    [OPT_QUIET] = {"quiet", 'q', NULL, "print only errors and warnings", NULL},
    [OPT_HOLDOUT] = {"holdout", 0, "F", "hold out this fraction of the documents (chosen by the seed) and report their "
                     "per-token log-likelihood by document completion on evaluated iterations", "0"},
    [OPT_HOLDOUT_ITERATIONS] = {"holdout-iterations", 0, "N", "sweeps estimating θ of each held-out document", "20"},
    [OPT_DOC_TOPICS] = {"doc-topics", 0, "FORM", "how θ is written; --resume MODEL -n 0 --doc-topics FORM rewrites "
                        "it", "auto", lda_doc_topics_choices},
    [OPT_TOPIC_KEYS] = {"output-topic-keys", 0, "FILE", "then write Mallet's topic keys to FILE, as export does (-t "
                        "words a topic)", NULL},
    [OPT_MALLET_DOC_TOPICS] = {"output-doc-topics", 0, "FILE", "then write Mallet's document topics to FILE, as export "
                               "does (from a θ kept as top:N or sparse:EPS, Mallet's sparse form of what it keeps)",
                               NULL},
    [OPT_CHECKPOINT_EVERY] = {"checkpoint-every", 0, "N", "write a resumable state to OUTPUT/checkpoint every N "
                              "iterations (0: never; SIGINT/SIGTERM always write one)", "0"},
    [OPT_RESUME] = {"resume", 0, "MODEL", "continue MODEL's run (its newest state) for -n more iterations, with its "
                    "settings and corpus; CORPUS is then optional", NULL},
    [OPT_FORCE] = {"force", 0, NULL, "replace the model the -o folder holds (without it, such a folder is refused "
                   "unless it is the one resumed)", NULL},
    [OPT_CONFIG] = {"config", 'c', "FILE", "read 'key = value' settings first (keys: the long options)", NULL},
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static void print_resume_help(FILE *out);

static const lda_command_spec train_spec = {
    "train",
    "train CORPUS [options]  |  train --resume MODEL [-n N] [options]",
    "Trains an LDA topic model on CORPUS and writes the model folder. CORPUS is raw text (one\n"
    "document per line), a UCI docword file, or LDA-C; gzip is fine. The default model is the paper's\n"
    "uncollapsed Gibbs sampler; --model collapsed, drawn by the sparse sampler, is recommended: a\n"
    "better held-out fit in less time, on the CPU and the GPU.\n"
    "With --resume, the model's recorded settings hold; 50 + 50 resumed iterations equal 100 in one\n"
    "run. SIGINT or SIGTERM stops after the current iteration and writes a checkpoint and the model\n"
    "(exit status 130 or 143).",
    train_options,
    OPT_CONFIG,
    OPT_HELP,
    print_resume_help,
};

typedef struct {
    lda_train_options o;
    const char *resume;             /* --resume MODEL */
    const char *topic_keys, *doc_topics; /* Mallet's files written after training (export's) */
    unsigned char given[OPT_COUNT]; /* options set by a flag or the config file */
    lda_train_given settings_given; /* what the shared settings parser needs to know */
} train_ctx;

/* Options that are train settings are parsed by the one parser the library uses too
 * (train/train_settings.h), the others here. */
static int apply_train_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    train_ctx *ctx = vctx;
    lda_train_options *o = &ctx->o;
    if (index < 0 || index >= OPT_COUNT) {
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
    ctx->given[index] = 1;
    const int rc = lda_train_setting_set(o, &ctx->settings_given, train_options[index].name, v, where, err);
    if (rc <= 0)
        return rc;
    switch (index) {
    case OPT_OUTPUT:
        o->output_dir = v;
        return 0;
    case OPT_QUIET:
        return lda_parse_flag_value(where, v, &o->quiet, err);
    case OPT_CACHE:
        o->cache = v;
        return 0;
    case OPT_CHECKPOINT_EVERY:
        return lda_parse_u32(where, v, 0, UINT32_MAX, &o->checkpoint_every, err);
    case OPT_RESUME:
        ctx->resume = v;
        return 0;
    case OPT_TOPIC_KEYS:
        ctx->topic_keys = v;
        return 0;
    case OPT_MALLET_DOC_TOPICS:
        ctx->doc_topics = v;
        return 0;
    case OPT_FORCE:
        if (!v) {
            o->force = 1;
            return 0;
        }
        return lda_parse_flag_value(where, v, &o->force, err);
    default:
        lda_error_fail(err, "internal error: option --%s has no handler", train_options[index].name);
        return -1;
    }
}

/* ---- --resume: the model's settings, and the flags that may change them ---- */

/* Whether --resume lets option `index` differ from the model: any option whose value the
 * model does not record (or records as changeable). */
static int may_change_on_resume(int index)
{
    const lda_setting *setting = lda_setting_by_option(train_options[index].name);
    return !setting || setting->may_change;
}

static int option_index(const char *name)
{
    for (int i = 0; i < OPT_COUNT; i++)
        if (strcmp(train_options[i].name, name) == 0)
            return i;
    return -1;
}

/* "-n/--iterations"-style name of option i, into buf. */
static const char *option_name(int i, char *buf, size_t size)
{
    const lda_option_spec *o = &train_options[i];
    if (o->short_name)
        snprintf(buf, size, "-%c/--%s", o->short_name, o->name);
    else
        snprintf(buf, size, "--%s", o->name);
    return buf;
}

/* "-n, -o, ..., --vocab": the options a resumed run may change. */
static const char *resume_changeable(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < OPT_COUNT && used < size; i++) {
        if (i == OPT_RESUME || i == OPT_CONFIG || i == OPT_HELP || !may_change_on_resume(i))
            continue;
        const lda_option_spec *o = &train_options[i];
        if (o->short_name)
            used += (size_t)snprintf(buf + used, size - used, "%s-%c", used ? ", " : "", o->short_name);
        else
            used += (size_t)snprintf(buf + used, size - used, "%s--%s", used ? ", " : "", o->name);
    }
    return buf;
}

static void print_resume_help(FILE *out)
{
    char list[1024];
    fprintf(out, "\nWith --resume only these may differ from the model's settings: %s.\n",
            resume_changeable(list, sizeof list));
}

/* The resumed run's settings: the model's, but for the changeable ones the user gave (and
 * what the model does not record: -n, --device, -j, ...); a flag that contradicts a setting
 * the model fixes is refused. corpus_path: CORPUS if given. */
static int merge_resume(train_ctx *ctx, const lda_resume_state *st, const char *corpus_path, lda_error *err)
{
    const lda_model *m = &st->m;
    lda_train_options r = ctx->o;
    for (const lda_setting *row = lda_settings_table; row->key; row++) {
        const int i = option_index(row->option), given = i >= 0 && ctx->given[i];
        if (given && !row->may_change && !lda_setting_same(row, &ctx->o.settings, &m->settings)) {
            char name[64], recorded[512], list[1024];
            const char *value = lda_setting_format(row, &m->settings, recorded, sizeof recorded);
            lda_error_input(err, "--resume %s: %s differs from the model's setting (%s, in %s/model.conf); only %s "
                            "may change", ctx->resume, option_name(i, name, sizeof name), value ? value : row->unset,
                            st->dir, resume_changeable(list, sizeof list));
            return -1;
        }
        if (!(given && row->may_change))
            lda_setting_copy(row, &r.settings, &m->settings);
    }
    r.corpus_path = corpus_path ? corpus_path : m->corpus_path;
    if (lda_model_check_recorded_files(corpus_path ? NULL : m->corpus_path, &r.settings.corpus, err))
        return -1;
    if (!ctx->given[OPT_OUTPUT])
        r.output_dir = ctx->resume;
    if (m->iterations > UINT32_MAX - r.settings.params.iterations) {
        lda_error_input(err, "--resume %s: %u + %u iterations is too many", ctx->resume, m->iterations,
                        r.settings.params.iterations);
        return -1;
    }
    ctx->o = r;
    return 0;
}

/* ---- signals: the handler only records which one came ---- */

static volatile sig_atomic_t stop_signal = 0;

/* A second signal ends the run at once, as a run stuck while saving must still be
 * stoppable; but 130/143 say "stopped after saving its state", so it says what happened and
 * ends with status 1 instead. Whatever was completely written stays (every file is written
 * atomically); the next run removes the temporary files (atomic_file.h). */
static void on_stop_signal(int sig)
{
    if (stop_signal) {
        static const char msg[] = "ldagpu train: stopped by a second signal before its state was saved; the model "
                                  "folder keeps its last complete model and checkpoint, if any\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        _exit(LDA_EXIT_FAILURE);
    }
    stop_signal = sig;
}

static void install_stop_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* `ldagpu train ... 2>&1 | head`: once the reader is gone, a line written to the pipe must
     * not kill the run; the write fails, and the run goes on to write its model. */
    signal(SIGPIPE, SIG_IGN);
}

/* --output-topic-keys, --output-doc-topics: from the model just written (by rank 0 of an mpirun). */
static int write_mallet_files(const train_ctx *ctx, lda_error *err)
{
    if ((!ctx->topic_keys && !ctx->doc_topics) || lda_ranks_rank() != 0)
        return 0;
    lda_doc_topics form;
    if (lda_export_mallet_files(ctx->o.output_dir, ctx->topic_keys, ctx->doc_topics, ctx->o.top_words, &form, err))
        return -1;
    if (ctx->doc_topics && form.form != LDA_DOC_TOPICS_DENSE && !ctx->o.quiet) {
        char kept[64];
        fprintf(stderr, "ldagpu: %s: Mallet's sparse form, the entries θ keeps as %s\n", ctx->doc_topics,
                lda_doc_topics_format(&form, kept, sizeof kept));
    }
    return 0;
}

/* The run once the options are parsed: --resume's state merged, then training. */
static int train_with(train_ctx *ctx, const char *command, const char **positional, int npos)
{
    lda_error err = {0};
    lda_resume_state st;
    memset(&st, 0, sizeof st);
    if (lda_train_settings_finish(&ctx->o, &ctx->settings_given, &err) ||
        lda_backend_check_device(ctx->o.settings.params.device, &err)) /* before any input is read */
        return lda_report(command, &err);
    if (ctx->resume) {
        if (lda_resume_load(ctx->resume, &st, &err) ||
            merge_resume(ctx, &st, npos == 1 ? positional[0] : NULL, &err)) {
            lda_resume_free(&st);
            return lda_report(command, &err);
        }
        ctx->o.resume = &st;
    } else if (npos != 1) {
        lda_error_input(&err, "no corpus given (usage: ldagpu %s)", train_spec.usage);
        return lda_report(command, &err);
    } else {
        ctx->o.corpus_path = positional[0];
    }
    if (ctx->doc_topics && ctx->o.settings.doc_topics.form == LDA_DOC_TOPICS_NONE) {
        lda_error_input(&err, "--output-doc-topics: the model keeps no θ (--doc-topics none) to write them from");
        lda_resume_free(&st);
        return lda_report(command, &err);
    }
    install_stop_handlers();
    lda_input_watch_stop(&stop_signal); /* a read waiting on a pipe ends at the first signal */
    ctx->o.stop = &stop_signal;
    /* A stopped run writes no Mallet files: before its first iteration there is no model of its own. */
    int rc = lda_train(&ctx->o, &err) || (!stop_signal && write_mallet_files(ctx, &err)) ? lda_report(command, &err)
                                                                                        : LDA_EXIT_OK;
    lda_resume_free(&st);
    if (rc == LDA_EXIT_OK && stop_signal)
        rc = 128 + stop_signal;
    return rc;
}

int lda_cmd_train(int argc, char **argv)
{
    train_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    lda_train_options_default(&ctx.o);
    ctx.o.output_dir = "model";

    lda_error err = {0};
    lda_config_values config_values = {0}; /* --config's values, which the options point into */
    const char *positional[1];
    int npos, help, rc;
    if (lda_options_parse(&train_spec, argc, argv, apply_train_option, &ctx, &config_values, positional, 1, &npos,
                          &help, &err))
        rc = lda_report(argv[0], &err);
    else if (help) {
        lda_options_print_help(&train_spec, stdout);
        rc = LDA_EXIT_OK;
    } else
        rc = train_with(&ctx, argv[0], positional, npos);
    lda_config_values_free(&config_values);
    return rc;
}
