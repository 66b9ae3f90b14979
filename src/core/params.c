/* params.c — defaults and the choice tables; see params.h. */
#include "core/params.h"

#include <stdio.h>
#include <string.h>

const lda_choice lda_update_choices[] = {
    {"draw", LDA_UPDATE_DRAW, "draw θ and φ from their Dirichlet conditionals (uncollapsed Gibbs)"},
    {"mean", LDA_UPDATE_MEAN, "set θ and φ to the Dirichlet means (mean-for-mode)"},
    {NULL, 0, NULL},
};

const lda_choice lda_precision_choices[] = {
    {"float", LDA_PRECISION_FLOAT, "32-bit intermediate sums"},
    {"double", LDA_PRECISION_DOUBLE, "64-bit intermediate sums"},
    {NULL, 0, NULL},
};

const lda_choice lda_device_choices[] = {
    {"auto", LDA_DEVICE_AUTO, "the GPU when one is present, else the CPU"},
    {"cpu", LDA_DEVICE_CPU, "the multi-threaded CPU backend"},
    {"cuda", LDA_DEVICE_CUDA, "the CUDA backend"},
    {NULL, 0, NULL},
};

const lda_choice lda_sampler_choices[] = {
    {"auto", LDA_SAMPLER_AUTO,
     "the collapsed model on the CPU: alias; else sparse where θ is collapsed, butterfly where θ is given"},
    {"butterfly", LDA_SAMPLER_BUTTERFLY,
     "Algorithm 7; each block's butterfly table rebuilt in registers, token rows split over warps"},
    {"butterfly-stored", LDA_SAMPLER_BUTTERFLY_STORED, "Algorithm 7 as published: the whole table in memory"},
    {"transpose", LDA_SAMPLER_TRANSPOSE, "Algorithm 4: transposed loads, register transpose, full prefix sums"},
    {"naive", LDA_SAMPLER_NAIVE, "Algorithm 1: one document per thread, full prefix sums, binary search"},
    {"sparse", LDA_SAMPLER_SPARSE,
     "θ-collapsed models: the document's topics plus a per-word table, work per token grows with the "
     "document's topics, not K (CPU too)"},
    {"sparselda", LDA_SAMPLER_SPARSELDA,
     "collapsed model, CPU only: SparseLDA's exact draw, word-topic counts updated as each token moves"},
    {"alias", LDA_SAMPLER_ALIAS,
     "collapsed model, CPU only: tokens drawn word by word, the word's part from alias tables made once a pass"},
    {"mh", LDA_SAMPLER_MH,
     "collapsed model, CPU only: alias's draw as a Metropolis-Hastings proposal, word-topic counts updated as "
     "each token moves within a block of documents"},
    {NULL, 0, NULL},
};

const lda_choice lda_optimize_mode_choices[] = {
    {"once", LDA_OPTIMIZE_ONCE, "learned once, at the first interval after the burn-in, from the symmetric priors' state"},
    {"every", LDA_OPTIMIZE_EVERY, "learned again at every interval, each time from the state the last ones made (Mallet's)"},
    {NULL, 0, NULL},
};

const lda_choice lda_stream_choices[] = {
    {"auto", LDA_STREAM_AUTO, "streamed where the run does not fit the GPU's memory"},
    {"on", LDA_STREAM_ON, "streamed"},
    {"off", LDA_STREAM_OFF, "kept in the GPU's memory"},
    {NULL, 0, NULL},
};

const lda_choice lda_phi_estimate_choices[] = {
    {"auto", LDA_PHI_ESTIMATE_AUTO, "the collapsed model on the CPU: cvb up to K = 128, else expected; else counts"},
    {"counts", LDA_PHI_ESTIMATE_COUNTS, "the mean of the last sample's word-topic counts"},
    {"expected", LDA_PHI_ESTIMATE_EXPECTED,
     "the collapsed model: the mean of the counts each token's full conditional expects (one more pass)"},
    {"cvb", LDA_PHI_ESTIMATE_CVB,
     "the collapsed model: the expected counts after passes of collapsed variational Bayes from the last sample"},
    {NULL, 0, NULL},
};

const lda_choice lda_model_choices[] = {
    {"uncollapsed", LDA_MODEL_UNCOLLAPSED, "θ and φ drawn from their Dirichlet conditionals"},
    {"mean-for-mode", LDA_MODEL_MEAN_FOR_MODE, "θ and φ set to their Dirichlet means"},
    {"theta-collapsed", LDA_MODEL_THETA_COLLAPSED, "θ integrated out (counts updated per token), φ drawn"},
    {"collapsed", LDA_MODEL_COLLAPSED, "θ integrated out, φ the mean of the counts at the iteration's start"},
    {"phi-mean", LDA_MODEL_PHI_MEAN, "θ drawn, φ the mean of the counts: does drawing φ cost held-out quality?"},
    {NULL, 0, NULL},
};

