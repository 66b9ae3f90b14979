/* backend_sharded.c — one backend over several: the documents split by whole warps of the one
 * layout (shards.h), each shard a backend of params.device of its own (a GPU each, with --gpus),
 * the word-topic counts summed over the shards after every z pass (allreduce.h).
 *
 * Why the model is byte for byte the one-device model: every random number is keyed on
 * (seed, purpose, iteration, index), the index being a token's corpus-order position, a
 * document's id or a (word, topic) pair, all of which a shard's slots keep; each --refresh
 * part is the same set of warps; a shard's z pass reads θ, φ and its documents' counts exactly
 * as the one device does, and leaves its own tokens' word counts, whose sum (integers: exact)
 * is the one device's count; φ is then drawn on every shard from the same totals and keys, so
 * every shard holds the same φ; θ is per document. The priors are learned from the merged
 * histograms (optimize_priors.h: the same as the whole layout's), and the log-likelihoods are
 * the one device's terms added in the whole layout's order (eval_cpu.h). So the shards only
 * change where the work is done, never what is computed, and the shard count is not a recorded
 * setting: a run resumed with another count goes on with the same bytes.
 *
 * Where the shards run. In one process (--gpus N, or the test switch LDAGPU_SHARDS) this backend
 * drives them all, one after the other; on GPUs their steps only queue work, so the devices work
 * side by side, and it waits for them where a phase ends (finish). Under mpirun (params.over_ranks)
 * shard g is process g's, on its own GPU: every process makes the same layout and this backend,
 * and drives its own shard; rank 0 runs the training, and each of its operations is first
 * announced to the other ranks (a command broadcast through MPI), which follow it in
 * lda_backend_follow: the same step on their shard, the same all-reduce (NCCL across the
 * processes), and their parts of what rank 0 fetches sent to it. Operations that every rank
 * calls itself (the priors, as the backend is made) take the same broadcast as a check. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/allreduce.h"
#include "backend/backend.h"
#include "backend/eval_cpu.h"
#include "backend/shards.h"
#include "backend/sharded_internal.h"
#include "core/phi_chunks.h"
#include "util/ranks.h"

static sharded *state(lda_backend *b)
{
    return b->impl;
}

/* ---- the commands rank 0 announces (over ranks) ---- */

enum { CMD_SET_Z = 1, CMD_DRAW, CMD_UPDATE, CMD_EVAL, CMD_FETCH, CMD_THETA_ROWS, CMD_COUNTS, CMD_SET_PHI, CMD_PRIORS,
       CMD_HISTOGRAMS, CMD_END };

typedef struct {
    uint32_t op, iteration, part, flags;
    uint64_t first, count;
} command;

/* Rank 0 tells the other ranks what comes; a rank that calls an operation itself (not in
 * lda_backend_follow) receives it and checks it is the same. One process: nothing. */
static int announce(const sharded *sh, command c, lda_error *err)
{
    if (!sh->over_ranks)
        return 0;
    command got = c;
    if (lda_ranks_bcast(&got, sizeof got, err))
        return -1;
    if (got.op != c.op) {
        lda_error_fail(err, "internal error: rank %d expected step %u, rank 0 announced %u", lda_ranks_rank(), c.op,
                       got.op);
        return -1;
    }
    return 0;
}

/* Shard g's part of an array whose rows of `row_bytes` follow the whole layout (θ, n[m,k]: its
 * slots; z: its positions): on rank 0, received from its rank into `whole` at the shard's place. */
static size_t shard_first_slot(const sharded *sh, uint32_t g)
{
    return sh->shards[g].first_warp * LDA_WARP;
}

/* ---- the steps ---- */

/* One array of this process's shards' counts (by its offset in lda_shard_counts) summed into
 * another's, over every shard. */
static int sum_one(sharded *sh, size_t own, size_t total, size_t count, lda_error *err)
{
    uint32_t n = 0;
    for (uint32_t g = sh->lo; g < sh->hi; g++, n++) {
        sh->own[n] = *(uint32_t **)((char *)&sh->counts[g] + own);
        sh->total[n] = *(uint32_t **)((char *)&sh->counts[g] + total);
    }
    return count ? sh->sum->sum_u32(sh->sum, sh->own, sh->total, count, err) : 0;
}

