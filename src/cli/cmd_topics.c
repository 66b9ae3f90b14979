/* cmd_topics.c — `ldagpu topics MODEL [--top N] [--coherence] [--sort ...] [--format ...]`:
 * the top words of every topic, their coherence over the training corpus (coherence.h), as
 * text, TSV or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "model/coherence.h"
#include "model/checkpoint.h"
#include "model/model.h"
#include "model/model_corpus.h"
#include "model/topwords.h"
#include "train/heldout.h"
#include "util/json.h"

enum { OPT_TOP, OPT_COHERENCE, OPT_CORPUS, OPT_SORT, OPT_FORMAT, OPT_HELP };

typedef enum { SORT_ID, SORT_SIZE, SORT_COHERENCE } sort_key;
typedef enum { FORMAT_TEXT, FORMAT_TSV, FORMAT_JSON } out_format;

static const lda_choice sort_choices[] = {
    {"id", SORT_ID, "topic number"},
    {"size", SORT_SIZE, "tokens assigned, largest first"},
    {"coherence", SORT_COHERENCE, "UMass coherence, most coherent first"},
    {NULL, 0, NULL},
};

static const lda_choice format_choices[] = {
    {"text", FORMAT_TEXT, "aligned lines"},
    {"tsv", FORMAT_TSV, "tab-separated, with a header"},
    {"json", FORMAT_JSON, "one JSON object"},
    {NULL, 0, NULL},
};

static const lda_option_spec topics_options[] = {
    [OPT_TOP] = {"top", 't', "N", "words per topic", "20", .mallet = "num-top-words"},
    [OPT_COHERENCE] = {"coherence", 0, NULL, "UMass and NPMI coherence of each topic's top words, from document "
                       "co-occurrence in the training corpus", NULL},
    [OPT_CORPUS] = {"corpus", 0, "PATH", "measure coherence on this corpus instead (read with the model's "
                    "vocabulary)", "the training corpus named in model.conf, held-out documents excluded"},
    [OPT_SORT] = {"sort", 0, "id|size|coherence", "order of the topics (coherence implies --coherence)", "id"},
    [OPT_FORMAT] = {"format", 0, "text|tsv|json", "output format", "text"},
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec topics_spec = {
    "topics", "topics MODEL [options]",
    "Prints each topic of the model folder MODEL: its number, its share of the training tokens,\n"
    "and its most probable words; with --coherence also UMass (the mean over pairs of top words of\n"
    "log((D(w_i,w_j)+1)/D(w_j)), w_j ranked above w_i, as gensim and tomotopy report it; closer to 0\n"
    "is better) and NPMI (the mean over pairs, -1..1, higher is better), D counting documents.",
    topics_options, -1, OPT_HELP,
    NULL,
};

typedef struct {
    uint32_t top;
    int coherence;
    const char *corpus;
    sort_key sort;
    out_format format;
} topics_ctx;

static int apply_topics_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    topics_ctx *c = vctx;
    int choice;
    switch (index) {
    case OPT_TOP:
        return lda_parse_u32(where, v, 1, 100000, &c->top, err);
    case OPT_COHERENCE:
        return lda_parse_flag_value(where, v, &c->coherence, err);
    case OPT_CORPUS:
        c->corpus = v;
        return 0;
    case OPT_SORT:
        if (lda_parse_choice(where, v, sort_choices, &choice, err))
            return -1;
        c->sort = (sort_key)choice;
        return 0;
    case OPT_FORMAT:
        if (lda_parse_choice(where, v, format_choices, &choice, err))
            return -1;
        c->format = (out_format)choice;
        return 0;
    default:
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
}

/* The corpus coherence is measured on: --corpus, or the training corpus minus held-out
 * documents. */
static corpus *coherence_corpus(const topics_ctx *ctx, const lda_model *m, const char *dir, lda_error *err)
{
    if (ctx->corpus)
        return lda_model_read_corpus(m, ctx->corpus, CORPUS_FORMAT_AUTO, NULL, err);
    int mismatch;
    return lda_trained_documents(m, dir, NULL, &mismatch, err);
}

typedef struct {
    const lda_model *m;
    const lda_coherence *coh;
} sort_ctx;

static int by_size(const void *a, const void *b, void *vctx)
{
    const sort_ctx *sorting = vctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t nx = sorting->m->topic_tokens[x], ny = sorting->m->topic_tokens[y];
    if (nx != ny)
        return nx > ny ? -1 : 1;
    return (x > y) - (x < y);
}

static int by_coherence(const void *a, const void *b, void *vctx)
{
    const sort_ctx *sorting = vctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double cx = sorting->coh[x].umass, cy = sorting->coh[y].umass;
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return (x > y) - (x < y);
}

