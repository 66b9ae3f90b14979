/* test_shards.c — a run split over shards (--gpus N; backend/shards.h, backend_sharded.c,
 * allreduce.h), proven on the CPU: the plan is balanced and covers every warp once, a shard's
 * layout is its warps of the whole, cut documents split between shards are joined exactly, the
 * all-reduce is the exact sum, and training on 1, 2 or 3 shards gives the same bytes for every
 * model (in process and through the real binary), resumed with another shard count too. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/allreduce.h"
#include "backend/backend.h"
#include "backend/device_bytes.h"
#include "backend/layout.h"
#include "backend/shards.h"
#include "core/rng.h"
#include "helpers.h"
#include "train/run_memory.h"

/* Planted documents of 3 to max_len tokens, cut into pieces of piece_length. */
static lda_layout *cut_layout(size_t num_docs, uint32_t max_len, uint32_t piece_length, corpus **out)
{
    corpus *c = test_planted_corpus(6, 20, num_docs, 3, max_len, 17, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(L, "%s", err.msg);
    if (out)
        *out = c;
    else
        corpus_free(c);
    return L;
}

/* `long_docs` documents of long_len tokens and short_docs of short_len (random words of V = 100),
 * cut into pieces of piece_length (0: none): the long ones fill few warps with many tokens, the
 * short many warps with few. */
static lda_layout *mixed_layout(size_t long_docs, uint32_t long_len, size_t short_docs, uint32_t short_len,
                                uint32_t piece_length, corpus **out)
{
    const size_t n = long_docs + short_docs;
    uint32_t **docs = calloc(n, sizeof *docs), *lengths = calloc(n, sizeof *lengths);
    for (size_t d = 0; d < n; d++) {
        lengths[d] = d % 8 == 0 && d / 8 < long_docs ? long_len : short_len; /* the long ones spread through */
        docs[d] = malloc(lengths[d] * sizeof **docs);
        for (uint32_t i = 0; i < lengths[d]; i++)
            docs[d][i] = lda_rng_once(5, LDA_RNG_TEST, d, i) % 100;
    }
    corpus *c = test_corpus_from_docs(n, (const uint32_t *const *)docs, lengths, 100);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, piece_length, &err);
    cr_assert(L, "%s", err.msg);
    for (size_t d = 0; d < n; d++)
        free(docs[d]);
    free(docs);
    free(lengths);
    if (out)
        *out = c;
    else
        corpus_free(c);
    return L;
}

static uint64_t warp_tokens(const lda_layout *L, size_t q)
{
    uint64_t t = 0;
    for (uint32_t r = 0; r < LDA_WARP; r++)
        t += L->slot_len[q * LDA_WARP + r];
    return t;
}

/* Contiguous, in order, covering every warp once; tokens as counted; each within ± (largest
 * warp + 1) of T/N (shards.h); one shard is the whole layout. */
Test(shards, plan_covers_every_warp_once_balanced_by_tokens)
{
    static const uint32_t max_lens[] = {40, 400, 3000}, piece_lengths[] = {16, 64, 200};
    for (size_t m = 0; m < 3; m++) {
        lda_layout *L = cut_layout(700, max_lens[m], piece_lengths[m], NULL);
        cr_assert(L->num_cut_docs > 0);
        uint64_t largest = 0;
        for (size_t q = 0; q < L->num_warps; q++)
            largest = warp_tokens(L, q) > largest ? warp_tokens(L, q) : largest;
        for (uint32_t n = 1; n <= 7; n++) {
            lda_shard s[7];
            lda_error err = {0};
            cr_assert_eq(lda_shard_plan(L, n, s, &err), 0, "%s", err.msg);
            cr_assert_eq(s[0].first_warp, 0);
            cr_assert_eq(s[n - 1].end_warp, L->num_warps);
            uint64_t sum = 0;
            for (uint32_t g = 0; g < n; g++) {
                if (g)
                    cr_assert_eq(s[g].first_warp, s[g - 1].end_warp, "shard %u does not follow %u", g, g - 1);
                cr_assert_leq(s[g].first_warp, s[g].end_warp);
                uint64_t t = 0;
                for (size_t q = s[g].first_warp; q < s[g].end_warp; q++)
                    t += warp_tokens(L, q);
                cr_assert_eq(t, s[g].tokens);
                sum += t;
                const double ideal = (double)L->num_tokens / n, off = (double)t - ideal;
                cr_assert_leq(off < 0 ? -off : off, (double)largest + 1,
                              "max length %u, %u shards: shard %u holds %llu tokens, ideal %.1f, largest warp %llu",
                              max_lens[m], n, g, (unsigned long long)t, ideal, (unsigned long long)largest);
            }
            cr_assert_eq(sum, L->num_tokens);
        }
        lda_layout_free(L);
    }
}

/* A shard's layout is its warps of the whole: the same slots, words, lengths, token bases; its
 * --refresh parts are the whole layout's; every cut document is whole in one shard or shared
 * by every shard holding one of its pieces, with all its pieces listed once. */
