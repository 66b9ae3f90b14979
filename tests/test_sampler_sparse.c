/* test_sampler_sparse.c — the sparse z draw (backend/sampler_sparse.h): exact agreement
 * with a plain restatement of the split on integer weights over several passes (counts
 * included), a chi-squared goodness-of-fit on real weights, the refusals, and planted
 * topics recovered end to end; the same for the word side of the collapsed model's draw. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/layout.h"
#include "backend/sampler_sparse.h"
#include "backend/zplan.h"
#include "core/rng.h"
#include "core/search.h"
#include "core/sparse_draw.h"
#include "helpers.h"
#include "planted.h"

/* The split written out plainly for one token: the weights n[k] φ[k] of the listed topics
 * (those with a count when the slot's draw began, and those drawn since), increasing, taken in
 * the lanes' order (entry j in lane j mod 32, lane by lane), then α_k φ[k] of every topic,
 * in one array, searched linearly. */
static uint32_t reference_draw(const uint32_t *n, const uint8_t *listed, const float *phi, const float *alpha,
                               uint32_t K, lda_precision precision, uint32_t bits, double *cum, uint32_t *topic_of)
{
    uint32_t m = 0, doc_part = 0;
    double sum = 0;
    for (uint32_t k = 0; k < K; k++)
        if (listed[k])
            topic_of[K + doc_part++] = k; /* the list, increasing */
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t j = lane; j < doc_part; j += 32)
            topic_of[m++] = topic_of[K + j];
    for (uint32_t e = 0; e < m + K; e++) {
        const int dense = e >= m;
        const uint32_t k = dense ? e - m : topic_of[e];
        double w = dense ? (double)alpha[k] * phi[k] : (double)n[k] * phi[k];
        sum = precision == LDA_PRECISION_FLOAT ? (double)((float)sum + (float)w) : sum + w;
        cum[e] = sum;
        topic_of[e] = k;
    }
    m += K;
    if (precision == LDA_PRECISION_FLOAT) {
        float c32[2 * 4096];
        for (uint32_t j = 0; j < m; j++)
            c32[j] = (float)cum[j];
        float t = lda_scaled_target_float(c32[m - 1], lda_uniform_float(bits));
        return topic_of[lda_linear_search_float(c32, (int)m, t)];
    }
    double t = lda_scaled_target_double(cum[m - 1], lda_uniform_double(bits));
    return topic_of[lda_linear_search_double(cum, (int)m, t)];
}

/* The word side (core/sparse_draw.h, lda_sparse_word_side) written out plainly for one token:
 * the weights n[k] e[w,k] of the word's listed topics in the lanes' order over its list, then
 * n[k] f_k of the document's listed topics in the lanes' order over theirs, then α_k φ[k] of
 * every topic, in one array, searched linearly. */
static uint32_t reference_word_side_draw(const uint32_t *n, const uint8_t *listed, const uint32_t *wt,
                                         const float *we, uint32_t wlen, const float *floor_, const float *phi,
                                         const float *alpha, uint32_t K, lda_precision precision, uint32_t bits,
                                         double *cum, uint32_t *topic_of)
{
    uint32_t e = 0, doc_part = 0;
    double *weight = cum + 2 * K, sum = 0;
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t j = lane; j < wlen; j += 32) {
            topic_of[e] = wt[j];
            weight[e++] = (double)n[wt[j]] * we[j];
        }
    for (uint32_t k = 0; k < K; k++)
        if (listed[k])
            topic_of[2 * K + doc_part++] = k;
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t j = lane; j < doc_part; j += 32) {
            const uint32_t k = topic_of[2 * K + j];
            topic_of[e] = k;
            weight[e++] = (double)n[k] * floor_[k];
        }
    for (uint32_t k = 0; k < K; k++) {
        topic_of[e] = k;
        weight[e++] = (double)alpha[k] * phi[k];
    }
    for (uint32_t j = 0; j < e; j++) {
        sum = precision == LDA_PRECISION_FLOAT ? (double)((float)sum + (float)weight[j]) : sum + weight[j];
        cum[j] = sum;
    }
    if (precision == LDA_PRECISION_FLOAT) {
        float *c32 = (float *)(cum + 5 * K);
        for (uint32_t j = 0; j < e; j++)
            c32[j] = (float)cum[j];
        return topic_of[lda_linear_search_float(c32, (int)e, lda_scaled_target_float(c32[e - 1], lda_uniform_float(bits)))];
    }
    return topic_of[lda_linear_search_double(cum, (int)e, lda_scaled_target_double(cum[e - 1], lda_uniform_double(bits)))];
}