int lda_sampler_cpu_only(lda_sampler s)
{
    return s == LDA_SAMPLER_SPARSELDA || s == LDA_SAMPLER_ALIAS || s == LDA_SAMPLER_MH;
}

void lda_params_set_model(lda_params *p, lda_model_kind model)
{
    p->theta_collapsed = model == LDA_MODEL_THETA_COLLAPSED || model == LDA_MODEL_COLLAPSED;
    p->update = model == LDA_MODEL_MEAN_FOR_MODE || model == LDA_MODEL_COLLAPSED ? LDA_UPDATE_MEAN : LDA_UPDATE_DRAW;
    p->phi_mean = model == LDA_MODEL_PHI_MEAN;
}

void lda_params_resolve_sampler(lda_params *p)
{
    if (p->sampler == LDA_SAMPLER_AUTO)
        p->sampler = p->theta_collapsed ? LDA_SAMPLER_SPARSE : LDA_SAMPLER_BUTTERFLY;
}

void lda_params_resolve_phi_estimate(lda_params *p, int on_cpu)
{
    if (p->phi_estimate != LDA_PHI_ESTIMATE_AUTO)
        return;
    p->phi_estimate = lda_params_model(p) != LDA_MODEL_COLLAPSED || !on_cpu ? LDA_PHI_ESTIMATE_COUNTS
                      : p->num_topics <= LDA_PHI_CVB_UP_TO_K          ? LDA_PHI_ESTIMATE_CVB
                                                                      : LDA_PHI_ESTIMATE_EXPECTED;
}

int lda_params_check_phi_estimate(const lda_params *p, lda_error *err)
{
    if ((p->phi_estimate == LDA_PHI_ESTIMATE_EXPECTED || p->phi_estimate == LDA_PHI_ESTIMATE_CVB) &&
        lda_params_model(p) != LDA_MODEL_COLLAPSED) {
        lda_error_input(err, "--phi-estimate %s: the collapsed model's only (--model collapsed); --model %s "
                        "writes its φ as it draws or sets it", lda_choice_name(lda_phi_estimate_choices, p->phi_estimate),
                        lda_choice_name(lda_model_choices, lda_params_model(p)));
        return -1;
    }
    return 0;
}

/* Both starts asked for by number: each is a whole start, so the run could not take both. */
int lda_params_check_starts(const lda_params *p, lda_error *err)
{
    const int cvb = p->cvb_start != LDA_CVB_START_AUTO && p->cvb_start > 0;
    const int sample = p->sample_start != LDA_SAMPLE_START_AUTO && p->sample_start > 0;
    if (cvb && sample && !p->freeze_phi) {
        lda_error_input(err, "--cvb-start %u and --sample-start %u are two starts: give one of them", p->cvb_start,
                        p->sample_start);
        return -1;
    }
    return 0;
}

lda_model_kind lda_params_model(const lda_params *p)
{
    if (p->theta_collapsed)
        return p->update == LDA_UPDATE_MEAN ? LDA_MODEL_COLLAPSED : LDA_MODEL_THETA_COLLAPSED;
    if (p->phi_mean && p->update == LDA_UPDATE_DRAW)
        return LDA_MODEL_PHI_MEAN;
    return p->update == LDA_UPDATE_MEAN ? LDA_MODEL_MEAN_FOR_MODE : LDA_MODEL_UNCOLLAPSED;
}