Test(shards, shard_layouts_are_their_warps_of_the_whole)
{
    lda_layout *L = cut_layout(500, 400, 50, NULL);
    const uint32_t n = 3, R = 4;
    lda_shard s[3];
    lda_error err = {0};
    cr_assert_eq(lda_shard_plan(L, n, s, &err), 0, "%s", err.msg);
    size_t *seen = calloc(L->num_slots, sizeof *seen), docs = 0, tokens = 0, shared_any = 0;
    for (uint32_t g = 0; g < n; g++) {
        lda_layout *S = lda_layout_warps(L, s[g].first_warp, s[g].end_warp, &err);
        cr_assert(S, "%s", err.msg);
        const size_t s0 = s[g].first_warp * LDA_WARP;
        cr_assert_eq(S->first_warp, s[g].first_warp);
        cr_assert_eq(S->num_tokens, s[g].tokens);
        docs += S->num_docs;
        tokens += S->num_tokens;
        for (size_t t = 0; t < S->num_slots; t++) {
            cr_assert_eq(S->slot_doc[t], L->slot_doc[s0 + t]);
            cr_assert_eq(S->slot_len[t], L->slot_len[s0 + t]);
            cr_assert_eq(S->slot_token_base[t], L->slot_token_base[s0 + t]);
            cr_assert_eq(S->slot_piece[t], L->slot_piece[s0 + t]);
            for (uint32_t i = 0; i < S->warp_len[t / LDA_WARP]; i++)
                cr_assert_eq(S->words[lda_layout_pos(S, t, i)], L->words[lda_layout_pos(L, s0 + t, i)]);
        }
        for (uint32_t part = 0; part < R; part++) /* local part c' holds exactly the global part's warps */
            for (size_t q = 0; q < S->num_warps; q++)
                cr_assert_eq(q % R == lda_layout_local_part(S, part, R), (S->first_warp + q) % R == part);
        for (size_t c = 0; c < S->num_cut_docs; c++)
            for (size_t i = S->cut_offsets[c]; i < S->cut_offsets[c + 1]; i++) {
                cr_assert_eq(S->slot_doc[S->cut_slots[i]], S->slot_doc[S->cut_slots[S->cut_offsets[c]]]);
                seen[s0 + S->cut_slots[i]]++;
            }
        for (size_t j = 0; j < S->num_shared_docs; j++) {
            shared_any++;
            const size_t c = S->shared_row[j]; /* the whole layout's cut document */
            for (size_t i = S->shared_offsets[j]; i < S->shared_offsets[j + 1]; i++) {
                cr_assert_eq(S->slot_doc[S->shared_slots[i]], L->slot_doc[L->cut_slots[L->cut_offsets[c]]]);
                seen[s0 + S->shared_slots[i]]++;
            }
        }
        lda_layout_free(S);
    }
    cr_assert_eq(docs, L->num_docs);
    cr_assert_eq(tokens, L->num_tokens);
    cr_assert(shared_any > 0, "the test corpus must have documents split between shards");
    for (size_t c = 0; c < L->num_cut_docs; c++)
        for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++)
            cr_assert_eq(seen[L->cut_slots[i]], 1, "piece slot %u listed %zu times", L->cut_slots[i],
                         seen[L->cut_slots[i]]);
    free(seen);
    lda_layout_free(L);
}

/* The rows of every cut document, joined per shard and through the all-reduce (rows of shared
 * documents summed, mod 2^32), equal the one-layout join, for random counts near 2^32. */
Test(shards, split_documents_join_like_the_whole_layout)
{
    lda_layout *L = cut_layout(400, 300, 30, NULL);
    const uint32_t K = 5, n = 3;
    uint32_t *whole = malloc(L->num_slots * K * 4), *split = malloc(L->num_slots * K * 4);
    for (size_t i = 0; i < L->num_slots * K; i++)
        whole[i] = split[i] = lda_rng_once(9, LDA_RNG_TEST, 0, i) | (i % 3 == 0 ? 0xfff00000u : 0);
    lda_layout_join_cut_counts(L, K, whole, NULL);
    lda_shard s[3];
    lda_layout *S[3];
    lda_error err = {0};
    cr_assert_eq(lda_shard_plan(L, n, s, &err), 0, "%s", err.msg);
    const size_t rows = L->num_cut_docs; /* rows numbered by the whole layout's cut documents */
    uint32_t *sums[3], *totals[3];
    for (uint32_t g = 0; g < n; g++) {
        cr_assert((S[g] = lda_layout_warps(L, s[g].first_warp, s[g].end_warp, &err)), "%s", err.msg);
        uint32_t *rows_g = split + s[g].first_warp * LDA_WARP * K;
        lda_layout_join_cut_counts(S[g], K, rows_g, NULL);
        sums[g] = malloc(rows * K * 4 + 4);
        totals[g] = malloc(rows * K * 4 + 4);
        lda_shard_doc_sums(S[g], K, rows_g, rows, sums[g]);
    }
    lda_allreduce *ar = lda_allreduce_host_create(n, 0, &err);
    cr_assert(ar, "%s", err.msg);
    cr_assert_eq(ar->sum_u32(ar, sums, totals, rows * K, &err), 0);
    for (uint32_t g = 0; g < n; g++) {
        lda_shard_doc_spread(S[g], K, split + s[g].first_warp * LDA_WARP * K, totals[g]);
        lda_layout_free(S[g]);
        free(sums[g]);
        free(totals[g]);
    }
    cr_assert_eq(memcmp(whole, split, L->num_slots * K * 4), 0);
    lda_allreduce_destroy(ar);
    free(whole);
    free(split);
    lda_layout_free(L);
}

Test(allreduce, one_rank_is_the_identity_several_the_exact_sum)
{
    enum { N = 1000, RANKS = 4 };
    lda_error err = {0};
    uint32_t *send[RANKS], *recv[RANKS], expect[N];
    for (uint32_t ranks = 1; ranks <= RANKS; ranks++) {
        lda_allreduce *ar = lda_allreduce_host_create(ranks, 0, &err);
        cr_assert(ar, "%s", err.msg);
        for (int in_place = 0; in_place < 2; in_place++) {
            memset(expect, 0, sizeof expect);
            for (uint32_t g = 0; g < ranks; g++) {
                send[g] = malloc(N * 4);
                recv[g] = in_place ? send[g] : malloc(N * 4);
                for (size_t i = 0; i < N; i++) { /* large values: the sum wraps, as the counts' joins do */
                    send[g][i] = lda_rng_once(3, LDA_RNG_TEST, g, i) >> (i % 2 ? 0 : 20);
                    expect[i] += send[g][i];
                }
            }
            uint32_t first[N];
            memcpy(first, send[0], sizeof first);
            cr_assert_eq(ar->sum_u32(ar, send, recv, N, &err), 0, "%s", err.msg);
            for (uint32_t g = 0; g < ranks; g++) {
                cr_assert_eq(memcmp(recv[g], expect, sizeof expect), 0, "%u ranks, rank %u, in place %d", ranks,
                             g, in_place);
                if (ranks == 1)
                    cr_assert_eq(memcmp(recv[g], first, sizeof first), 0);
                if (!in_place)
                    free(recv[g]);
                free(send[g]);
            }
        }
        lda_allreduce_destroy(ar);
    }
    cr_assert_null(lda_allreduce_host_create(0, 0, &err));
}