/* Documents of 1 to 120 tokens over 37 words (some cut into pieces of piece_length), a third
 * of the tokens repeating the word before them (runs, along which the draw carries its sums:
 * LDA_SPARSE_REUSE_AFTER), integer φ in 0..7 (zero for every topic k ≡ 2 mod 5) and integer
 * α_k in 1..3, random initial z: three passes of the sparse draw must give the reference's z
 * and counts exactly. With the word side (quarters > 0): φ = f_k + e[w,k], f_k in 1..2, e in
 * 1..7 on a sixth of the topics, or about 10 of them at larger K (every seventh word on all of
 * them), tokens whose word lists
 * at most quarters / 4 times their document's topics drawn by its reference. */
static void exact_on_integer_weights(uint32_t K, lda_precision precision, uint32_t piece_length, uint32_t quarters)
{
    enum { DOCS = 40, V = 37, PASSES = 3 };
    corpus *c = test_word_runs_corpus(DOCS, V, 120);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert(!piece_length || L->num_cut_docs > 10, "the test must cut documents");
    float *phi = malloc((size_t)V * K * sizeof *phi), *alpha = malloc(K * sizeof *alpha);
    for (uint32_t k = 0; k < K; k++) {
        alpha[k] = (float)(1 + k % 3);
        for (uint32_t w = 0; w < V; w++)
            phi[w * K + k] = k % 5 == 2 ? 0.0f : (float)(lda_rng_once(9, LDA_RNG_TEST, 3, w * K + k) % 8);
    }
    for (uint32_t w = 0; w < V; w++)
        phi[w * K] = 1.0f; /* every word has a weight somewhere, also at K = 1 */
    float *floor_ = malloc(K * sizeof *floor_), *excess = malloc((size_t)V * K * sizeof *excess);
    uint32_t *word_topics = malloc((size_t)V * K * sizeof *word_topics), word_len[V];
    uint64_t word_offset[V + 1];
    word_offset[0] = 0;
    for (uint32_t w = 0; w < V; w++) {
        word_len[w] = 0;
        for (uint32_t k = 0; k < K && quarters; k++) {
            const uint32_t bits = lda_rng_once(9, LDA_RNG_TEST, 5, w * K + k);
            const uint32_t e = w % 7 == 0 || bits % (K < 60 ? 6 : K / 10) == 0 ? 1 + (bits >> 8) % 7 : 0;
            floor_[k] = (float)(1 + k % 2);
            phi[w * K + k] = floor_[k] + (float)e;
            if (e) {
                word_topics[word_offset[w] + word_len[w]] = k;
                excess[word_offset[w] + word_len[w]++] = (float)e;
            }
        }
        word_offset[w + 1] = word_offset[w] + word_len[w];
    }
    const lda_sparse_word_side ws = {word_offset, word_topics, word_len, excess, floor_, quarters};
    uint32_t *z = calloc(L->num_positions, sizeof *z), *n = calloc(L->num_slots * K, sizeof *n);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            size_t pos = lda_layout_pos(L, s, i);
            z[pos] = lda_rng_once(9, LDA_RNG_TEST, 4, L->slot_token_base[s] + i) % K;
            n[s * K + z[pos]]++;
        }
    lda_layout_join_cut_counts(L, K, n, NULL);
    uint32_t *ez = malloc(L->num_positions * sizeof *ez), *en = malloc(L->num_slots * K * sizeof *en);
    memcpy(ez, z, L->num_positions * sizeof *z);
    memcpy(en, n, L->num_slots * K * sizeof *n);
    void *table = malloc(lda_word_prior_prefix_bytes(V, K, precision));
    double *cum = malloc(8 * K * sizeof *cum);
    uint32_t *topic_of = malloc(3 * K * sizeof *topic_of);
    uint8_t *listed = malloc(K);
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_zdraw in = {.n_mk = n, .alpha = alpha, .phi = phi, .word_prior = table, .word_side = quarters ? &ws : NULL,
                    .K = K, .precision = precision, .seed = 21};
    size_t changed = 0, by_word = 0;
    for (uint32_t it = 1; it <= PASSES; it++) {
        in.iteration = it;
        lda_cpu_word_prior_prefix(pool, V, &in, table);
        cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
        for (size_t s = 0; s < L->num_slots; s++)
            for (uint32_t i = 0; i < L->slot_len[s]; i++) {
                size_t pos = lda_layout_pos(L, s, i);
                uint32_t *row = en + s * K, w = L->words[pos];
                if (i == 0)
                    for (uint32_t k = 0; k < K; k++)
                        listed[k] = row[k] != 0;
                row[ez[pos]]--;
                uint32_t old = ez[pos], m = 0;
                for (uint32_t k = 0; k < K; k++)
                    m += listed[k];
                const uint32_t bits = lda_rng_once(21, LDA_RNG_Z, it, L->slot_token_base[s] + i);
                if (quarters && lda_sparse_word_side_applies(word_len[w], quarters, m)) {
                    by_word++;
                    ez[pos] = reference_word_side_draw(row, listed, word_topics + word_offset[w], excess + word_offset[w],
                                                       word_len[w], floor_, phi + (size_t)w * K, alpha, K, precision,
                                                       bits, cum, topic_of);
                } else
                    ez[pos] = reference_draw(row, listed, phi + (size_t)w * K, alpha, K, precision, bits, cum, topic_of);
                row[ez[pos]]++;
                listed[ez[pos]] = 1;
                changed += ez[pos] != old;
            }
        for (size_t s = 0; s < L->num_slots; s++)
            for (uint32_t i = 0; i < L->slot_len[s]; i++) {
                size_t pos = lda_layout_pos(L, s, i);
                cr_assert_eq(z[pos], ez[pos], "K=%u pass %u slot %zu token %u: %u, reference %u", K, it, s, i, z[pos],
                             ez[pos]);
            }
        cr_assert_eq(memcmp(n, en, L->num_slots * K * sizeof *n), 0, "K=%u pass %u: counts differ", K, it);
        /* the next pass starts from a recount, joined, as the backends do */
        memset(n, 0, L->num_slots * K * sizeof *n);
        for (size_t s = 0; s < L->num_slots; s++)
            for (uint32_t i = 0; i < L->slot_len[s]; i++)
                n[s * K + z[lda_layout_pos(L, s, i)]]++;
        lda_layout_join_cut_counts(L, K, n, NULL);
        memcpy(en, n, L->num_slots * K * sizeof *n);
    }
    if (K > 1)
        cr_assert_gt(changed, c->num_tokens / 4, "K=%u: the draws changed almost nothing", K);
    if (quarters && K >= 32)
        cr_assert_gt(by_word, c->num_tokens / 10, "K=%u: %zu draws by the word side", K, by_word);
    lda_pool_destroy(pool);
    free(floor_);
    free(excess);
    free(word_topics);
    free(phi);
    free(alpha);
    free(z);
    free(n);
    free(ez);
    free(en);
    free(table);
    free(cum);
    free(topic_of);
    free(listed);
    lda_layout_free(L);
    corpus_free(c);
}

