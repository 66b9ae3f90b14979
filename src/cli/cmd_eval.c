/* cmd_eval.c — `ldagpu eval MODEL CORPUS`: held-out per-token log-likelihood and perplexity
 * of documents under a model, by document completion (heldout.h) — the same computation as
 * the loglik_heldout column of training with --holdout. With --phi, the model is topics alone
 * (phi_model.h): another program's φ, scored the same way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "cli/model_run_options.h"
#include "model/checkpoint.h"
#include "model/model.h"
#include "model/model_corpus.h"
#include "model/phi_model.h"
#include "train/heldout.h"
#include "util/gzlines.h"
#include "util/strmap.h"
#include "util/text.h"

enum {
    OPT_PHI, OPT_PHI_VOCAB, OPT_ALPHA, OPT_DOCS, OPT_DOC_NAMES, OPT_ITERATIONS, OPT_SEED, LDA_MODEL_RUN_OPTION_IDS,
    OPT_HELP
};

static const lda_option_spec eval_options[] = {
    [OPT_PHI] = {"phi", 0, "FILE", "score under these topics instead of a model folder: K x V float32 .npy, a row a "
                 "topic (another program's φ); needs --phi-vocab and --alpha, and CORPUS alone", "a model folder"},
    [OPT_PHI_VOCAB] = {"phi-vocab", 0, "FILE", "with --phi: the vocabulary of φ's columns, one word a line", NULL},
    [OPT_ALPHA] = {"alpha", 'a', "A", "with --phi: the symmetric document-topic prior, a topic's (Mallet's --alpha is K times this)", NULL},
    [OPT_DOCS] = {"docs", 0, "FILE", "score only the documents whose 0-based input indices FILE lists, one a line "
                  "(e.g. MODEL/heldout.txt)", "every document"},
    [OPT_DOC_NAMES] = {"doc-names", 0, "FILE", "score only the documents named in FILE, one name a line (a corpus "
                       "with names: --format mallet or named)", "every document"},
    [OPT_ITERATIONS] = {"iterations", 'n', "N", "sweeps estimating θ on each document's first half",
                        "the model's holdout_iterations (20)", .mallet = "num-iterations"},
    [OPT_SEED] = {"seed", 's', "S", "random seed (the evaluation's own is derived from it and the model's "
                  "iteration count)", "the model's seed", .mallet = "random-seed"},
    LDA_MODEL_RUN_OPTION_ROWS,
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec eval_spec = {
    "eval", "eval MODEL CORPUS [options]  |  eval --phi FILE --phi-vocab FILE --alpha A CORPUS [options]",
    "Scores the documents of CORPUS under the model folder MODEL by document completion: θ is\n"
    "estimated on the first half of each document with the topics fixed, and the second half is\n"
    "scored. Prints the per-token log-likelihood, the perplexity exp(-that), the documents and\n"
    "tokens scored, and the tokens of unknown words skipped. With the training corpus, --docs\n"
    "MODEL/heldout.txt and the defaults it repeats the last loglik_heldout of MODEL/log.csv.\n"
    "With --phi the topics come from a file instead (any program's φ and the α it trained with),\n"
    "and θ is estimated as for a collapsed model of ldagpu.",
    eval_options, -1, OPT_HELP,
    NULL,
};

typedef struct {
    const char *phi, *phi_vocab;
    double alpha; /* with --phi; 0: not given */
    const char *docs, *doc_names;
    uint32_t iterations;
    int iterations_given;
    uint64_t seed;
    int seed_given;
    lda_model_run_options run;
} eval_ctx;