int lda_choice_parse(const lda_choice *table, const char *name)
{
    for (const lda_choice *c = table; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c->value;
    return -1;
}

const char *lda_choice_name(const lda_choice *table, int value)
{
    for (const lda_choice *c = table; c->name; c++)
        if (c->value == value)
            return c->name;
    return "?";
}

const char *lda_choice_list(const lda_choice *table, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const lda_choice *c = table; c->name && used < size; c++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", c == table ? "" : "|", c->name);
    return buf;
}

void lda_params_default(lda_params *p)
{
    memset(p, 0, sizeof *p);
    p->num_topics = 100;
    p->alpha = 0.0; /* lda_params_alpha's default */
    p->beta = 0.01;
    p->iterations = 100;
    p->seed = 1;
    p->update = LDA_UPDATE_DRAW;
    p->precision = LDA_PRECISION_FLOAT;
    p->device = LDA_DEVICE_AUTO;
    p->sampler = LDA_SAMPLER_BUTTERFLY; /* what a model.conf without the key ran; train and bench default to auto */
    p->threads = 0;
    p->shards = 1;
    p->stream_tokens = LDA_STREAM_AUTO;
    p->cuda_device = -1;
    p->eval_every = 10;
    p->refresh = 1;
    p->piece_length = LDA_PIECE_LENGTH_AUTO;
    p->start_topics = LDA_START_TOPICS_AUTO;
    p->sample_start = LDA_SAMPLE_START_AUTO;
    p->cvb_start = LDA_CVB_START_AUTO;
    p->phi_passes = LDA_PHI_CVB_PASSES;
    p->optimize_interval = 0;
    p->optimize_burn_in = LDA_OPTIMIZE_BURN_IN_DEFAULT;
    p->optimize_mode = LDA_OPTIMIZE_ONCE;
    p->sparse_long_lists = -1;
}

uint32_t lda_params_start_topics(const lda_params *p)
{
    if (p->freeze_phi)
        return 0;
    if (p->start_topics != LDA_START_TOPICS_AUTO)
        return p->start_topics;
    return lda_params_model(p) == LDA_MODEL_COLLAPSED ? LDA_START_TOPICS_COLLAPSED : 0;
}

uint32_t lda_params_sample_start(const lda_params *p, size_t num_docs)
{
    if (p->freeze_phi)
        return 0;
    if (p->sample_start != LDA_SAMPLE_START_AUTO)
        return p->sample_start;
    if (p->cvb_start != LDA_CVB_START_AUTO && p->cvb_start > 0) /* the other start asked for */
        return 0;
    const int measured = p->device == LDA_DEVICE_CPU && lda_params_model(p) == LDA_MODEL_COLLAPSED &&
                         p->num_topics >= LDA_SAMPLE_START_FROM_K;
    return measured && num_docs / LDA_SAMPLE_START_STRIDE >= LDA_SAMPLE_START_MIN_DOCS ? LDA_SAMPLE_START_ITERATIONS : 0;
}

uint32_t lda_params_cvb_start(const lda_params *p, size_t num_docs)
{
    if (p->freeze_phi)
        return 0;
    if (p->cvb_start != LDA_CVB_START_AUTO)
        return p->cvb_start;
    if (p->sample_start != LDA_SAMPLE_START_AUTO && p->sample_start > 0) /* the other start asked for */
        return 0;
    const int measured = p->device == LDA_DEVICE_CPU && lda_params_model(p) == LDA_MODEL_COLLAPSED &&
                         p->num_topics <= LDA_CVB_START_UP_TO_K;
    return measured && num_docs >= LDA_CVB_START_MIN_DOCS ? LDA_CVB_START_PASSES : 0;
}

int lda_params_cvb_start_is_auto(const lda_params *p)
{
    return p->cvb_start == LDA_CVB_START_AUTO;
}

uint32_t lda_params_piece_length(const lda_params *p)
{
    if (p->piece_length != LDA_PIECE_LENGTH_AUTO)
        return p->piece_length;
    if (!p->theta_collapsed)
        return LDA_PIECE_LENGTH_THETA_GIVEN;
    if (lda_sampler_cpu_only(p->sampler))
        return 0;
    const uint32_t longer_from = lda_phi_update(p) == LDA_UPDATE_MEAN ? LDA_PIECE_LENGTH_SPARSE_MEAN_FROM_K
                                                                       : LDA_PIECE_LENGTH_SPARSE_LARGE_K;
    return p->sampler == LDA_SAMPLER_SPARSE && p->num_topics >= longer_from ? LDA_PIECE_LENGTH_SPARSE_AT_LARGE_K
                                                                            : LDA_PIECE_LENGTH_THETA_COLLAPSED;
}

const char *lda_split_name(uint32_t split, char buf[16])
{
    if (split == LDA_SPLIT_AUTO)
        return "auto";
    if (split == LDA_SPLIT_STAGED)
        return "staged";
    snprintf(buf, 16, "%u", split);
    return buf;
}

lda_update lda_theta_update(const lda_params *p)
{
    return p->theta_collapsed ? LDA_UPDATE_MEAN : p->update;
}

lda_update lda_phi_update(const lda_params *p)
{
    return p->phi_mean ? LDA_UPDATE_MEAN : p->update;
}

double lda_params_alpha(const lda_params *p)
{
    if (p->alpha > 0.0)
        return p->alpha;
    const double mass = lda_phi_update(p) == LDA_UPDATE_MEAN ? LDA_ALPHA_MASS_PHI_MEAN : LDA_ALPHA_MASS_PHI_DRAWN;
    return mass / (double)p->num_topics;
}