static const uint32_t exact_K[] = {1, 2, 31, 32, 33, 64, 100, 1000, 1024, 4096};

Test(sampler_sparse, exact_on_integer_weights_float)
{
    for (size_t i = 0; i < sizeof exact_K / sizeof exact_K[0]; i++)
        exact_on_integer_weights(exact_K[i], LDA_PRECISION_FLOAT, 0, 0);
}

Test(sampler_sparse, exact_on_integer_weights_double)
{
    for (size_t i = 0; i < sizeof exact_K / sizeof exact_K[0]; i++)
        exact_on_integer_weights(exact_K[i], LDA_PRECISION_DOUBLE, 0, 0);
}

/* Pieces keep their document's counts: their topics come from the row, not from their z. */
Test(sampler_sparse, exact_on_integer_weights_with_pieces)
{
    exact_on_integer_weights(33, LDA_PRECISION_FLOAT, 16, 0);
    exact_on_integer_weights(1024, LDA_PRECISION_DOUBLE, 7, 0);
}

/* The word side: its draws, with their sums carried along a word's run and the document's
 * floor kept as its counts move, are its plain restatement's on integer weights, with and
 * without pieces, at several shares of the word's list to the document's. */
Test(sampler_sparse, exact_on_integer_weights_word_side)
{
    for (size_t i = 0; i < sizeof exact_K / sizeof exact_K[0]; i++) {
        exact_on_integer_weights(exact_K[i], LDA_PRECISION_FLOAT, 0, 4);
        exact_on_integer_weights(exact_K[i], LDA_PRECISION_DOUBLE, 16, 2);
    }
    exact_on_integer_weights(1024, LDA_PRECISION_DOUBLE, 7, 64);
}

/* Documents of 4 tokens of one word, the last three held at topics (b, b, c): the first
 * token's draw has weights (n[k] + α_k) φ[w,k] with n[b] = 2, n[c] = 1, the same in every
 * document and independent across them (its own uniform), so 250,000 documents give that
 * many samples of it. Real α and φ, some φ zero. */