static int apply_eval_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    eval_ctx *c = vctx;
    switch (index) {
    case OPT_PHI:
        c->phi = v;
        return 0;
    case OPT_PHI_VOCAB:
        c->phi_vocab = v;
        return 0;
    case OPT_ALPHA:
        return lda_parse_double(where, v, 0.0, 1, 1e6, &c->alpha, err);
    case OPT_DOCS:
        c->docs = v;
        return 0;
    case OPT_DOC_NAMES:
        c->doc_names = v;
        return 0;
    case OPT_ITERATIONS:
        c->iterations_given = 1;
        return lda_parse_u32(where, v, 1, 1000000, &c->iterations, err);
    case OPT_SEED:
        c->seed_given = 1;
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

/* Marks listed[i] for every input index i in the file (one a line; '#' comments and blank
 * lines allowed). */
static int read_doc_list(const char *path, size_t num_input_docs, unsigned char *listed, size_t *count,
                         lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return -1;
    char *line;
    size_t len, lineno = 0;
    int rc = 0;
    *count = 0;
    while (rc == 0 && (line = gzlines_next(r, &len, err))) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        char *e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            *--e = '\0';
        if (!*s)
            continue;
        char where[600];
        snprintf(where, sizeof where, "%s:%zu", path, lineno);
        uint64_t i;
        if (lda_parse_u64(where, s, 0, num_input_docs ? num_input_docs - 1 : 0, &i, err) ||
            num_input_docs == 0) {
            lda_error_input(err, "%s: expected a document index from 0 to %zu (the corpus has %zu documents), "
                            "got '%s'", where, num_input_docs ? num_input_docs - 1 : 0, num_input_docs, s);
            rc = -1;
            break;
        }
        *count += !listed[i];
        listed[i] = 1;
    }
    if (rc == 0 && gzlines_failed(r))
        rc = -1;
    gzlines_close(r);
    return rc;
}

/* Marks listed[i] for every input document i of c whose name the file lists (one a line, verbatim;
 * blank lines and lines starting with '#' skipped); a name no document has is refused. */
static int read_doc_names(const char *path, const corpus *c, unsigned char *listed, size_t *count, lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    strmap *names = r ? strmap_new(1024, err) : NULL;
    size_t *lines = NULL, lines_cap = 0;
    unsigned char *found = NULL;
    char *line;
    size_t len;
    int rc = -1;
    if (!names)
        goto out;
    while ((line = gzlines_next(r, &len, err))) {
        uint32_t id;
        if (len == 0 || line[0] == '#' || strmap_find(names, line, len, &id))
            continue;
        if (strmap_intern(names, line, len, &id, err))
            goto out;
        if (id >= lines_cap) {
            size_t *grown = realloc(lines, (lines_cap = 2 * id + 16) * sizeof *lines);
            if (!grown) {
                lda_error_fail(err, "out of memory (the names of %s)", path);
                goto out;
            }
            lines = grown;
        }
        lines[id] = gzlines_lineno(r);
    }
    if (gzlines_failed(r) || !(found = lda_calloc(strmap_size(names) + 1, 1, "names found", err)))
        goto out;
    *count = 0;
    for (size_t i = 0; i < c->num_input_docs; i++) {
        const char *name = lda_string_list_get(c->names, i);
        uint32_t id;
        if (strmap_find(names, name, strlen(name), &id)) {
            *count += !listed[i];
            listed[i] = found[id] = 1;
        }
    }
    for (uint32_t id = 0; id < strmap_size(names); id++)
        if (!found[id]) {
            char quoted[LDA_QUOTE_MAX];
            const char *name = strmap_key(names, id);
            lda_error_input(err, "%s:%zu: no document is named '%s'", path, lines[id],
                            lda_quote(name, strlen(name), quoted));
            goto out;
        }
    rc = 0;
out:
    if (r)
        gzlines_close(r);
    strmap_free(names);
    free(lines);
    free(found);
    return rc;
}