/* Every shard's queued work done (backend.h: finish). */
static int finish_all(sharded *sh, lda_error *err)
{
    for (uint32_t g = sh->lo; g < sh->hi; g++)
        if (sh->parts[g]->ops->finish && sh->parts[g]->ops->finish(sh->parts[g], err))
            return -1;
    return 0;
}

/* The totals of the word-topic, topic and shared documents' counts, on every shard; then every
 * shard done with its pass. */
static int sum_counts(lda_backend *b, lda_error *err)
{
    sharded *sh = state(b);
    const size_t K = b->params.num_topics;
    if (sum_one(sh, offsetof(lda_shard_counts, own_wk), offsetof(lda_shard_counts, total_wk),
                (size_t)b->layout->vocab_size * K, err) ||
        sum_one(sh, offsetof(lda_shard_counts, own_k), offsetof(lda_shard_counts, total_k), K, err) ||
        sum_one(sh, offsetof(lda_shard_counts, own_docs), offsetof(lda_shard_counts, total_docs), sh->doc_rows * K,
                err))
        return -1;
    for (uint32_t g = sh->lo; g < sh->hi; g++)
        if (sh->parts[g]->ops->counts_summed(sh->parts[g], err))
            return -1;
    return finish_all(sh, err);
}

/* z at every shard (given 0: drawn at random); over ranks, rank 0 hands each rank its positions
 * (a following rank passes z NULL). */
static int do_set_z(lda_backend *b, const uint32_t *z, int given, lda_error *err)
{
    sharded *sh = state(b);
    const size_t *at = b->layout->warp_offset;
    uint32_t *mine = NULL;
    if (sh->over_ranks && given && lda_ranks_rank() == 0) {
        for (uint32_t g = 1; g < sh->count; g++)
            if (lda_ranks_send((int)g, z + at[sh->shards[g].first_warp],
                               (at[sh->shards[g].end_warp] - at[sh->shards[g].first_warp]) * sizeof *z, err))
                return -1;
    } else if (sh->over_ranks && given) { /* a following rank: its positions from rank 0 */
        const lda_shard *s = &sh->shards[sh->lo];
        const size_t n = at[s->end_warp] - at[s->first_warp];
        if (!(mine = lda_malloc_array(n + 1, sizeof *mine, "z", err)) ||
            lda_ranks_recv(0, mine, n * sizeof *mine, err)) {
            free(mine);
            return -1;
        }
    }
    for (uint32_t g = sh->lo; g < sh->hi; g++) {
        lda_backend *p = sh->parts[g];
        const uint32_t *zg = mine ? mine : z ? z + at[sh->shards[g].first_warp] : NULL;
        if (p->ops->set_z(p, zg, err)) {
            free(mine);
            return -1;
        }
    }
    free(mine);
    return sum_counts(b, err);
}

static int sharded_set_z(lda_backend *b, const uint32_t *z, lda_error *err)
{
    return announce(state(b), (command){.op = CMD_SET_Z, .flags = z != NULL}, err) || do_set_z(b, z, z != NULL, err)
               ? -1
               : 0;
}

static int do_draw(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    sharded *sh = state(b);
    for (uint32_t g = sh->lo; g < sh->hi; g++)
        if (sh->parts[g]->ops->draw_step(sh->parts[g], iteration, part, err))
            return -1;
    return sum_counts(b, err);
}

static int sharded_draw_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    return announce(state(b), (command){.op = CMD_DRAW, .iteration = iteration, .part = part}, err) ||
                   do_draw(b, iteration, part, err)
               ? -1
               : 0;
}

static int do_update(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    sharded *sh = state(b);
    for (uint32_t g = sh->lo; g < sh->hi; g++)
        if (sh->parts[g]->ops->update_step(sh->parts[g], iteration, part, err))
            return -1;
    return finish_all(sh, err);
}

static int sharded_update_step(lda_backend *b, uint32_t iteration, uint32_t part, lda_error *err)
{
    return announce(state(b), (command){.op = CMD_UPDATE, .iteration = iteration, .part = part}, err) ||
                   do_update(b, iteration, part, err)
               ? -1
               : 0;
}

/* Each shard's terms at its warps' places in the whole layout's arrays; the words' from shard 0
 * (every shard holds the totals). Over ranks, the arrays (zero but at this rank's warps) are
 * summed onto rank 0: each term comes from one rank, so the sum is exact. A following rank
 * passes NULL arrays and `wanted` (1: predictive, 2: documents) says which to make. */