static void chi2_of_sparse_draws(lda_precision precision)
{
    enum { K = 50, V = 3, DOCS = 250000 };
    const uint32_t b = 7, c3 = 30;
    corpus *c = test_repeated_word_corpus(DOCS, 4, V, 1);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    float phi[V * K], alpha[K];
    double prob[K], total = 0;
    for (uint32_t k = 0; k < K; k++) {
        alpha[k] = 0.05f + (float)((k * 37) % 11) / 7.0f;
        for (uint32_t w = 0; w < V; w++)
            phi[w * K + k] = w != 1 ? 1.0f : k % 10 == 3 ? 0.0f : 0.001f + (float)((k * 13) % 17) / 50.0f;
        prob[k] = ((k == b ? 2.0 : k == c3 ? 1.0 : 0.0) + alpha[k]) * phi[K + k];
        total += prob[k];
    }
    for (uint32_t k = 0; k < K; k++)
        prob[k] /= total;
    uint32_t *z = calloc(L->num_positions, sizeof *z), *n = calloc(L->num_slots * K, sizeof *n);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            uint32_t k = i == 0 ? (uint32_t)(s % K) : i == 3 ? c3 : b;
            z[lda_layout_pos(L, s, i)] = k;
            n[s * K + k]++;
        }
    void *table = malloc(lda_word_prior_prefix_bytes(V, K, precision));
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    /* one token a document drawn: the rest are drawn too, but only the first is counted */
    lda_zdraw in = {.n_mk = n, .alpha = alpha, .phi = phi, .word_prior = table, .K = K, .precision = precision,
                    .seed = 5, .iteration = 1};
    lda_cpu_word_prior_prefix(pool, V, &in, table);
    cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
    uint64_t counts[K] = {0};
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_len[s])
            counts[z[lda_layout_pos(L, s, 0)]]++;
    for (uint32_t k = 3; k < K; k += 10)
        cr_assert_eq(counts[k], 0, "topic %u has zero weight but was drawn %llu times", k,
                     (unsigned long long)counts[k]);
    double dof, stat = test_chi2_stat(counts, prob, K, DOCS, &dof);
    double p = test_chi2_sf(stat, dof);
    cr_assert(p > 0.001, "chi-squared %.1f on %.0f dof: p = %g < 0.001", stat, dof, p);
    lda_pool_destroy(pool);
    free(z);
    free(n);
    free(table);
    lda_layout_free(L);
    corpus_free(c);
}

Test(sampler_sparse, chi_squared_float) { chi2_of_sparse_draws(LDA_PRECISION_FLOAT); }
Test(sampler_sparse, chi_squared_double) { chi2_of_sparse_draws(LDA_PRECISION_DOUBLE); }

/* The sparse draw is for θ-collapsed models, on either backend's plan; the GPU's plan runs
 * its kernel with scratch for the word tables and every slot's list. */
Test(sampler_sparse, plans_and_refusals)
{
    lda_params p;
    lda_params_default(&p);
    p.sampler = LDA_SAMPLER_SPARSE;
    lda_params_set_model(&p, LDA_MODEL_UNCOLLAPSED);
    lda_zplan z;
    lda_error err = {0};
    cr_assert_eq(lda_zplan_cpu(&p, 2, &z, &err), -1);
    cr_assert(strstr(err.msg, "θ-collapsed"), "%s", err.msg);
    const lda_gpu_limits h100 = {227 * 1024, 132};
    corpus *c = test_planted_corpus(3, 8, 100, 3, 90, 6, NULL);
    lda_layout *L = lda_layout_build(c, 40, &err);
    cr_assert(L && L->num_cut_docs > 0, "%s", err.msg);
    memset(&err, 0, sizeof err);
    cr_assert_eq(lda_zplan_make(&p, L, &h100, &z, &err), -1);
    cr_assert(strstr(err.msg, "θ-collapsed"), "%s", err.msg);
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    p.num_topics = 100;
    memset(&err, 0, sizeof err);
    cr_assert_eq(lda_zplan_cpu(&p, 2, &z, &err), 0, "%s", err.msg);
    cr_assert(strstr(z.why, "sparse"), "%s", z.why);
    p.refresh = 2;
    cr_assert_eq(lda_zplan_make(&p, L, &h100, &z, &err), 0, "%s", err.msg);
    cr_assert_eq(z.kernel, LDA_ZKERNEL_SPARSE);
    cr_assert(!z.fused_counts && strstr(z.why, "sparse"), "%s", z.why);
    /* scratch: tables V × ceil(100/16) floats, the offsets, each slot's list of topics and their
     * counts, and the lists' lengths */
    uint64_t *offsets = malloc((L->num_slots + 1) * sizeof *offsets), want = 0;
    lda_sparse_list_offsets(L, 100, offsets);
    for (size_t s = 0; s < L->num_slots; s++) {
        const uint64_t most = (uint64_t)L->slot_len[s] + L->slot_doc_len[s];
        want += most < 100 ? most : 100;
        cr_assert_eq(offsets[s + 1] - offsets[s], most < 100 ? most : 100);
    }
    cr_assert_eq(offsets[L->num_slots], want);
    const size_t need = (size_t)L->vocab_size * 7 * 4 + (L->num_slots + 1) * 8 + want * 8 + L->num_slots * 4;
    cr_assert_geq(z.scratch_bytes, need);
    cr_assert_lt(z.scratch_bytes, need + 5 * 256);
    free(offsets);
    lda_layout_free(L);
    corpus_free(c);
    char *dir = test_tmpdir(), *corpus_path = test_tiny_corpus(dir), args[1024];
    snprintf(args, sizeof args, "train '%s' --sampler sparse --model mean-for-mode --device cpu -n 1 -q -o '%s/m'",
             corpus_path, dir);
    test_expect_failure(args, 2, "θ-collapsed");
    free(corpus_path);
    test_rmdir(dir);
    free(dir);
}

