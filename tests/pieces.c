/* pieces.c — see pieces.h. */
#include "pieces.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "helpers.h"

typedef struct {
    uint32_t *z;     /* corpus order */
    float *theta;    /* documents × K */
    float *phi;      /* V × K */
    uint32_t *n_wk, *n_k;
} run_state;

static lda_backend *started_with(const lda_layout *L, lda_device device, lda_model_kind model, lda_sampler sampler,
                                 uint32_t K, uint32_t refresh, uint32_t iterations)
{
    lda_params p;
    lda_params_default(&p);
    p.sampler = sampler;
    p.num_topics = K;
    p.device = device;
    p.threads = 2;
    p.refresh = refresh;
    p.piece_length = L->piece_length;
    lda_params_set_model(&p, model);
    /* The α the float-rounding allowances of pieces_change_nothing_with_theta_given were measured
     * with (a smaller α, mean-for-mode's default since, sharpens θ and puts more draws within a
     * rounding of a boundary: 2.4e-4 of them differ at 20/K against 0.3e-4 at 50/K). */
    p.alpha = 50.0 / K;
    lda_error err = {0};
    lda_backend *b = lda_backend_create(L, &p, &err);
    cr_assert(b, "%s", err.msg);
    cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
    for (uint32_t it = 1; it <= iterations; it++)
        cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
    return b;
}

static lda_backend *started(const lda_layout *L, lda_device device, lda_model_kind model, uint32_t K,
                            uint32_t refresh, uint32_t iterations)
{
    return started_with(L, device, model, LDA_SAMPLER_BUTTERFLY, K, refresh, iterations);
}

/* The state of a run in the corpus's terms; θ rows of a document's pieces must agree. */
static run_state state_of(lda_backend *b, const lda_layout *L, uint32_t K)
{
    lda_error err = {0};
    const uint32_t V = L->vocab_size;
    float *theta_slots = malloc(L->num_slots * K * 4);
    uint32_t *z_pos = malloc(L->num_positions * 4);
    run_state st = {malloc(L->num_tokens * 4), malloc(L->num_docs * K * 4), malloc((size_t)V * K * 4),
                    malloc((size_t)V * K * 4), malloc(K * 4)};
    cr_assert_eq(b->ops->fetch(b, theta_slots, st.phi, z_pos, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->fetch_counts(b, NULL, st.n_wk, st.n_k, &err), 0, "%s", err.msg);
    lda_layout_z_to_corpus_order(L, z_pos, st.z);
    for (size_t s = 0; s < L->num_slots; s++) {
        const uint32_t d = L->slot_doc[s];
        if (d == LDA_NO_DOC)
            continue;
        const float *first = theta_slots + (size_t)L->doc_slot[d] * K;
        cr_assert_eq(memcmp(theta_slots + s * K, first, K * 4), 0, "piece %u of document %u has another θ row",
                     L->slot_piece[s], d);
        memcpy(st.theta + (size_t)d * K, first, K * 4);
    }
    free(theta_slots);
    free(z_pos);
    return st;
}

static void free_state(run_state *st)
{
    free(st->z);
    free(st->theta);
    free(st->phi);
    free(st->n_wk);
    free(st->n_k);
}

void pieces_change_nothing_with_theta_given(lda_device device, lda_model_kind model, size_t num_docs, uint32_t K,
                                            double allowed)
{
    corpus *c = test_planted_corpus(6, 20, num_docs, 3, 150, 31, NULL);
    lda_error err = {0};
    const uint32_t pieces[2] = {0, 37};
    run_state st[2];
    lda_layout *L[2];
    for (int i = 0; i < 2; i++) {
        L[i] = lda_layout_build(c, pieces[i], &err);
        cr_assert(L[i], "%s", err.msg);
        lda_backend *b = started(L[i], device, model, K, 1, 3);
        if (i == 1)
            cr_log_info("pieces of %u: %s", pieces[i], b->zplan.why);
        st[i] = state_of(b, L[i], K);
        lda_backend_destroy(b);
    }
    cr_assert_gt(L[1]->num_cut_docs, num_docs / 4, "the test must cut many documents");
    const uint32_t V = c->vocab_size;
    size_t differ = 0;
    for (size_t t = 0; t < c->num_tokens; t++)
        differ += st[0].z[t] != st[1].z[t];
    cr_log_info("pieces of 37: %zu of %zu draws differ from the uncut layout's", differ, c->num_tokens);
    cr_assert_leq((double)differ, allowed * (double)c->num_tokens, "%zu of %zu draws differ", differ, c->num_tokens);
    if (allowed > 0)
        goto out;
    cr_assert_eq(memcmp(st[0].theta, st[1].theta, c->num_docs * K * 4), 0, "θ differs");
    cr_assert_eq(memcmp(st[0].phi, st[1].phi, (size_t)V * K * 4), 0, "φ differs");
    cr_assert_eq(memcmp(st[0].n_wk, st[1].n_wk, (size_t)V * K * 4), 0, "n[w,k] differs");
    cr_assert_eq(memcmp(st[0].n_k, st[1].n_k, K * 4), 0, "n[k] differs");
out:
    for (int i = 0; i < 2; i++) {
        free_state(&st[i]);
        lda_layout_free(L[i]);
    }
    corpus_free(c);
}

void counts_equal_a_recount(lda_device device, lda_model_kind model, uint32_t refresh, uint32_t piece_length)
{
    counts_equal_a_recount_drawn_by(device, model, LDA_SAMPLER_BUTTERFLY, refresh, piece_length);
}

void counts_equal_a_recount_drawn_by(lda_device device, lda_model_kind model, lda_sampler sampler, uint32_t refresh,
                                     uint32_t piece_length)
{
    counts_equal_a_recount_at(device, model, sampler, refresh, piece_length, 24);
}

void counts_equal_a_recount_at(lda_device device, lda_model_kind model, lda_sampler sampler, uint32_t refresh,
                               uint32_t piece_length, uint32_t K)
{
    corpus *c = test_planted_corpus(5, 12, 300, 3, 400, 8, NULL); /* up to 25 pieces of 16 a document */
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(L && (!piece_length || L->num_cut_docs > 100), "%s", err.msg);
    lda_backend *b = started_with(L, device, model, sampler, K, refresh, 6);
    const uint32_t V = L->vocab_size;
    uint32_t *z = malloc(L->num_positions * 4), *mk = malloc(L->num_slots * K * 4), *wk = malloc(V * K * 4),
             *nk = malloc(K * 4);
    uint32_t *emk = calloc(L->num_slots * K, 4), *ewk = calloc(V * K, 4), *enk = calloc(K, 4);
    cr_assert_eq(b->ops->fetch(b, NULL, NULL, z, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->fetch_counts(b, mk, wk, nk, &err), 0, "%s", err.msg);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            size_t pos = lda_layout_pos(L, s, i);
            emk[s * K + z[pos]]++;
            ewk[L->words[pos] * K + z[pos]]++;
            enk[z[pos]]++;
        }
    lda_layout_join_cut_counts(L, K, emk, NULL);
    cr_assert_eq(memcmp(mk, emk, L->num_slots * K * 4), 0, "n[m,k] is not each piece's document's counts");
    cr_assert_eq(memcmp(wk, ewk, V * K * 4), 0, "n[w,k] drifted from z");
    cr_assert_eq(memcmp(nk, enk, K * 4), 0, "n[k] drifted from z");
    free(z);
    free(mk);
    free(wk);
    free(nk);
    free(emk);
    free(ewk);
    free(enk);
    lda_backend_destroy(b);
    lda_layout_free(L);
    corpus_free(c);
}
