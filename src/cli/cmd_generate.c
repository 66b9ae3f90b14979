/* cmd_generate.c — `ldagpu generate -o PATH [options]`: a synthetic corpus drawn from planted
 * topics, and the topics themselves (synth/generate.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "corpus/corpus_binary.h"
#include "synth/generate.h"
#include "util/clock.h"

enum {
    OPT_OUTPUT, OPT_FORMAT, OPT_DOCS, OPT_MEAN_LENGTH, OPT_LENGTHS, OPT_LENGTH_SIGMA, OPT_VOCAB_SIZE, OPT_TOPICS,
    OPT_ALPHA, OPT_BETA, OPT_SEED, OPT_THETA, OPT_THREADS, OPT_HELP
};

/* The formats a generated corpus may take. */
static const lda_choice generate_format_choices[] = {
    {"uci", CORPUS_FORMAT_UCI, "UCI bag-of-words: docword.NAME.txt and vocab.NAME.txt"},
    {"binary", CORPUS_FORMAT_BINARY, "ldagpu's binary corpus, read in one pass"},
    {NULL, 0, NULL},
};

static const lda_option_spec generate_options[] = {
    [OPT_OUTPUT] = {"output", 'o', "PATH", "the corpus to write: docword.NAME.txt (UCI) or NAME.ldab (binary); "
                    "the planted topics go to PATH.phi.npy (K x V float32, as a model's phi.npy)", NULL},
    [OPT_FORMAT] = {"format", 'f', "uci|binary", "corpus format", "binary for a PATH ending in .ldab, else uci",
                    generate_format_choices},
    [OPT_DOCS] = {"docs", 0, "D", "documents", "10000"},
    [OPT_MEAN_LENGTH] = {"mean-length", 0, "L", "mean document length in tokens", "100"},
    [OPT_LENGTHS] = {"lengths", 0, "poisson|lognormal", "distribution of the document lengths", "poisson",
                     lda_length_choices},
    [OPT_LENGTH_SIGMA] = {"length-sigma", 0, "S", "lognormal: σ of the lengths' logarithm (1: a few documents "
                          "ten times the mean, as in Wikipedia)", "1"},
    [OPT_VOCAB_SIZE] = {"vocab-size", 0, "V", "words (named w0, w1, ... zero-padded to one width)", "10000"},
    [OPT_TOPICS] = {"topics", 'K', "K", "planted topics", "20"},
    [OPT_ALPHA] = {"alpha", 'a', "A", "Dirichlet prior of each document's topic proportions θ_d", "0.1"},
    [OPT_BETA] = {"beta", 'b', "B", "Dirichlet prior of each topic's words φ_k (small: well-separated topics)",
                  "0.01"},
    [OPT_SEED] = {"seed", 's', "S", "random seed; the same seed and options give the same bytes with any -j", "1"},
    [OPT_THETA] = {"theta", 0, NULL, "also write PATH.theta.npy, θ of every document (D x K float32: large)", NULL},
    [OPT_THREADS] = {"threads", 'j', "N", "threads", "all cores"},
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec generate_spec = {
    "generate", "generate -o PATH [options]",
    "Writes a synthetic corpus drawn from LDA's own model: K planted topics φ_k ~ Dirichlet(β) over\n"
    "V words, for each document a length, θ_d ~ Dirichlet(α), and each token's topic z ~ θ_d and\n"
    "word w ~ φ_z. The planted φ is written beside the corpus, so a model trained on it can be\n"
    "checked against the truth. For corpora too large to copy: 10^9 tokens take minutes on 16 cores.",
    generate_options, -1, OPT_HELP,
    NULL,
};

typedef struct {
    lda_generate_options o;
    int format_given;
} generate_ctx;

static int apply_generate_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    generate_ctx *c = vctx;
    lda_generate_options *o = &c->o;
    int choice;
    uint32_t docs;
    switch (index) {
    case OPT_OUTPUT:
        o->output = v;
        return 0;
    case OPT_FORMAT:
        c->format_given = 1;
        if (lda_parse_choice(where, v, generate_format_choices, &choice, err))
            return -1;
        o->format = (corpus_format)choice;
        return 0;
    case OPT_DOCS:
        if (lda_parse_u32(where, v, 1, UINT32_MAX, &docs, err))
            return -1;
        o->num_docs = docs;
        return 0;
    case OPT_MEAN_LENGTH:
        return lda_parse_double(where, v, 1.0, 0, (double)CORPUS_MAX_DOC_TOKENS, &o->lengths.mean, err);
    case OPT_LENGTHS:
        if (lda_parse_choice(where, v, lda_length_choices, &choice, err))
            return -1;
        o->lengths.model = (lda_length_model)choice;
        return 0;
    case OPT_LENGTH_SIGMA:
        return lda_parse_double(where, v, 0.0, 1, 10.0, &o->lengths.sigma, err);
    case OPT_VOCAB_SIZE:
        return lda_parse_u32(where, v, 1, UINT32_MAX - 1, &o->vocab_size, err);
    case OPT_TOPICS:
        return lda_parse_u32(where, v, 1, 1u << 20, &o->num_topics, err);
    case OPT_ALPHA:
        return lda_parse_double(where, v, 0.0, 1, 1e6, &o->alpha, err);
    case OPT_BETA:
        return lda_parse_double(where, v, 0.0, 1, 1e6, &o->beta, err);
    case OPT_SEED:
        return lda_parse_u64(where, v, 0, UINT64_MAX, &o->seed, err);
    case OPT_THETA:
        return lda_parse_flag_value(where, v, &o->want_theta, err);
    case OPT_THREADS:
        return lda_parse_threads(where, v, &o->threads, err);
    default:
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
}

/* Without -f: the name says (CORPUS_BINARY_SUFFIX, .ldab, is the binary corpus's name). */
static corpus_format format_of_name(const char *path)
{
    const size_t n = strlen(path), s = strlen(CORPUS_BINARY_SUFFIX);
    return n > s && strcmp(path + n - s, CORPUS_BINARY_SUFFIX) == 0 ? CORPUS_FORMAT_BINARY : CORPUS_FORMAT_UCI;
}

int lda_cmd_generate(int argc, char **argv)
{
    generate_ctx ctx = {{NULL, CORPUS_FORMAT_UCI, 10000, {LDA_LENGTHS_POISSON, 100.0, 1.0}, 10000, 20, 0.1, 0.01, 1, 0,
                         0},
                        0};
    lda_error err = {0};
    const char *positional[1];
    int npos, help;
    if (lda_options_parse(&generate_spec, argc, argv, apply_generate_option, &ctx, NULL, positional, 0, &npos, &help,
                          &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&generate_spec, stdout);
        return LDA_EXIT_OK;
    }
    lda_generate_options *o = &ctx.o;
    if (!o->output) {
        lda_error_input(&err, "no output given: -o docword.NAME.txt or -o NAME.ldab (usage: ldagpu %s)",
                        generate_spec.usage);
        return lda_report(argv[0], &err);
    }
    if (!ctx.format_given)
        o->format = format_of_name(o->output);
    lda_generate_result r;
    const double t0 = lda_now_seconds();
    if (lda_generate(o, &r, &err))
        return lda_report(argv[0], &err);
    const double seconds = lda_now_seconds() - t0;
    fprintf(stderr, "ldagpu generate: wrote %s (%s): %llu documents, %llu tokens, %u words in %.2f s (%.3g M "
                    "tokens/s; the topics drawn in %.2f s of it); the %u planted topics in %s%s%s\n",
            o->output, corpus_format_name(o->format), (unsigned long long)o->num_docs,
            (unsigned long long)r.num_tokens, o->vocab_size, seconds,
            (double)r.num_tokens / (seconds > 0 ? seconds : 1e-9) / 1e6, r.topics_seconds, o->num_topics, r.phi_path,
            r.theta_path ? ", θ in " : "", r.theta_path ? r.theta_path : "");
    lda_generate_result_free(&r);
    return LDA_EXIT_OK;
}