/* The plan takes the kernel's long lists' compilation (zplan.h) where at least a tenth of the
 * tokens are in slots whose list may reach 1024 topics: documents of 2,000 to 3,000 tokens, cut
 * into pieces of 256 that list their whole document's topics, at K = 1024 and above; not at
 * K = 256 (no list is longer), nor for documents of at most 40 tokens at any K in the collapsed
 * model. With φ read (θ-collapsed: φ drawn) it takes it from K = 4096 on whatever the lists. */
static int plans_long_lists_given(const corpus *c, uint32_t K, lda_model_kind model, int given)
{
    const lda_gpu_limits h100 = {227 * 1024, 132};
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 256, &err);
    cr_assert(L, "%s", err.msg);
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, model);
    p.sampler = LDA_SAMPLER_SPARSE;
    p.num_topics = K;
    p.sparse_long_lists = given;
    lda_zplan z;
    cr_assert_eq(lda_zplan_make(&p, L, &h100, &z, &err), 0, "%s", err.msg);
    cr_assert(strstr(z.why, z.sparse_long_lists ? "(long lists" : "(short lists)"), "%s", z.why);
    if (given < 0) /* the layout's own choice */
        cr_assert_eq(z.sparse_long_lists,
                     lda_zplan_long_lists(L, K) || (!z.phi_from_counts && K >= LDA_ZPLAN_LONG_LIST_PHI_READ));
    /* the word lists go with the long lists' draw of φ formed from the counts, and their room
     * is in the scratch */
    const int word_lists = z.sparse_long_lists && z.phi_from_counts && K >= LDA_ZPLAN_WORD_LISTS_FROM_K;
    cr_assert_eq(z.sparse_word_lists, word_lists ? LDA_WORD_LISTS_BY_TOKENS : LDA_WORD_LISTS_NONE, "K=%u", K);
    cr_assert_eq(z.word_list_ratio, word_lists ? LDA_ZPLAN_WORD_LIST_RATIO : 0u, "K=%u", K);
    cr_assert_eq(z.word_list_doc_most, word_lists ? K / LDA_ZPLAN_WORD_LIST_DOC_SHARE : 0u, "K=%u", K);
    lda_sparse_scratch without;
    lda_sparse_scratch_plan(L, K, p.precision, LDA_WORD_LISTS_NONE, K, &without);
    cr_assert_eq(z.scratch_bytes > without.total_bytes, word_lists, "K=%u: %zu bytes of scratch, %zu without word lists",
                 K, z.scratch_bytes, without.total_bytes);
    lda_layout_free(L);
    return z.sparse_long_lists;
}

/* A word's list has room for min(K, its tokens) topics (its counts have no more non-zero
 * entries, in a model whose counts are its corpus's), or K for whole rows; the pieces of a
 * cut document count each token once. */