int lda_cmd_eval(int argc, char **argv)
{
    eval_ctx ctx = {NULL, NULL, 0, NULL, NULL, 20, 0, 1, 0, LDA_MODEL_RUN_OPTIONS_DEFAULT};
    lda_error err = {0};
    const char *positional[2];
    int npos, help;
    if (lda_options_parse(&eval_spec, argc, argv, apply_eval_option, &ctx, NULL, positional, 2, &npos, &help, &err))
        return lda_report(argv[0], &err);
    if (help) {
        lda_options_print_help(&eval_spec, stdout);
        return LDA_EXIT_OK;
    }
    const int with_phi = ctx.phi != NULL;
    if (!with_phi && (ctx.phi_vocab || ctx.alpha > 0)) {
        lda_error_input(&err, "--phi-vocab and --alpha go with --phi (a model folder has its own)");
        return lda_report(argv[0], &err);
    }
    if (with_phi && (!ctx.phi_vocab || !(ctx.alpha > 0))) {
        lda_error_input(&err, "--phi needs --phi-vocab (the words of its columns) and --alpha (the prior it was "
                        "trained with)");
        return lda_report(argv[0], &err);
    }
    if (npos != 2 - with_phi) {
        lda_error_input(&err, "expected %s (usage: ldagpu %s)", with_phi ? "a corpus" : "a model folder and a corpus",
                        eval_spec.usage);
        return lda_report(argv[0], &err);
    }
    const char *corpus_path = positional[1 - with_phi];
    lda_model m;
    corpus *c = NULL, *docs = NULL;
    unsigned char *listed = NULL, *keep = NULL;
    int rc = -1;
    if (lda_backend_check_device(ctx.run.device, &err) ||
        (with_phi ? lda_model_from_phi(&m, ctx.phi, ctx.phi_vocab, ctx.alpha, &err)
                  : lda_model_read_finished(&m, positional[0], 0, 0, &err)))
        return lda_report(argv[0], &err);
    m.settings.corpus.force_text |= ctx.run.force_text;
    if (!(c = lda_model_read_corpus(&m, corpus_path, ctx.run.format, ctx.run.vocab, &err)) ||
        !(keep = lda_calloc(c->num_docs, 1, "document flags", &err)))
        goto out;
    size_t unknown = c->num_unknown_tokens;
    const char *list = ctx.docs ? ctx.docs : ctx.doc_names;
    if (ctx.docs && ctx.doc_names) {
        lda_error_input(&err, "give --docs or --doc-names, not both");
        goto out;
    }
    if (ctx.doc_names && !c->names) {
        lda_error_input(&err, "--doc-names: the documents of %s have no names (a corpus with names is read with "
                        "--format mallet or named)", corpus_path);
        goto out;
    }
    if (list) {
        size_t count;
        if (!(listed = lda_calloc(c->num_input_docs, 1, "document flags", &err)) ||
            (ctx.docs ? read_doc_list(ctx.docs, c->num_input_docs, listed, &count, &err)
                      : read_doc_names(ctx.doc_names, c, listed, &count, &err)))
            goto out;
        size_t kept = 0;
        for (size_t d = 0; d < c->num_docs; d++)
            kept += keep[d] = listed[c->input_index[d]];
        unknown = 0; /* of the documents listed only */
        for (size_t i = 0; i < c->num_input_docs; i++)
            unknown += listed[i] && c->input_unknown ? c->input_unknown[i] : 0;
        if (kept < count)
            fprintf(stderr, "ldagpu eval: %zu of the %zu documents listed in %s have no known word\n", count - kept,
                    count, list);
    } else {
        memset(keep, 1, c->num_docs);
    }
    if (!(docs = lda_corpus_subset(c, keep, 0, &err)))
        goto out;
    lda_params p = m.settings.params;
    p.device = ctx.run.device;
    p.threads = ctx.run.threads;
    uint32_t iterations = ctx.iterations_given ? ctx.iterations : m.settings.holdout_iterations;
    uint64_t seed = lda_heldout_seed(ctx.seed_given ? ctx.seed : m.settings.params.seed, m.iterations);
    lda_completion_result r;
    if (lda_model_completion(&m, docs, &p, seed, iterations, &r, &err))
        goto out;
    printf("documents %zu\n", r.num_docs);
    printf("documents_too_short %zu\n", r.num_short_docs);
    printf("tokens_scored %zu\n", r.num_tokens);
    printf("unknown_tokens %zu\n", unknown);
    printf("loglik_per_token %.6f\n", r.loglik_per_token);
    printf("perplexity %.2f\n", exp(-r.loglik_per_token));
    if (fflush(stdout) != 0) {
        lda_error_fail(&err, "cannot write to stdout");
        goto out;
    }
    rc = 0;
out:
    free(listed);
    free(keep);
    corpus_free(docs);
    corpus_free(c);
    lda_model_free(&m);
    return rc ? lda_report(argv[0], &err) : LDA_EXIT_OK;
}