static int do_eval(lda_backend *b, const lda_layout *scored, double *pred_warps, double *doc_warps,
                   double *word_chunks, uint32_t wanted, lda_error *err)
{
    sharded *sh = state(b);
    const size_t W = b->layout->num_warps;
    double *own_pred = NULL, *own_docs = NULL;
    int rc = -1;
    if (sh->over_ranks && scored) {
        lda_error_fail(err, "internal error: scoring another layout on a run over MPI ranks");
        return -1;
    }
    if (sh->over_ranks && lda_ranks_rank() != 0) {
        if (((wanted & 1) && !(pred_warps = own_pred = lda_calloc(W + 1, sizeof *own_pred, "log-likelihood", err))) ||
            ((wanted & 2) && !(doc_warps = own_docs = lda_calloc(W + 1, sizeof *own_docs, "log-likelihood", err))))
            goto out;
    } else if (sh->over_ranks) {
        if (pred_warps)
            memset(pred_warps, 0, W * sizeof *pred_warps);
        if (doc_warps)
            memset(doc_warps, 0, W * sizeof *doc_warps);
    }
    for (uint32_t g = sh->lo; g < sh->hi; g++) {
        const lda_shard *s = &sh->shards[g];
        lda_layout *part_scored = scored ? lda_layout_warps(scored, s->first_warp, s->end_warp, err) : NULL;
        if (scored && !part_scored)
            goto out;
        const int failed = sh->parts[g]->ops->eval_terms(sh->parts[g], part_scored,
                                                         pred_warps ? pred_warps + s->first_warp : NULL,
                                                         doc_warps ? doc_warps + s->first_warp : NULL,
                                                         g == 0 ? word_chunks : NULL, err);
        lda_layout_free(part_scored);
        if (failed)
            goto out;
    }
    if (sh->over_ranks && (((wanted & 1) && lda_ranks_sum_f64_to_root(pred_warps, W, err)) ||
                           ((wanted & 2) && lda_ranks_sum_f64_to_root(doc_warps, W, err))))
        goto out;
    rc = 0;
out:
    free(own_pred);
    free(own_docs);
    return rc;
}

static int sharded_eval_terms(lda_backend *b, const lda_layout *scored, double *pred_warps, double *doc_warps,
                              double *word_chunks, lda_error *err)
{
    const uint32_t wanted = (pred_warps ? 1u : 0u) | (doc_warps ? 2u : 0u);
    return announce(state(b), (command){.op = CMD_EVAL, .flags = wanted}, err) ||
                   do_eval(b, scored, pred_warps, doc_warps, word_chunks, wanted, err)
               ? -1
               : 0;
}

/* Rows [first, first + count) of an array over the whole layout's slots (θ, n[m,k]; row_values
 * each) or positions (z; row_values 1), fetched from each shard by `get` into `whole` (its row
 * `first` at whole[0]); over ranks, a following rank sends its shard's rows to rank 0, which
 * receives them at their place. `positions` says which of the two the rows are. */
typedef int (*fetch_rows_fn)(lda_backend *part, size_t first, size_t count, void *out, lda_error *err);

static int gather_rows(lda_backend *b, int positions, size_t row_bytes, size_t first, size_t count, void *whole,
                       fetch_rows_fn get, lda_error *err)
{
    sharded *sh = state(b);
    const int me = lda_ranks_rank(), following = sh->over_ranks && me != 0;
    const size_t end = first + count;
    for (uint32_t g = 0; g < sh->count; g++) {
        const lda_shard *s = &sh->shards[g];
        const size_t r0 = positions ? b->layout->warp_offset[s->first_warp] : shard_first_slot(sh, g);
        const size_t r1 = positions ? b->layout->warp_offset[s->end_warp] : s->end_warp * LDA_WARP;
        const size_t lo = first > r0 ? first : r0, hi = end < r1 ? end : r1;
        if (lo >= hi || (following && g != sh->lo))
            continue;
        const int local = g >= sh->lo && g < sh->hi;
        if (local && !following) {
            if (get(sh->parts[g], lo - r0, hi - lo, (char *)whole + (lo - first) * row_bytes, err))
                return -1;
        } else if (local) { /* a following rank: fetch, then send */
            void *rows = lda_malloc_array(hi - lo, row_bytes, "rows for rank 0", err);
            const int failed = !rows || get(sh->parts[g], lo - r0, hi - lo, rows, err) ||
                               lda_ranks_send(0, rows, (hi - lo) * row_bytes, err);
            free(rows);
            if (failed)
                return -1;
        } else if (lda_ranks_recv((int)g, (char *)whole + (lo - first) * row_bytes, (hi - lo) * row_bytes, err)) {
            return -1;
        }
    }
    return 0;
}