Test(sampler_sparse, word_lists_have_room_for_each_words_topics)
{
    corpus *c = test_planted_corpus(4, 25, 20, 200, 3000, 1, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 256, &err);
    cr_assert(L, "%s", err.msg);
    uint64_t *tokens = calloc(c->vocab_size, sizeof *tokens), *offsets = malloc((c->vocab_size + 1) * sizeof *offsets);
    for (size_t i = 0; i < c->num_tokens; i++)
        tokens[c->words[i]]++;
    const uint32_t Ks[] = {1, 7, 1024};
    for (size_t k = 0; k < sizeof Ks / sizeof Ks[0]; k++) {
        const uint32_t K = Ks[k];
        lda_sparse_word_list_offsets(L, K, LDA_WORD_LISTS_BY_TOKENS, K, offsets);
        cr_assert_eq(offsets[0], 0);
        for (uint32_t w = 0; w < c->vocab_size; w++)
            cr_assert_eq(offsets[w + 1] - offsets[w], tokens[w] < K ? tokens[w] : K, "K=%u word %u", K, w);
        lda_sparse_word_list_offsets(L, K, LDA_WORD_LISTS_WHOLE_ROWS, K, offsets);
        cr_assert_eq(offsets[c->vocab_size], (uint64_t)c->vocab_size * K, "K=%u", K);
        lda_sparse_scratch a, b;
        lda_sparse_scratch_plan(L, K, LDA_PRECISION_FLOAT, LDA_WORD_LISTS_NONE, K, &a);
        lda_sparse_scratch_plan(L, K, LDA_PRECISION_FLOAT, LDA_WORD_LISTS_BY_TOKENS, K, &b);
        lda_sparse_word_list_offsets(L, K, LDA_WORD_LISTS_BY_TOKENS, K, offsets);
        cr_assert_geq(b.total_bytes - a.total_bytes,
                      offsets[c->vocab_size] * 8 + (c->vocab_size + 1) * 8 + c->vocab_size * 4, "K=%u", K);
        cr_assert_geq(b.word_offsets_at, a.total_bytes, "K=%u: the word lists overlap the slots' lists", K);
    }
    free(tokens);
    free(offsets);
    lda_layout_free(L);
    corpus_free(c);
}

static int plans_long_lists_of(const corpus *c, uint32_t K, lda_model_kind model)
{
    return plans_long_lists_given(c, K, model, -1);
}

static int plans_long_lists(const corpus *c, uint32_t K)
{
    return plans_long_lists_of(c, K, LDA_MODEL_COLLAPSED);
}

Test(sampler_sparse, plan_takes_the_long_lists_kernel_where_lists_may_be_long)
{
    corpus *short_docs = test_planted_corpus(4, 25, 500, 5, 40, 1, NULL),
           *long_docs = test_planted_corpus(4, 25, 20, 2000, 3000, 1, NULL);
    cr_assert(plans_long_lists(long_docs, 1024));
    cr_assert(plans_long_lists(long_docs, 10000));
    cr_assert_not(plans_long_lists(long_docs, 256));
    cr_assert_not(plans_long_lists(short_docs, 1024));
    cr_assert_not(plans_long_lists(short_docs, 10000));
    cr_assert_not(plans_long_lists_of(short_docs, 1024, LDA_MODEL_THETA_COLLAPSED));
    cr_assert(plans_long_lists_of(short_docs, 4096, LDA_MODEL_THETA_COLLAPSED));
    cr_assert(plans_long_lists_of(short_docs, 10000, LDA_MODEL_THETA_COLLAPSED));
    corpus_free(short_docs);
    corpus_free(long_docs);
}

/* A shard takes the whole layout's choice (params.sparse_long_lists), whatever its own lists. */
Test(sampler_sparse, plan_takes_the_whole_layouts_choice_when_given)
{
    corpus *short_docs = test_planted_corpus(4, 25, 500, 5, 40, 1, NULL),
           *long_docs = test_planted_corpus(4, 25, 20, 2000, 3000, 1, NULL);
    cr_assert(plans_long_lists_given(long_docs, 1024, LDA_MODEL_COLLAPSED, -1));
    cr_assert_not(plans_long_lists_given(long_docs, 1024, LDA_MODEL_COLLAPSED, 0));
    cr_assert_not(plans_long_lists_given(short_docs, 1024, LDA_MODEL_COLLAPSED, -1));
    cr_assert(plans_long_lists_given(short_docs, 1024, LDA_MODEL_COLLAPSED, 1));
    corpus_free(short_docs);
    corpus_free(long_docs);
}

Test(sampler_sparse, planted_topics_recovered_collapsed)
{
    planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_COLLAPSED, LDA_PRECISION_FLOAT, LDA_SAMPLER_SPARSE);
}

