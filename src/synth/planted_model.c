/* planted_model.c — see planted_model.h. */
#include "synth/planted_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gamma.h"
#include "core/rng.h"

/* A Dirichlet(prior) vector of n entries from the stream r, normalised, into p. */
static void draw_dirichlet(lda_rng *r, double prior, uint32_t n, double *p)
{
    double top = -INFINITY, sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        p[i] = lda_log_gamma_variate(r, prior);
        top = p[i] > top ? p[i] : top;
    }
    for (uint32_t i = 0; i < n; i++)
        sum += (p[i] = exp(p[i] - top));
    for (uint32_t i = 0; i < n; i++)
        p[i] /= sum;
}

void lda_planted_theta(uint64_t seed, uint64_t doc, double alpha, uint32_t num_topics, double *theta)
{
    lda_rng r;
    lda_rng_init(&r, seed, LDA_RNG_GEN_THETA, 0, doc);
    draw_dirichlet(&r, alpha, num_topics, theta);
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
    draw_dirichlet(&r, job->beta, V, p);
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
        !(t->alias = lda_malloc_array(KV, sizeof *t->alias, "planted topics' alias tables", err))) {
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