/* ---- the sharded backend against one backend, in process ---- */

typedef struct {
    float *theta, *phi, *rows;
    uint32_t *z, *n_mk, *n_wk, *n_k;
    double alpha_sum, beta;
    int learned;
    lda_eval eval;
    double score;
} snapshot;

enum { ROWS_FIRST = 37, ROWS_COUNT = 150, TOPICS = 7 };

/* The split a backend of L on p.shards CPU shards makes by memory (shards.h): its line, which must
 * differ from the token split's for the test to mean anything. */
static void memory_split_line(const lda_layout *L, const lda_params *p, char *line, size_t size)
{
    lda_shard by_tokens[3], by_memory[3];
    lda_shard_choice choice;
    lda_error err = {0};
    const lda_shard_memory m = {lda_shard_device_bytes, lda_shard_warp_bytes, p, 0};
    cr_assert_eq(lda_shard_plan(L, p->shards, by_tokens, &err), 0, "%s", err.msg);
    cr_assert_eq(lda_shard_choose(L, p->shards, &m, by_memory, &choice, &err), 0, "%s", err.msg);
    cr_assert_eq(choice.balance, LDA_SHARDS_BY_MEMORY);
    int differ = 0;
    for (uint32_t g = 0; g < p->shards; g++)
        differ |= by_tokens[g].end_warp != by_memory[g].end_warp;
    cr_assert(differ, "the split by memory is the token split: the test proves nothing");
    int spans = 0; /* a cut document with pieces in two shards: their counts joined through the sum */
    for (size_t c = 0; c < L->num_cut_docs; c++)
        for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++)
            for (uint32_t g = 0; g < p->shards; g++) {
                const size_t q0 = L->cut_slots[L->cut_offsets[c]] / LDA_WARP, q = L->cut_slots[i] / LDA_WARP;
                spans |= (q0 < by_memory[g].end_warp) != (q < by_memory[g].end_warp);
            }
    cr_assert(spans, "no cut document has pieces in two shards");
    lda_shard_describe(by_memory, p->shards, &choice, 0, line, size);
}

/* Three iterations (priors learned in each with learn) on `shards` shards (split by memory with
 * by_memory), and everything a backend hands out. */