Test(sampler_sparse, planted_topics_recovered_theta_collapsed_double)
{
    planted_recovery_model(LDA_DEVICE_CPU, LDA_MODEL_THETA_COLLAPSED, LDA_PRECISION_DOUBLE, LDA_SAMPLER_SPARSE);
}

/* A whole document's list may be built from its row or from its z (core/sparse_draw.h,
 * `from_row`): the row is their tally, so both must draw the same topics, on real weights.
 * One document of 300 tokens over 50 words, K = 100, drawn for five passes each way. */
Test(sampler_sparse, lists_from_the_row_or_from_z_draw_alike)
{
    enum { LEN = 300, V = 50, K = 100 };
    static uint32_t words[LEN], z[2][LEN], n[2][K], topics[2][K];
    static float phi[V * K], alpha[K], table[V * ((K + 15) / 16)];
    static float sums[2][K];
    for (uint32_t k = 0; k < K; k++)
        alpha[k] = 0.02f + (float)(lda_rng_once(3, LDA_RNG_TEST, 0, k) % 100) / 300.0f;
    for (uint32_t i = 0; i < V * K; i++)
        phi[i] = (float)(lda_rng_once(3, LDA_RNG_TEST, 1, i) >> 8) * 0x1p-24f;
    for (uint32_t w = 0; w < V; w++)
        lda_sparse_table_row_float(alpha, phi + w * K, K, table + w * ((K + 15) / 16));
    for (uint32_t i = 0; i < LEN; i++) {
        words[i] = lda_rng_once(3, LDA_RNG_TEST, 2, i) % V;
        z[0][i] = z[1][i] = lda_rng_once(3, LDA_RNG_TEST, 3, i) % K;
        n[0][z[0][i]]++;
        n[1][z[1][i]]++;
    }
    for (uint32_t it = 1; it <= 5; it++)
        for (int v = 0; v < 2; v++) {
            const lda_sparse_doc d = {.words = words, .z = z[v], .base = 0, .stride = 1, .len = LEN, .from_row = v,
                                      .token_base = 1000, .n = n[v], .topics = topics[v],
                                      .sums = sums[v], .phi = phi, .alpha = alpha, .table = table,
                                      .K = K, .seed = 4, .iteration = it};
            lda_sparse_draw_doc_float(&d);
        }
    cr_assert_eq(memcmp(z[0], z[1], sizeof z[0]), 0, "the topics differ");
    cr_assert_eq(memcmp(n[0], n[1], sizeof n[0]), 0, "the counts differ");
}

/* Documents of two tokens of one word, held at topics (a, b): the first is drawn with counts
 * {b: 1}, the second with counts {the first's new topic: 1}, the first's old topic left
 * listed at zero. The pair's joint distribution is known, P(z0, z1) = P(z0 | b) P(z1 | z0),
 * each ∝ (n[k] + α_k) φ[1,k], so 200,000 documents test every path of the list (a stale topic,
 * a topic added, one drawn again) with a chi-squared over K² cells. Significance 0.001.
 * phi1: word 1's φ; ws: the word side (core/sparse_draw.h), or NULL. */
static void chi2_of_sparse_pairs_of(lda_precision precision, const float *phi1, const lda_sparse_word_side *ws,
                                    uint64_t seed)
{
    enum { K = 10, V = 2, DOCS = 200000 };
    const uint32_t a0 = 3, b0 = 6;
    corpus *c = test_repeated_word_corpus(DOCS, 2, V, 1);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    float phi[V * K], alpha[K];
    for (uint32_t k = 0; k < K; k++) {
        alpha[k] = 0.1f + (float)(k % 4) * 0.3f;
        phi[k] = 1.0f;
        phi[K + k] = phi1[k];
    }
    double prob[K * K], cond[K];
    for (uint32_t x = 0; x < K; x++) {
        double sum = 0;
        for (uint32_t k = 0; k < K; k++)
            sum += (cond[k] = ((k == b0) + (double)alpha[k]) * phi[K + k]);
        double px = cond[x] / sum, sum1 = 0;
        for (uint32_t k = 0; k < K; k++)
            sum1 += ((k == x) + (double)alpha[k]) * phi[K + k];
        for (uint32_t y = 0; y < K; y++)
            prob[x * K + y] = px * ((y == x) + (double)alpha[y]) * phi[K + y] / sum1;
    }
    uint32_t *z = calloc(L->num_positions, sizeof *z), *n = calloc(L->num_slots * K, sizeof *n);
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            z[lda_layout_pos(L, s, i)] = i ? b0 : a0;
            n[s * K + (i ? b0 : a0)]++;
        }
    void *table = malloc(lda_word_prior_prefix_bytes(V, K, precision));
    lda_pool *pool = lda_pool_create(2, &err);
    cr_assert(pool, "%s", err.msg);
    lda_zdraw in = {.n_mk = n, .alpha = alpha, .phi = phi, .word_prior = table, .word_side = ws, .K = K,
                    .precision = precision, .seed = seed, .iteration = 1};
    lda_cpu_word_prior_prefix(pool, V, &in, table);
    cr_assert_eq(lda_cpu_sample_z(pool, L, &in, z, &err), 0, "%s", err.msg);
    uint64_t counts[K * K] = {0};
    for (size_t s = 0; s < L->num_slots; s++)
        if (L->slot_len[s])
            counts[z[lda_layout_pos(L, s, 0)] * K + z[lda_layout_pos(L, s, 1)]]++;
    double dof, stat = test_chi2_stat(counts, prob, K * K, DOCS, &dof);
    double p = test_chi2_sf(stat, dof);
    cr_assert(p > 0.001, "chi-squared %.1f on %.0f dof: p = %g < 0.001", stat, dof, p);
    lda_pool_destroy(pool);
    free(z);
    free(n);
    free(table);
    lda_layout_free(L);
    corpus_free(c);
}

