/* planted_model.c — see planted_model.h. */
#include "synth/planted_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gamma.h"
#include "core/rng.h"

/* A Dirichlet vector of n entries from the stream r, normalised, into p: prior plus counts[i]
 * (counts NULL: none) for entry i. */
static void draw_dirichlet(lda_rng *r, double prior, const uint32_t *counts, uint32_t n, double *p)
{
    double top = -INFINITY, sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double shape = prior + (counts ? counts[i] : 0);
        p[i] = shape < 1.0 ? lda_log_gamma_small(r, shape) : lda_log_gamma_variate(r, shape);
        top = p[i] > top ? p[i] : top;
    }
    for (uint32_t i = 0; i < n; i++)
        sum += (p[i] = exp(p[i] - top));
    for (uint32_t i = 0; i < n; i++)
        p[i] /= sum;
}

void lda_planted_doc_topics(uint64_t seed, uint64_t doc, double alpha, uint32_t num_topics, uint32_t length,
                            uint32_t *z, uint64_t *word_bits)
{
    const double k_alpha = (double)num_topics * alpha;
    for (uint32_t i = 0; i < length; i++) {
        const lda_u32x4 u = lda_philox(lda_rng_counter(LDA_RNG_GEN_TOKENS, 0, doc, i), seed);
        const int fresh = (double)u.v[0] * ((double)i + k_alpha) < k_alpha * 4294967296.0; /* u0 / 2^32 < Kα / (i + Kα) */
        z[i] = fresh ? (uint32_t)(((uint64_t)u.v[1] * num_topics) >> 32) : z[((uint64_t)u.v[1] * i) >> 32];
        word_bits[i] = (uint64_t)u.v[2] << 32 | u.v[3];
    }
}

void lda_planted_theta_given(uint64_t seed, uint64_t doc, double alpha, uint32_t num_topics, const uint32_t *z,
                             uint32_t length, uint32_t *counts, double *theta, float *theta_out)
{
    for (uint32_t i = 0; i < length; i++)
        counts[z[i]]++;
    lda_rng r;
    lda_rng_init(&r, seed, LDA_RNG_GEN_THETA, 0, doc);
    draw_dirichlet(&r, alpha, counts, num_topics, theta);
    for (uint32_t k = 0; k < num_topics; k++)
        theta_out[k] = (float)theta[k];
    for (uint32_t i = 0; i < length; i++)
        counts[z[i]] = 0;
}

typedef struct {
    lda_planted_topics *t;
    double beta;
    uint64_t seed;
    double *scratch; /* per worker, `stride` doubles: p and q (V each) and the work list (V indices) */
    size_t stride;
} topic_job;

static void draw_topic(void *ctx, size_t k, int worker)
{
    topic_job *job = ctx;
    const uint32_t V = job->t->vocab_size;
    double *p = job->scratch + (size_t)worker * job->stride, *q = p + V;
    uint32_t *work = (uint32_t *)(q + V);
    lda_rng r;
    lda_rng_init(&r, job->seed, LDA_RNG_GEN_PHI, 0, k);
    draw_dirichlet(&r, job->beta, NULL, V, p);
    for (uint32_t w = 0; w < V; w++)
        job->t->phi[k * V + w] = (float)p[w];
    lda_alias_build(p, V, job->t->alias + k * V, q, work);
}

int lda_planted_topics_draw(lda_planted_topics *t, uint32_t num_topics, uint32_t vocab_size, double beta,
                            uint64_t seed, lda_pool *pool, lda_error *err)
{
    memset(t, 0, sizeof *t);
    t->num_topics = num_topics;
    t->vocab_size = vocab_size;
    const size_t KV = (size_t)num_topics * vocab_size, threads = (size_t)lda_pool_threads(pool);
    const size_t stride = 2 * (size_t)vocab_size + ((size_t)vocab_size + 1) / 2; /* V indices in doubles */
    topic_job job = {t, beta, seed, lda_malloc_array(threads * stride, sizeof(double), "topic scratch", err), stride};
    if (!job.scratch || !(t->phi = lda_malloc_array(KV, sizeof *t->phi, "planted phi", err)) ||
        /* read at a random entry a token: in 4 KiB pages (16 MB of page tables at K = 10^4,
         * V = 10^5) tokens went at a fifth of their speed on a table of 1.6 GB */
        !(t->alias = lda_malloc_huge(KV, sizeof *t->alias, "planted topics' alias tables", err))) {
        free(job.scratch);
        lda_planted_topics_free(t);
        return -1;
    }
    lda_pool_run(pool, num_topics, draw_topic, &job);
    free(job.scratch);
    return 0;
}

void lda_planted_topics_free(lda_planted_topics *t)
{
    free(t->phi);
    free(t->alias);
    t->phi = NULL;
    t->alias = NULL;
}