static snapshot run_backend(const lda_layout *L, const lda_layout *scored, lda_model_kind model, uint32_t shards,
                            uint32_t refresh, int learn, int by_memory)
{
    const size_t K = TOPICS;
    lda_params p;
    lda_params_default(&p);
    p.num_topics = TOPICS;
    p.device = LDA_DEVICE_CPU;
    p.threads = 2;
    p.refresh = refresh;
    p.piece_length = L->piece_length;
    p.shards = shards;
    p.optimize_interval = learn ? 1 : 0;
    p.optimize_mode = LDA_OPTIMIZE_EVERY; /* learned at every iteration: the shards' histograms each time */
    p.optimize_burn_in = 0;
    p.shards_by_memory = by_memory;
    lda_params_set_model(&p, model);
    lda_error err = {0};
    lda_backend *b = lda_backend_create(L, &p, &err);
    cr_assert(b, "%s", err.msg);
    if (by_memory && shards > 1) { /* the backend split as lda_shard_choose splits by memory */
        char expect[1024], line[1024];
        lda_params shard = p; /* the CPU's shards sized as the sharded backend sizes them */
        shard.device = LDA_DEVICE_CPU;
        memory_split_line(L, &shard, expect, sizeof expect);
        cr_assert_str_eq(lda_backend_describe_shards(b, line, sizeof line), expect);
    }
    cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
    for (uint32_t it = 1; it <= 3; it++)
        cr_assert_eq(b->ops->iterate(b, it, NULL, &err), 0, "%s", err.msg);
    snapshot s = {malloc(L->num_slots * K * 4), malloc(L->vocab_size * K * 4), malloc(ROWS_COUNT * K * 4),
                  malloc(L->num_positions * 4), malloc(L->num_slots * K * 4), malloc(L->vocab_size * K * 4),
                  malloc(K * 4), 0, 0, 0, {0, 0}, 0};
    cr_assert_eq(b->ops->fetch(b, s.theta, s.phi, s.z, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->fetch_counts(b, s.n_mk, s.n_wk, s.n_k, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->fetch_theta_rows(b, ROWS_FIRST, ROWS_COUNT, s.rows, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->evaluate(b, &s.eval, &err), 0, "%s", err.msg);
    cr_assert_eq(b->ops->score(b, scored, &s.score, &err), 0, "%s", err.msg);
    s.alpha_sum = b->priors.alpha_sum;
    s.beta = b->priors.beta;
    s.learned = b->priors.learned;
    lda_backend_destroy(b);
    return s;
}

static void snapshot_free(snapshot *s)
{
    free(s->theta);
    free(s->phi);
    free(s->rows);
    free(s->z);
    free(s->n_mk);
    free(s->n_wk);
    free(s->n_k);
}

static void shards_equal_one_backend_split(lda_model_kind model, uint32_t refresh, int learn, int by_memory)
{
    corpus *c;
    /* by memory: long documents cut into pieces of 40 and many of 2 tokens, whose slots weigh more
       than their tokens, so that the split moves */
    lda_layout *L = by_memory ? mixed_layout(40, 270, 600, 2, 40, &c) : cut_layout(300, 300, 40, &c);
    lda_error err = {0};
    lda_layout *scored = lda_layout_build_like(c, L, &err);
    cr_assert(scored, "%s", err.msg);
    const size_t K = TOPICS;
    snapshot one = run_backend(L, scored, model, 1, refresh, learn, 0);
    for (uint32_t n = 2; n <= 3; n++) {
        snapshot s = run_backend(L, scored, model, n, refresh, learn, by_memory);
        cr_assert_eq(memcmp(one.z, s.z, L->num_positions * 4), 0, "z differs on %u shards", n);
        cr_assert_eq(memcmp(one.theta, s.theta, L->num_slots * K * 4), 0, "θ differs on %u shards", n);
        cr_assert_eq(memcmp(one.phi, s.phi, L->vocab_size * K * 4), 0, "φ differs on %u shards", n);
        cr_assert_eq(memcmp(one.rows, s.rows, ROWS_COUNT * K * 4), 0, "θ rows differ on %u shards", n);
        cr_assert_eq(memcmp(one.n_mk, s.n_mk, L->num_slots * K * 4), 0, "n[m,k] differs on %u shards", n);
        cr_assert_eq(memcmp(one.n_wk, s.n_wk, L->vocab_size * K * 4), 0, "n[w,k] differs on %u shards", n);
        cr_assert_eq(memcmp(one.n_k, s.n_k, K * 4), 0, "n[k] differs on %u shards", n);
        cr_assert(one.eval.loglik_pred == s.eval.loglik_pred && one.eval.loglik_joint == s.eval.loglik_joint,
                  "%u shards: log-likelihoods %.17g %.17g, one backend %.17g %.17g", n, s.eval.loglik_pred,
                  s.eval.loglik_joint, one.eval.loglik_pred, one.eval.loglik_joint);
        cr_assert(one.score == s.score, "%u shards: score %.17g, one backend %.17g", n, s.score, one.score);
        cr_assert(one.alpha_sum == s.alpha_sum && one.beta == s.beta, "%u shards: priors differ", n);
        snapshot_free(&s);
    }
    cr_assert_eq(one.learned, learn, "the priors were learned when asked");
    snapshot_free(&one);
    lda_layout_free(scored);
    lda_layout_free(L);
    corpus_free(c);
}

static void shards_equal_one_backend(lda_model_kind model, uint32_t refresh, int learn)
{
    shards_equal_one_backend_split(model, refresh, learn, 0);
}

Test(shards, backend_equals_one_backend_uncollapsed) { shards_equal_one_backend(LDA_MODEL_UNCOLLAPSED, 2, 1); }
Test(shards, backend_equals_one_backend_mean_for_mode) { shards_equal_one_backend(LDA_MODEL_MEAN_FOR_MODE, 2, 1); }
Test(shards, backend_equals_one_backend_theta_collapsed)
{
    shards_equal_one_backend(LDA_MODEL_THETA_COLLAPSED, 2, 1);
}
Test(shards, backend_equals_one_backend_collapsed) { shards_equal_one_backend(LDA_MODEL_COLLAPSED, 3, 1); }
Test(shards, backend_equals_one_backend_phi_mean) { shards_equal_one_backend(LDA_MODEL_PHI_MEAN, 2, 1); }
Test(shards, backend_equals_one_backend_without_refresh) { shards_equal_one_backend(LDA_MODEL_THETA_COLLAPSED, 1, 0); }
/* Split by memory (the sizing of the dense draw's rows on the CPU: shards.h), not by tokens: the
 * same model, byte for byte. */
Test(shards, backend_split_by_memory_equals_one_backend_uncollapsed)
{
    shards_equal_one_backend_split(LDA_MODEL_UNCOLLAPSED, 2, 1, 1);
}
Test(shards, backend_split_by_memory_equals_one_backend_collapsed)
{
    shards_equal_one_backend_split(LDA_MODEL_COLLAPSED, 3, 1, 1);
}

/* ---- the real binary: LDAGPU_SHARDS, the test switch ---- */

static char *corpus_path(void)
{
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/data/wiki2k.txt.gz", test_root()) > 0);
    return p;
}

/* ldagpu ARGS on `shards` shards; a split run says so, and `says` where given. */
static void train_on_saying(uint32_t shards, const char *args, const char *says)
{
    char n[16], *out = NULL;
    snprintf(n, sizeof n, "%u", shards);
    cr_assert_eq(setenv("LDAGPU_SHARDS", n, 1), 0);
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "LDAGPU_SHARDS=%u ldagpu %s: exit %d: %s", shards, args, rc, out);
    if (shards > 1)
        cr_assert(strstr(out, " shards (") && (!says || strstr(out, says)), "the run did not say it was split%s%s: %s",
                  says ? " " : "", says ? says : "", out);
    free(out);
    unsetenv("LDAGPU_SHARDS");
}

static void train_on(uint32_t shards, const char *args)
{
    train_on_saying(shards, args, NULL);
}

/* 1, 2 and 3 shards train the same model files; a split run's log says `says` where given. */
static void cli_shards_equal_one_saying(const char *model, const char *says)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[8192];
    for (uint32_t n = 1; n <= 3; n++) {
        snprintf(args, sizeof args,
                 "train '%s' -K 10 -n 3 -e 1 -s 7 %s --piece-length 40 --refresh 2 --optimize-interval 2 --optimize-mode every "
                 "--optimize-burn-in 1 --holdout 0.05 -j 2 --device cpu -o '%s/m%u'",
                 c, model, dir, n);
        train_on_saying(n, args, says);
    }
    test_assert_runs_same_model(dir, "m", 1, 3);
    test_rmdir(dir);
    free(dir);
    free(c);
}

static void cli_shards_equal_one(const char *model)
{
    cli_shards_equal_one_saying(model, NULL);
}

Test(shards_cli, same_model_files_uncollapsed) { cli_shards_equal_one("--model uncollapsed"); }
Test(shards_cli, same_model_files_mean_for_mode) { cli_shards_equal_one("--model mean-for-mode"); }
Test(shards_cli, same_model_files_theta_collapsed) { cli_shards_equal_one("--model theta-collapsed --sampler butterfly"); }
Test(shards_cli, same_model_files_collapsed) { cli_shards_equal_one("--model collapsed --sampler butterfly"); }
Test(shards_cli, same_model_files_phi_mean_double)
{
    cli_shards_equal_one("--model phi-mean --precision double");
}
Test(shards_cli, same_model_files_sparse_sampler) { cli_shards_equal_one("--model theta-collapsed --sampler sparse"); }
/* the collapsed model's sparse draw takes the word side (zplan.h) where a word's list is short
 * beside its document's; a shard sizes its word lists by the whole corpus, so the same tokens
 * take it on any shard count (layout.h, corpus_word_tokens) */
Test(shards_cli, same_model_files_collapsed_sparse_sampler) { cli_shards_equal_one("--model collapsed --sampler sparse"); }

/* LDAGPU_SHARD_SPLIT=memory: 2 and 3 shards split by memory (the log says so, with each shard's
 * tokens and bytes), the same model files as one. */
static void cli_split_by_memory_equals_one(const char *model)
{
    cr_assert_eq(setenv("LDAGPU_SHARD_SPLIT", "memory", 1), 0);
    cli_shards_equal_one_saying(model, "ldagpu: shards split by memory (by tokens the largest shard would need ");
    unsetenv("LDAGPU_SHARD_SPLIT");
}

Test(shards_cli, same_model_files_split_by_memory_uncollapsed) { cli_split_by_memory_equals_one("--model uncollapsed"); }
Test(shards_cli, same_model_files_split_by_memory_collapsed_sparse)
{
    cli_split_by_memory_equals_one("--model collapsed --sampler sparse");
}

/* 6 iterations in one run == 3 iterations split `part_count` ways, resumed for 3 by `resume`
 * (count ways: shards or processes). */
typedef void (*launch_fn)(uint32_t count, const char *args);

static void resumed_equals_whole(const char *common, const char *resume_options, uint32_t part_count,
                                 launch_fn resume, uint32_t resume_count)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[8192], a[4096], b[4096];
    snprintf(args, sizeof args, "train '%s' -n 6 %s -o '%s/full'", c, common, dir);
    train_on(1, args);
    snprintf(args, sizeof args, "train '%s' -n 3 %s -o '%s/part'", c, common, dir);
    train_on(part_count, args);
    snprintf(args, sizeof args, "train --resume '%s/part' -n 3 %s", dir, resume_options);
    resume(resume_count, args);
    snprintf(a, sizeof a, "%s/full", dir);
    snprintf(b, sizeof b, "%s/part", dir);
    test_assert_same_models(a, b);
    test_rmdir(dir);
    free(dir);
    free(c);
}