static void print_topics(const topics_ctx *ctx, const lda_model *m, const uint32_t *order, const uint32_t *top,
                         uint32_t n, const lda_coherence *coh, FILE *f)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < m->num_topics; k++)
        total += m->topic_tokens[k];
    if (ctx->format == FORMAT_TSV) {
        fprintf(f, "topic\tshare\ttokens%s\twords\n", coh ? "\tumass\tnpmi" : "");
    } else if (ctx->format == FORMAT_JSON) {
        fprintf(f, "{\"num_topics\": %u, \"top\": %u, \"topics\": [", m->num_topics, n);
    }
    for (uint32_t i = 0; i < m->num_topics; i++) {
        uint32_t k = order[i];
        const uint32_t *words = top + (size_t)k * n;
        double share = total ? (double)m->topic_tokens[k] / (double)total : 0.0;
        switch (ctx->format) {
        case FORMAT_TEXT:
            fprintf(f, "topic %4u  %5.2f%% ", k, 100.0 * share);
            if (coh)
                fprintf(f, " umass %8.2f  npmi %6.3f ", coh[k].umass, coh[k].npmi);
            for (uint32_t r = 0; r < n; r++)
                fprintf(f, " %s", m->vocab[words[r]]);
            fputc('\n', f);
            break;
        case FORMAT_TSV:
            fprintf(f, "%u\t%.6f\t%u", k, share, m->topic_tokens[k]);
            if (coh)
                fprintf(f, "\t%.6f\t%.6f", coh[k].umass, coh[k].npmi);
            fputc('\t', f);
            for (uint32_t r = 0; r < n; r++)
                fprintf(f, "%s%s", r ? " " : "", m->vocab[words[r]]);
            fputc('\n', f);
            break;
        case FORMAT_JSON:
            fprintf(f, "%s\n  {\"topic\": %u, \"share\": %.6g, \"tokens\": %u", i ? "," : "", k, share,
                    m->topic_tokens[k]);
            if (coh)
                fprintf(f, ", \"umass\": %.6g, \"npmi\": %.6g", coh[k].umass, coh[k].npmi);
            fprintf(f, ", \"words\": [");
            for (uint32_t r = 0; r < n; r++) {
                fputs(r ? ", " : "", f);
                lda_json_string(f, m->vocab[words[r]]);
            }
            fprintf(f, "], \"probabilities\": [");
            for (uint32_t r = 0; r < n; r++)
                fprintf(f, "%s%.6g", r ? ", " : "", m->phi[(size_t)k * m->vocab_size + words[r]]);
            fprintf(f, "]}");
            break;
        }
    }
    if (ctx->format == FORMAT_JSON)
        fprintf(f, "\n]}\n");
}

int lda_cmd_topics(int argc, char **argv)
{
    topics_ctx ctx = {20, 0, NULL, SORT_ID, FORMAT_TEXT};
    lda_error err = {0};
    const char *positional[1];
    int npos, help;
    if (lda_options_parse(&topics_spec, argc, argv, apply_topics_option, &ctx, NULL, positional, 1, &npos, &help, &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&topics_spec, stdout);
        return LDA_EXIT_OK;
    }
    if (npos != 1) {
        lda_error_input(&err, "no model folder given (usage: ldagpu %s)", topics_spec.usage);
        return lda_report(argv[0], &err);
    }
    if (ctx.sort == SORT_COHERENCE || ctx.corpus)
        ctx.coherence = 1;
    lda_model m;
    if (lda_model_read_finished(&m, positional[0], 0, 0, &err))
        return lda_report(argv[0], &err);
    const uint32_t K = m.num_topics, n = ctx.top < m.vocab_size ? ctx.top : m.vocab_size;
    uint32_t *top = lda_malloc_array((size_t)K * n, sizeof *top, "top words", &err);
    uint32_t *order = lda_malloc_array(K, sizeof *order, "topic order", &err);
    lda_coherence *coh = NULL;
    corpus *c = NULL;
    int rc = -1;
    if (!top || !order)
        goto out;
    for (uint32_t k = 0; k < K; k++) {
        lda_top_indices(m.phi + (size_t)k * m.vocab_size, m.vocab_size, n, top + (size_t)k * n);
        order[k] = k;
    }
    if (ctx.coherence) {
        if (!(c = coherence_corpus(&ctx, &m, positional[0], &err)) ||
            !(coh = lda_malloc_array(K, sizeof *coh, "coherence", &err)) ||
            lda_coherence_compute(c, top, K, n, coh, &err))
            goto out;
    }
    sort_ctx sorting = {&m, coh};
    if (ctx.sort == SORT_SIZE)
        qsort_r(order, K, sizeof *order, by_size, &sorting);
    else if (ctx.sort == SORT_COHERENCE)
        qsort_r(order, K, sizeof *order, by_coherence, &sorting);
    print_topics(&ctx, &m, order, top, n, coh, stdout);
    if (fflush(stdout) != 0) {
        lda_error_fail(&err, "cannot write to stdout");
        goto out;
    }
    if (coh) /* after the table: what its figures are */
        fprintf(stderr, "ldagpu topics: coherence of the top %u words: UMass and NPMI, each the mean over their %u "
                        "pairs\n", n, n * (n - 1) / 2);
    rc = 0;
out:
    free(top);
    free(order);
    free(coh);
    corpus_free(c);
    lda_model_free(&m);
    return rc ? lda_report(argv[0], &err) : LDA_EXIT_OK;
}
