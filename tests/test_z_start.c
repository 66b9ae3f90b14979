/* test_z_start.c — the topics a run starts from (core/z_start.h): the uniform start as it always
 * was, and the sparse start's documents each in at most N topics, their pieces sharing them. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "core/params.h"
#include "core/z_start.h"
#include "core/rng.h"
#include "helpers.h"

/* z at iteration 0 of a backend on L. */
static uint32_t *start_z_on(lda_device device, const lda_layout *L, uint32_t K, uint32_t start_topics,
                            lda_model_kind model)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, model);
    p.num_topics = K;
    p.device = device;
    p.threads = 2;
    p.start_topics = start_topics;
    lda_error err = {0};
    lda_backend *b = lda_backend_create(L, &p, &err);
    cr_assert(b, "%s", err.msg);
    cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
    uint32_t *z = malloc(L->num_positions * sizeof *z);
    float *theta = malloc(L->num_slots * K * sizeof *theta), *phi = malloc(L->vocab_size * K * sizeof *phi);
    cr_assert(z && theta && phi);
    cr_assert_eq(b->ops->fetch(b, theta, phi, z, &err), 0, "%s", err.msg);
    free(theta);
    free(phi);
    lda_backend_destroy(b);
    return z;
}

static uint32_t *start_z(const lda_layout *L, uint32_t K, uint32_t start_topics, lda_model_kind model)
{
    return start_z_on(LDA_DEVICE_CPU, L, K, start_topics, model);
}

/* The largest number of distinct topics any document starts in (over all its pieces), and how
 * many topics some token starts in. */
static void count_topics(const lda_layout *L, const uint32_t *z, uint32_t K, size_t num_docs, uint32_t *most,
                         uint32_t *used)
{
    unsigned char *seen = calloc(num_docs * K, 1), *any = calloc(K, 1);
    cr_assert(seen && any);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            const uint32_t k = z[lda_layout_pos(L, s, i)];
            cr_assert_lt(k, K);
            cr_assert_lt(L->slot_doc[s], num_docs);
            seen[L->slot_doc[s] * K + k] = any[k] = 1;
        }
    *most = *used = 0;
    for (size_t d = 0; d < num_docs; d++) {
        uint32_t n = 0;
        for (uint32_t k = 0; k < K; k++)
            n += seen[d * K + k];
        *most = n > *most ? n : *most;
    }
    for (uint32_t k = 0; k < K; k++)
        *used += any[k];
    free(seen);
    free(any);
}

Test(z_start, documents_start_in_at_most_n_topics_shared_by_their_pieces)
{
    const uint32_t K = 50;
    corpus *c = test_planted_corpus(5, 40, 300, 60, 120, 5, NULL); /* 300 documents of 60 to 120 tokens */
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 16, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_gt(L->num_cut_docs, 0, "the documents must be cut into pieces");
    for (uint32_t n = 1; n <= 4; n += 3) {
        uint32_t *z = start_z(L, K, n, LDA_MODEL_COLLAPSED), most, used;
        count_topics(L, z, K, c->num_docs, &most, &used);
        cr_assert_leq(most, n, "a document starts in %u topics, more than %u", most, n);
        cr_assert_geq(most, n == 1 ? 1 : 2);
        cr_assert_geq(used, 45, "the documents' topics cover only %u of %u", used, K);
        free(z);
    }
    uint32_t *z = start_z(L, K, 0, LDA_MODEL_COLLAPSED), most, used;
    count_topics(L, z, K, c->num_docs, &most, &used);
    cr_assert_gt(most, 20, "the uniform start spreads a document of 60 or more tokens over many topics");
    free(z);
    lda_layout_free(L);
    corpus_free(c);
}

/* Every token's start is the rule of z_start.h, token by token: the uniform one as before
 * (models trained with it are unchanged), the sparse one through the document's own draws. */
Test(z_start, each_token_starts_by_the_rule)
{
    const uint32_t K = 37;
    corpus *c = test_planted_corpus(5, 40, 100, 20, 80, 5, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 16, &err);
    cr_assert(L, "%s", err.msg);
    for (uint32_t n = 0; n <= 3; n += 3) {
        uint32_t *z = start_z(L, K, n, LDA_MODEL_COLLAPSED);
        for (size_t s = 0; s < L->num_slots; s++)
            for (uint32_t i = 0; i < L->slot_len[s]; i++) {
                const uint64_t token = L->slot_token_base[s] + i;
                uint32_t bits = lda_rng_once(1, LDA_RNG_Z_INIT, 0, token);
                if (n)
                    bits = lda_rng_once(1, LDA_RNG_Z_INIT, 1 + (uint32_t)(((uint64_t)bits * n) >> 32), L->slot_doc[s]);
                cr_assert_eq(z[lda_layout_pos(L, s, i)], (uint32_t)(((uint64_t)bits * K) >> 32));
            }
        free(z);
    }
    lda_layout_free(L);
    corpus_free(c);
}

Test(z_start, auto_is_sparse_where_theta_is_collapsed_and_uniform_for_a_frozen_phi)
{
    lda_params p;
    lda_params_default(&p);
    cr_assert_eq(p.start_topics, LDA_START_TOPICS_AUTO);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    cr_assert_eq(lda_params_start_topics(&p), LDA_START_TOPICS_COLLAPSED);
    lda_params_set_model(&p, LDA_MODEL_THETA_COLLAPSED);
    cr_assert_eq(lda_params_start_topics(&p), LDA_START_TOPICS_COLLAPSED);
    lda_params_set_model(&p, LDA_MODEL_UNCOLLAPSED);
    cr_assert_eq(lda_params_start_topics(&p), 0);
    p.start_topics = 5;
    cr_assert_eq(lda_params_start_topics(&p), 5);
    p.freeze_phi = 1;
    cr_assert_eq(lda_params_start_topics(&p), 0, "inference and the held-out evaluation start uniform");
}

/* The GPU starts where the CPU does, token for token, in either start (skips without a GPU). */
Test(z_start, gpu_starts_as_the_cpu)
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) <= 0)
        cr_skip_test("no GPU here: %s", why);
    const uint32_t K = 1000;
    corpus *c = test_planted_corpus(5, 40, 400, 20, 700, 7, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 256, &err);
    cr_assert(L, "%s", err.msg);
    for (uint32_t n = 0; n <= 16; n += 16) {
        uint32_t *cpu = start_z(L, K, n, LDA_MODEL_COLLAPSED);
        uint32_t *gpu = start_z_on(LDA_DEVICE_CUDA, L, K, n, LDA_MODEL_COLLAPSED);
        cr_assert_eq(memcmp(cpu, gpu, L->num_positions * sizeof *cpu), 0, "start %u: the GPU's z differs", n);
        free(cpu);
        free(gpu);
    }
    lda_layout_free(L);
    corpus_free(c);
}