/* 6 iterations on 1 shard == 3 on 2 shards, resumed for 3 on 3 shards. */
Test(shards_cli, resumed_with_another_shard_count)
{
    resumed_equals_whole("-K 10 -s 3 --model theta-collapsed --piece-length 40 --refresh 2 --optimize-interval 2 --optimize-mode every "
                         "--optimize-burn-in 1 -e 3 -j 2 --device cpu",
                         "-j 2 --device cpu", 2, train_on, 3);
}

Test(shards_cli, gpus_refused_on_the_cpu_and_out_of_range)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[8192];
    snprintf(args, sizeof args, "train '%s' --gpus 2 --device cpu -o '%s/m'", c, dir);
    test_expect_failure(args, 2, "--gpus 2: not with --device cpu");
    snprintf(args, sizeof args, "train '%s' --gpus 0 -o '%s/m'", c, dir);
    test_expect_failure(args, 2, "--gpus");
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) == 0) { /* before the corpus is read */
        snprintf(args, sizeof args, "train '%s' --gpus 2 -o '%s/m'", c, dir);
        char expect[300];
        snprintf(expect, sizeof expect, "ldagpu train: --gpus 2: %s", why);
        test_expect_failure(args, 2, expect);
    }
    cr_assert_eq(setenv("LDAGPU_SHARDS", "many", 1), 0);
    snprintf(args, sizeof args, "train '%s' --device cpu -o '%s/m'", c, dir);
    test_expect_failure(args, 2, "LDAGPU_SHARDS");
    unsetenv("LDAGPU_SHARDS");
    cr_assert_eq(setenv("LDAGPU_SHARD_SPLIT", "bytes", 1), 0);
    test_expect_failure(args, 2, "LDAGPU_SHARD_SPLIT");
    unsetenv("LDAGPU_SHARD_SPLIT");
    test_rmdir(dir);
    free(dir);
    free(c);
}

/* ---- split by memory (shards.h): a shard's device bytes, by the CUDA backend's sizing ---- */

static const lda_gpu_limits h100 = {227 * 1024, 132};

/* A shard's device bytes as the CUDA backend sizes them (device_bytes.c), on an H100's limits. */
static uint64_t h100_bytes(const lda_layout *S, const lda_params *p)
{
    lda_zplan plan;
    lda_error err = {0};
    if (lda_zplan_make(p, S, &h100, &plan, &err))
        return UINT64_MAX;
    lda_device_bytes b;
    lda_device_bytes_plan(S, p, &plan, &b);
    return b.total;
}

static uint64_t h100_warp_bytes(const lda_layout *L, const lda_params *p, uint64_t *per_warp)
{
    lda_zplan plan;
    lda_error err = {0};
    if (lda_zplan_make(p, L, &h100, &plan, &err))
        return UINT64_MAX;
    return lda_device_bytes_warps(L, p, &plan, per_warp);
}