/* The fetchers gather_rows takes: a part's rows of θ, of z, of n[m,k]. */
static int theta_rows(lda_backend *part, size_t first, size_t count, void *out, lda_error *err)
{
    return part->ops->fetch_theta_rows(part, first, count, out, err);
}

static int whole_part(lda_backend *part, size_t first, size_t count, void *out, size_t row_bytes, int z,
                      lda_error *err)
{
    const size_t rows = z ? part->layout->num_positions : part->layout->num_slots;
    if (first == 0 && count == rows) /* the whole part: straight into out */
        return z ? part->ops->fetch(part, NULL, NULL, out, err) : part->ops->fetch_counts(part, out, NULL, NULL, err);
    char *all = lda_malloc_array(rows + 1, row_bytes, "a shard's rows", err);
    const int failed = !all || (z ? part->ops->fetch(part, NULL, NULL, (uint32_t *)all, err)
                                  : part->ops->fetch_counts(part, (uint32_t *)all, NULL, NULL, err));
    if (!failed)
        memcpy(out, all + first * row_bytes, count * row_bytes);
    free(all);
    return failed ? -1 : 0;
}

static int z_rows(lda_backend *part, size_t first, size_t count, void *out, lda_error *err)
{
    return whole_part(part, first, count, out, sizeof(uint32_t), 1, err);
}

static int count_rows(lda_backend *part, size_t first, size_t count, void *out, lda_error *err)
{
    return whole_part(part, first, count, out, part->params.num_topics * sizeof(uint32_t), 0, err);
}

/* θ, n[m,k] and z of the whole layout are the shards' one after the other (shards.h); φ and the
 * word and topic counts are every shard's, taken from shard 0 (rank 0's). flags: 1 θ, 2 φ, 4 z
 * (fetch), 1 n[m,k], 2 n[w,k], 4 n[k] (counts). */
static int do_fetch(lda_backend *b, uint32_t flags, float *theta, float *phi, uint32_t *z, lda_error *err)
{
    sharded *sh = state(b);
    const lda_layout *L = b->layout;
    const size_t K = b->params.num_topics;
    if ((flags & 1) && gather_rows(b, 0, K * sizeof(float), 0, L->num_slots, theta, theta_rows, err))
        return -1;
    if ((flags & 2) && sh->lo == 0 && sh->parts[0]->ops->fetch(sh->parts[0], NULL, phi, NULL, err))
        return -1;
    return (flags & 4) && gather_rows(b, 1, sizeof(uint32_t), 0, L->num_positions, z, z_rows, err) ? -1 : 0;
}

static int sharded_fetch(lda_backend *b, float *theta, float *phi, uint32_t *z, lda_error *err)
{
    const uint32_t flags = (theta ? 1u : 0u) | (phi ? 2u : 0u) | (z ? 4u : 0u);
    return announce(state(b), (command){.op = CMD_FETCH, .flags = flags}, err) ||
                   do_fetch(b, flags, theta, phi, z, err)
               ? -1
               : 0;
}

static int sharded_fetch_theta_rows(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err)
{
    if (first > b->layout->num_slots || count > b->layout->num_slots - first) {
        lda_error_fail(err, "internal error: θ rows %zu..+%zu of %zu", first, count, b->layout->num_slots);
        return -1;
    }
    return announce(state(b), (command){.op = CMD_THETA_ROWS, .first = first, .count = count}, err) ||
                   gather_rows(b, 0, b->params.num_topics * sizeof(float), first, count, theta, theta_rows, err)
               ? -1
               : 0;
}

static int do_counts(lda_backend *b, uint32_t flags, uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k, lda_error *err)
{
    sharded *sh = state(b);
    const size_t K = b->params.num_topics;
    if ((flags & 1) && gather_rows(b, 0, K * sizeof(uint32_t), 0, b->layout->num_slots, n_mk, count_rows, err))
        return -1;
    return (flags & 6) && sh->lo == 0 && sh->parts[0]->ops->fetch_counts(sh->parts[0], NULL, n_wk, n_k, err) ? -1 : 0;
}