static void chi2_of_sparse_pairs(lda_precision precision)
{
    float phi1[10];
    for (uint32_t k = 0; k < 10; k++)
        phi1[k] = k == 8 ? 0.0f : 0.05f + (float)((k * 7) % 10) / 10.0f;
    chi2_of_sparse_pairs_of(precision, phi1, NULL, 8);
}

Test(sampler_sparse, chi_squared_of_pairs_float) { chi2_of_sparse_pairs(LDA_PRECISION_FLOAT); }
Test(sampler_sparse, chi_squared_of_pairs_double) { chi2_of_sparse_pairs(LDA_PRECISION_DOUBLE); }

/* The same pairs by the word side: φ[1,k] = f_k + e_k, word 1 listing topics 2 and 6 (e > 0),
 * f_k > 0 everywhere; both tokens go by the word side (its list of 2 within the document's 2
 * or 3 topics: quarters 4), so every part of its draw is reached (the word's topics, the floor,
 * the word's dense part) and F and E are carried from the first token to the second. */
static void chi2_of_word_side_pairs(lda_precision precision)
{
    float phi1[10], floor_[10];
    for (uint32_t k = 0; k < 10; k++) {
        floor_[k] = 0.05f + 0.02f * (float)(k % 3);
        phi1[k] = floor_[k] + (k == 6 ? 0.4f : k == 2 ? 0.7f : 0.0f);
    }
    const uint64_t offset[3] = {0, 0, 2};
    const uint32_t topics[] = {2, 6}, len[2] = {LDA_SPARSE_WORD_UNLISTED, 2};
    const float excess[] = {lda_sparse_add_float(phi1[2], -floor_[2]), lda_sparse_add_float(phi1[6], -floor_[6])};
    const lda_sparse_word_side ws = {offset, topics, len, excess, floor_, 4};
    chi2_of_sparse_pairs_of(precision, phi1, &ws, 9);
}

Test(sampler_sparse, word_side_chi_squared_of_pairs_float) { chi2_of_word_side_pairs(LDA_PRECISION_FLOAT); }
Test(sampler_sparse, word_side_chi_squared_of_pairs_double) { chi2_of_word_side_pairs(LDA_PRECISION_DOUBLE); }

/* The rule that sends a token to the word side: its word listed, its list at most quarters / 4
 * times the document's, quarters 0 never. */
Test(sampler_sparse, word_side_applies_where_the_words_list_is_short)
{
    cr_assert(lda_sparse_word_side_applies(2, 4, 2));
    cr_assert(lda_sparse_word_side_applies(2, 1, 8));
    cr_assert(!lda_sparse_word_side_applies(3, 1, 8));
    cr_assert(lda_sparse_word_side_applies(16, 8, 8));
    cr_assert(!lda_sparse_word_side_applies(17, 8, 8));
    cr_assert(!lda_sparse_word_side_applies(1, 0, 8));
    cr_assert(!lda_sparse_word_side_applies(LDA_SPARSE_WORD_UNLISTED, 4, UINT32_MAX));
    cr_assert(lda_sparse_word_side_applies(0, 4, 0));
    cr_assert(!lda_sparse_word_side_applies(UINT32_MAX - 1, UINT32_MAX, 1)); /* no overflow of the products */
    cr_assert(lda_sparse_word_side_applies(UINT32_MAX - 1, 4, UINT32_MAX));
}