static lda_shard_memory h100_memory(const lda_params *p, uint64_t per_device)
{
    return (lda_shard_memory){h100_bytes, h100_warp_bytes, p, per_device};
}

/* The devices a run needs: the fewest shards whose largest fits; fewer do not; none when not
 * even LDA_MAX_SHARDS fit. */
Test(shards, devices_needed_is_the_fewest_that_fit)
{
    lda_layout *L = cut_layout(2000, 300, 64, NULL);
    lda_params p = test_params(LDA_MODEL_UNCOLLAPSED, LDA_SAMPLER_BUTTERFLY, 4);
    p.shards = 2;
    lda_error err = {0};
    const uint64_t whole = h100_bytes(L, &p);
    uint32_t needed;
    lda_shard_memory m = h100_memory(&p, whole);
    cr_assert_eq(lda_shards_needed(L, 1, &m, &needed, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(needed, 1);
    m.per_device = whole / 3;
    cr_assert_eq(lda_shards_needed(L, 1, &m, &needed, NULL, &err), 0, "%s", err.msg);
    cr_assert_geq(needed, 3, "a third of the bytes (V × K arrays in every shard) needs more than 3: %u", needed);
    cr_assert_lt(needed, LDA_MAX_SHARDS);
    uint32_t again;
    cr_assert_eq(lda_shards_needed(L, needed - 1, &m, &again, NULL, &err), 0);
    cr_assert_eq(again, needed, "%u devices do not fit, %u do", needed - 1, needed);
    m.per_device = 1000;
    cr_assert_eq(lda_shards_needed(L, 1, &m, &needed, NULL, &err), 0);
    cr_assert_eq(needed, 0, "1000 bytes a device: no count of devices holds it");
    lda_layout_free(L);
}

/* Several GPUs take at most 2^32 - 1 tokens (zplan.h, lda_gpu_max_tokens), so the advice of a
 * run of more that does not fit one GPU names no number of GPUs, but that limit. */
Test(shards, the_advice_past_2_to_the_32_tokens_names_no_number_of_gpus)
{
    lda_layout *L = cut_layout(2000, 300, 64, NULL);
    lda_params p = test_params(LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 64);
    p.device = LDA_DEVICE_CUDA;
    const size_t tokens = L->num_tokens;
    L->num_tokens = (size_t)5000000000u; /* the count alone: what the advice weighs against the limit */
    char advice[512];
    lda_gpu_memory_advice(L, &p, 80ull << 30, 2, advice, sizeof advice);
    cr_assert(strstr(advice, "; on several GPUs a run takes at most 4294967295 tokens"), "%s", advice);
    cr_assert(!strstr(advice, "split over") && !strstr(advice, "not even"), "%s", advice);
    L->num_tokens = tokens;
    lda_layout_free(L);
}

/* The log's line: which split, each shard's tokens and, where sized, bytes. */
Test(shards, describe_says_the_split_and_each_shard)
{
    lda_shard s[2] = {{0, 3, 1200, 3ull << 30}, {3, 9, 800, 1536ull << 20}};
    const lda_shard_choice by_memory = {LDA_SHARDS_BY_MEMORY, 5ull << 30}, by_tokens = {LDA_SHARDS_BY_TOKENS, 0};
    char line[256];
    lda_shard_describe(s, 2, &by_memory, 4ull << 30, line, sizeof line);
    cr_assert_str_eq(line, "by memory (by tokens the largest shard would need 5.0 GiB, 4.0 GiB fit a GPU): "
                           "0: 1200 tokens, 3.0 GiB; 1: 800 tokens, 1.5 GiB");
    lda_shard_describe(s, 2, &by_memory, 0, line, sizeof line); /* forced: no device figure */
    cr_assert_str_eq(line, "by memory (by tokens the largest shard would need 5.0 GiB): "
                           "0: 1200 tokens, 3.0 GiB; 1: 800 tokens, 1.5 GiB");
    s[0].bytes = s[1].bytes = 0;
    lda_shard_describe(s, 2, &by_tokens, 0, line, sizeof line);
    cr_assert_str_eq(line, "by tokens: 0: 1200 tokens; 1: 800 tokens");
}

/* The least largest shard any split of warps 0 .. W - 1 into at most n contiguous ranges can
 * have (rest + the range's parts), by dynamic programming over every split. */
static uint64_t least_largest(const uint64_t *per_warp, uint64_t rest, size_t W, uint32_t n)
{
    uint64_t *best = malloc((W + 1) * sizeof *best), *next = malloc((W + 1) * sizeof *next);
    best[0] = rest; /* best[e]: warps 0 .. e - 1 in the shards so far */
    for (size_t e = 1; e <= W; e++)
        best[e] = best[e - 1] + per_warp[e - 1];
    for (uint32_t k = 2; k <= n; k++) {
        for (size_t e = 0; e <= W; e++) {
            next[e] = best[e];
            uint64_t range = rest;
            for (size_t f = e; f > 0; f--) { /* the last shard warps f - 1 .. e - 1 */
                range += per_warp[f - 1];
                const uint64_t worst = best[f - 1] > range ? best[f - 1] : range;
                next[e] = worst < next[e] ? worst : next[e];
            }
        }
        memcpy(best, next, (W + 1) * sizeof *best);
    }
    const uint64_t least = best[W];
    free(best);
    free(next);
    return least;
}

/* The split by bytes: contiguous, in order, every warp once, each shard a warp where there are as
 * many, tokens as counted; and its largest shard the least of any contiguous split (random
 * parts, spread 1 to 1000, and the rest 0 or large). */
Test(shards, plan_by_bytes_has_the_least_largest_shard)
{
    lda_layout *L = cut_layout(400, 300, 40, NULL);
    const size_t W = L->num_warps;
    uint64_t *per_warp = malloc(W * sizeof *per_warp);
    lda_error err = {0};
    for (uint32_t trial = 0; trial < 12; trial++) {
        for (size_t q = 0; q < W; q++)
            per_warp[q] = 1 + lda_rng_once(trial, LDA_RNG_TEST, 1, q) % (trial % 3 == 0 ? 1000 : 10);
        const uint64_t rest = trial % 2 ? 5000 : 0;
        for (uint32_t n = 1; n <= 6; n++) {
            lda_shard s[6];
            cr_assert_eq(lda_shard_plan_bytes(L, per_warp, rest, n, s, &err), 0, "%s", err.msg);
            cr_assert_eq(s[0].first_warp, 0);
            cr_assert_eq(s[n - 1].end_warp, W);
            uint64_t largest = 0, tokens = 0;
            for (uint32_t g = 0; g < n; g++) {
                if (g)
                    cr_assert_eq(s[g].first_warp, s[g - 1].end_warp);
                cr_assert_lt(s[g].first_warp, s[g].end_warp, "trial %u, %u shards: shard %u is empty", trial, n, g);
                uint64_t bytes = rest, t = 0;
                for (size_t q = s[g].first_warp; q < s[g].end_warp; q++) {
                    bytes += per_warp[q];
                    t += warp_tokens(L, q);
                }
                cr_assert_eq(s[g].tokens, t);
                tokens += t;
                largest = bytes > largest ? bytes : largest;
            }
            cr_assert_eq(tokens, L->num_tokens);
            const uint64_t least = least_largest(per_warp, rest, W, n);
            cr_assert_eq(largest, least, "trial %u, %u shards: the largest shard %llu, the least any split has %llu",
                         trial, n, (unsigned long long)largest, (unsigned long long)least);
        }
    }
    lda_shard s[4]; /* more shards than warps: one warp each, then empty ones */
    lda_layout *tiny = cut_layout(64, 10, 0, NULL);
    cr_assert_eq(tiny->num_warps, 2);
    cr_assert_eq(lda_shard_plan_bytes(tiny, per_warp, 0, 4, s, &err), 0, "%s", err.msg);
    cr_assert(s[0].end_warp == 1 && s[1].end_warp == 2 && s[2].first_warp == 2 && s[3].end_warp == 2);
    lda_layout_free(tiny);
    free(per_warp);
    lda_layout_free(L);
}

/* Where memory does not bind (no sizing given, or every shard of the token split fits), the split
 * is the token split, warp for warp, each shard sized where a sizing is given; where it binds, the
 * split by memory is taken only where its largest shard is smaller, so the largest is never more
 * than by tokens, and on documents of mixed lengths with dense θ far less. */
Test(shards, split_by_tokens_unless_memory_binds_and_never_larger)
{
    lda_layout *layouts[] = {cut_layout(700, 400, 64, NULL), cut_layout(500, 3000, 200, NULL),
                             mixed_layout(32, 1000, 3200, 10, 0, NULL), mixed_layout(64, 600, 2000, 3, 128, NULL)};
    static const struct {
        lda_model_kind model;
        lda_sampler sampler;
        uint32_t K;
    } runs[] = {{LDA_MODEL_UNCOLLAPSED, LDA_SAMPLER_BUTTERFLY, 256}, {LDA_MODEL_COLLAPSED, LDA_SAMPLER_SPARSE, 1024}};
    lda_error err = {0};
    for (size_t l = 0; l < 4; l++)
        for (size_t r = 0; r < 2; r++)
            for (uint32_t n = 2; n <= 5; n++) {
                const lda_layout *L = layouts[l];
                lda_params p = test_params(runs[r].model, runs[r].sampler, runs[r].K);
                p.shards = n;
                lda_shard by_tokens[5], s[5];
                lda_shard_choice choice;
                cr_assert_eq(lda_shard_plan(L, n, by_tokens, &err), 0, "%s", err.msg);
                cr_assert_eq(lda_shard_choose(L, n, NULL, s, &choice, &err), 0, "%s", err.msg);
                cr_assert_eq(choice.balance, LDA_SHARDS_BY_TOKENS);
                for (uint32_t g = 0; g < n; g++)
                    cr_assert(s[g].first_warp == by_tokens[g].first_warp && s[g].end_warp == by_tokens[g].end_warp &&
                              s[g].tokens == by_tokens[g].tokens && s[g].bytes == 0);
                lda_shard_memory m = h100_memory(&p, UINT64_MAX - 1);
                cr_assert_eq(lda_shard_choose(L, n, &m, s, &choice, &err), 0, "%s", err.msg);
                cr_assert_eq(choice.balance, LDA_SHARDS_BY_TOKENS);
                uint64_t token_largest = 0;
                for (uint32_t g = 0; g < n; g++) {
                    cr_assert(s[g].first_warp == by_tokens[g].first_warp && s[g].end_warp == by_tokens[g].end_warp);
                    lda_layout *S = lda_layout_warps(L, s[g].first_warp, s[g].end_warp, &err);
                    cr_assert_eq(s[g].bytes, h100_bytes(S, &p));
                    token_largest = s[g].bytes > token_largest ? s[g].bytes : token_largest;
                    lda_layout_free(S);
                }
                cr_assert_eq(choice.token_largest, token_largest);
                m.per_device = 0; /* memory binds */
                cr_assert_eq(lda_shard_choose(L, n, &m, s, &choice, &err), 0, "%s", err.msg);
                uint64_t largest = 0;
                for (uint32_t g = 0; g < n; g++)
                    largest = s[g].bytes > largest ? s[g].bytes : largest;
                cr_assert_leq(largest, token_largest);
                cr_assert_eq(choice.balance == LDA_SHARDS_BY_MEMORY, largest < token_largest);
                if (l == 2 && r == 0)
                    cr_assert_lt(largest, token_largest / 10 * 7, "%u shards: by memory %llu, by tokens %llu", n,
                                 (unsigned long long)largest, (unsigned long long)token_largest);
            }
    for (size_t l = 0; l < 4; l++)
        lda_layout_free(layouts[l]);
}

/* θ dense at K = 256: a short document's slot holds 2 KiB of θ and n[m,k], a long one's tokens
 * 12 bytes each. Half the tokens in 32 long documents, half in 3200 short ones: by tokens two
 * shards are the long warp and the 100 short ones, so the second holds nearly all the bytes. With
 * a device of 60% of that shard, two GPUs hold the run split by memory, and the plan says 2. */
Test(shards, devices_needed_by_memory_within_one)
{
    lda_layout *L = mixed_layout(32, 1000, 3200, 10, 0, NULL);
    lda_params p = test_params(LDA_MODEL_UNCOLLAPSED, LDA_SAMPLER_BUTTERFLY, 256);
    p.shards = 2;
    lda_shard s[2];
    lda_error err = {0};
    cr_assert_eq(lda_shard_plan(L, 2, s, &err), 0, "%s", err.msg);
    uint64_t by_tokens = 0;
    for (int g = 0; g < 2; g++) {
        lda_layout *S = lda_layout_warps(L, s[g].first_warp, s[g].end_warp, &err);
        cr_assert(S, "%s", err.msg);
        by_tokens = h100_bytes(S, &p) > by_tokens ? h100_bytes(S, &p) : by_tokens;
        lda_layout_free(S);
    }
    const uint64_t per_device = by_tokens / 10 * 6;
    uint32_t needed = 0;
    uint64_t largest = 0;
    const lda_shard_memory m = h100_memory(&p, per_device);
    cr_assert_eq(lda_shards_needed(L, 1, &m, &needed, &largest, &err), 0, "%s", err.msg);
    cr_assert_eq(needed, 2, "%u GPUs of %llu bytes named; split by memory 2 hold it", needed,
                 (unsigned long long)per_device);
    cr_assert_leq(largest, per_device);
    /* and the split a run of 2 makes holds it: every shard within the device, by the sizing */
    lda_shard_choice choice;
    cr_assert_eq(lda_shard_choose(L, 2, &m, s, &choice, &err), 0, "%s", err.msg);
    cr_assert_eq(choice.balance, LDA_SHARDS_BY_MEMORY);
    cr_assert_eq(choice.token_largest, by_tokens);
    for (int g = 0; g < 2; g++) {
        lda_layout *S = lda_layout_warps(L, s[g].first_warp, s[g].end_warp, &err);
        cr_assert_eq(s[g].bytes, h100_bytes(S, &p));
        cr_assert_leq(s[g].bytes, per_device, "shard %d: %llu bytes", g, (unsigned long long)s[g].bytes);
        lda_layout_free(S);
    }
    lda_layout_free(L);
}

/* ---- under mpirun: one process a shard (util/ranks.h; backend_sharded.c over ranks) ---- */

static void mpirun_ldagpu(uint32_t processes, const char *args)
{
    char *out = test_mpirun_ldagpu(processes, args);
    if (strstr(args, " -q") == NULL)
        cr_assert(strstr(out, " MPI processes ("), "the run did not say it was split over processes: %s", out);
    free(out);
}

/* 2 and 3 processes train the model one process trains: model files and log figures, learned
 * priors and held-out figures included; and a run resumed under mpirun goes on with the same bytes. */
static void processes_equal_one(const char *model)
{
    char *dir = test_tmpdir(), *c = corpus_path(), args[8192];
    const char *common = "-K 10 -n 3 -e 1 -s 7 --piece-length 40 --refresh 2 --optimize-interval 2 --optimize-mode every "
                         "--optimize-burn-in 1 --holdout 0.05 -j 1 --device cpu";
    snprintf(args, sizeof args, "train '%s' %s %s -q -o '%s/m1'", c, common, model, dir);
    train_on(1, args);
    for (uint32_t n = 2; n <= 3; n++) {
        snprintf(args, sizeof args, "train '%s' %s %s -o '%s/m%u'", c, common, model, dir, n);
        mpirun_ldagpu(n, args);
    }
    test_assert_runs_same_model(dir, "m", 1, 3);
    test_rmdir(dir);
    free(dir);
    free(c);
}

Test(mpi, processes_equal_one_uncollapsed, .timeout = 120) { processes_equal_one("--model uncollapsed"); }
Test(mpi, processes_equal_one_collapsed_sparse, .timeout = 120)
{
    processes_equal_one("--model collapsed --sampler sparse");
}

Test(mpi, resumed_under_mpirun, .timeout = 120)
{
    resumed_equals_whole("-K 10 -s 3 --model theta-collapsed --piece-length 40 -e 3 -j 1 --device cpu -q",
                         "-j 1 --device cpu", 1, mpirun_ldagpu, 2);
}

/* Under mpirun only train runs, and --gpus is refused: a line from a process (each writes one, but
 * the first to abort may take the others down before theirs is out: MPI_Abort), and a failure. */
Test(mpi, only_train_and_no_gpus_option)
{
    int status = 0;
    free(test_shell("command -v mpirun >/dev/null", &status));
    if (status != 0)
        cr_skip_test("no mpirun here");
    char *dir = test_tmpdir(), *c = corpus_path(), cmd[16384];
    snprintf(cmd, sizeof cmd,
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 '%s' train '%s' "
             "--gpus 2 -o '%s/m' 2>&1",
             getenv("LDAGPU_BIN"), c, dir);
    char *out = test_shell(cmd, &status);
    if (strstr(out, "built without MPI")) {
        free(out);
        cr_skip_test("this ldagpu was built without MPI");
    }
    cr_assert_neq(status, 0, "%s", out);
    cr_assert(strstr(out, " of 2): under mpirun each process trains one shard on a GPU of its own: leave out --gpus"),
              "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
    free(c);
}