static int sharded_fetch_counts(lda_backend *b, uint32_t *n_mk, uint32_t *n_wk, uint32_t *n_k, lda_error *err)
{
    const uint32_t flags = (n_mk ? 1u : 0u) | (n_wk ? 2u : 0u) | (n_k ? 4u : 0u);
    return announce(state(b), (command){.op = CMD_COUNTS, .flags = flags}, err) ||
                   do_counts(b, flags, n_mk, n_wk, n_k, err)
               ? -1
               : 0;
}

/* φ (V × K) to every shard; over ranks, broadcast from rank 0's. */
static int do_set_phi(lda_backend *b, const float *phi, lda_error *err)
{
    sharded *sh = state(b);
    const size_t bytes = (size_t)b->layout->vocab_size * b->params.num_topics * sizeof *phi;
    float *mine = NULL;
    if (sh->over_ranks) {
        if (lda_ranks_rank() != 0 && !(phi = mine = lda_malloc(bytes + 1, "phi", err)))
            return -1;
        if (lda_ranks_bcast((void *)phi, bytes, err)) {
            free(mine);
            return -1;
        }
    }
    for (uint32_t g = sh->lo; g < sh->hi; g++)
        if (sh->parts[g]->ops->set_phi(sh->parts[g], phi, err)) {
            free(mine);
            return -1;
        }
    free(mine);
    return 0;
}

static int sharded_set_phi(lda_backend *b, const float *phi, lda_error *err)
{
    return announce(state(b), (command){.op = CMD_SET_PHI}, err) || do_set_phi(b, phi, err) ? -1 : 0;
}

/* b->priors to every shard; over ranks, rank 0's α and β first (learned there). */
static int do_priors(lda_backend *b, lda_error *err)
{
    sharded *sh = state(b);
    lda_priors *p = &b->priors;
    if (sh->over_ranks) {
        double beta = p->beta;
        int learned = p->learned;
        if (lda_ranks_bcast(p->alpha, p->K * sizeof *p->alpha, err) || lda_ranks_bcast(&beta, sizeof beta, err) ||
            lda_ranks_bcast(&learned, sizeof learned, err))
            return -1;
        if (learned) /* α and β as rank 0 learned them (lda_priors_learn rounds what it is given) */
            lda_priors_learn(p, p->alpha, beta);
    }
    for (uint32_t g = sh->lo; g < sh->hi; g++)
        if (lda_backend_set_priors(sh->parts[g], p, err))
            return -1;
    return 0;
}

static int sharded_priors_changed(lda_backend *b, lda_error *err)
{
    return announce(state(b), (command){.op = CMD_PRIORS}, err) || do_priors(b, err) ? -1 : 0;
}

/* Each shard's histograms, merged (optimize_priors.h: the words' from shard 0). Over ranks, a
 * following rank sends rank 0 its documents' histogram and list. A following rank passes h NULL. */
static int do_histograms(lda_backend *b, lda_count_hist *h, lda_error *err)
{
    sharded *sh = state(b);
    const size_t bins = (size_t)b->params.num_topics * LDA_HIST_CAP;
    if (!sh->hists) {
        if (!(sh->hists = lda_calloc(sh->count, sizeof *sh->hists, "count histograms", err)))
            return -1;
        for (uint32_t g = 0; g < sh->count; g++) /* room for the totals' words: the whole corpus's tokens */
            if ((!sh->over_ranks || lda_ranks_rank() == 0 || g == sh->lo) &&
                lda_count_hist_alloc(&sh->hists[g], b->params.num_topics, b->layout->num_tokens, err))
                return -1;
    }
    for (uint32_t g = sh->lo; g < sh->hi; g++)
        if (sh->parts[g]->ops->count_histograms(sh->parts[g], &sh->hists[g], err))
            return -1;
    if (sh->over_ranks && lda_ranks_rank() != 0) {
        const lda_count_hist *mine = &sh->hists[sh->lo];
        const uint64_t over = mine->num_doc_over;
        return lda_ranks_send(0, mine->doc_topic, bins * sizeof *mine->doc_topic, err) ||
                       lda_ranks_send(0, &over, sizeof over, err) ||
                       lda_ranks_send(0, mine->doc_topic_over, over * sizeof *mine->doc_topic_over, err)
                   ? -1
                   : 0;
    }
    for (uint32_t g = 1; sh->over_ranks && g < sh->count; g++) {
        lda_count_hist *theirs = &sh->hists[g];
        uint64_t over = 0;
        if (lda_ranks_recv((int)g, theirs->doc_topic, bins * sizeof *theirs->doc_topic, err) ||
            lda_ranks_recv((int)g, &over, sizeof over, err))
            return -1;
        if (over > theirs->over_cap) {
            lda_error_fail(err, "internal error: rank %u sent %llu large counts, room for %zu", g,
                           (unsigned long long)over, theirs->over_cap);
            return -1;
        }
        if (lda_ranks_recv((int)g, theirs->doc_topic_over, over * sizeof *theirs->doc_topic_over, err))
            return -1;
        theirs->num_doc_over = over;
    }
    lda_count_hist_merge(h, sh->hists, sh->count);
    return 0;
}

static int sharded_count_histograms(lda_backend *b, lda_count_hist *h, lda_error *err)
{
    return announce(state(b), (command){.op = CMD_HISTOGRAMS}, err) || do_histograms(b, h, err) ? -1 : 0;
}

int lda_backend_follow(lda_backend *b, lda_error *err)
{
    if (!b->following) {
        lda_error_fail(err, "internal error: following rank 0 on rank 0");
        return -1;
    }
    for (;;) {
        command c;
        if (lda_ranks_bcast(&c, sizeof c, err))
            return -1;
        int rc = 0;
        switch (c.op) {
        case CMD_SET_Z:
            rc = do_set_z(b, NULL, (int)c.flags, err);
            break;
        case CMD_DRAW:
            rc = do_draw(b, c.iteration, c.part, err);
            break;
        case CMD_UPDATE:
            rc = do_update(b, c.iteration, c.part, err);
            break;
        case CMD_EVAL:
            rc = do_eval(b, NULL, NULL, NULL, NULL, c.flags, err);
            break;
        case CMD_FETCH:
            rc = do_fetch(b, c.flags, NULL, NULL, NULL, err);
            break;
        case CMD_THETA_ROWS:
            rc = gather_rows(b, 0, b->params.num_topics * sizeof(float), c.first, c.count, NULL, theta_rows, err);
            break;
        case CMD_COUNTS:
            rc = do_counts(b, c.flags, NULL, NULL, NULL, err);
            break;
        case CMD_SET_PHI:
            rc = do_set_phi(b, NULL, err);
            break;
        case CMD_PRIORS:
            rc = do_priors(b, err);
            break;
        case CMD_HISTOGRAMS:
            rc = do_histograms(b, NULL, err);
            break;
        case CMD_END:
            return 0;
        default:
            lda_error_fail(err, "internal error: rank %d got an unknown step %u", lda_ranks_rank(), c.op);
            return -1;
        }
        if (rc)
            return -1;
    }
}

void lda_sharded_destroy(lda_backend *b)
{
    sharded *sh = b->impl;
    if (sh) {
        if (sh->over_ranks && !b->following && sh->parts) { /* the following ranks stop following */
            lda_error err = {0};
            command end = {.op = CMD_END};
            if (lda_ranks_bcast(&end, sizeof end, &err))
                fprintf(stderr, "ldagpu: %s\n", err.msg); /* nothing else can report it at the end */
        }
        for (uint32_t g = 0; g < sh->count; g++) {
            if (sh->parts)
                lda_backend_destroy(sh->parts[g]);
            if (sh->layouts)
                lda_layout_free(sh->layouts[g]);
            if (sh->hists)
                lda_count_hist_free(&sh->hists[g]);
        }
        lda_allreduce_destroy(sh->sum);
        free(sh->shards);
        free(sh->layouts);
        free(sh->parts);
        free(sh->counts);
        free(sh->own);
        free(sh->total);
        free(sh->hists);
        free(sh->word_tokens);
        free(sh);
    }
    free(b);
}

const lda_backend_ops lda_sharded_ops = {
    lda_backend_start_in_steps, lda_backend_iterate_in_steps, lda_backend_evaluate_from_terms, sharded_fetch,
    sharded_fetch_theta_rows, sharded_fetch_counts, sharded_set_phi, lda_backend_score_from_terms, sharded_priors_changed,
    sharded_count_histograms, lda_sharded_destroy,
    NULL, /* a sharded backend is not itself a shard */
    sharded_set_z, sharded_draw_step, NULL, sharded_update_step, sharded_eval_terms,
    NULL, /* its steps wait for the shards' */
};
