/* optimize_priors.h — learning α (one value per topic) and β from the counts
 * (--optimize-interval), as Mallet's --optimize-interval and tomotopy's optim_interval do.
 *
 * The counts of a state are summarised as histograms: for each topic, how many documents hold
 * c of its tokens; over all (word, topic) pairs, how many hold c tokens. Counts below
 * LDA_HIST_CAP are binned, larger ones listed (few: at most tokens / cap of them). Both
 * backends build the same histograms from the same counts (the CPU's lda_count_hist_build is
 * the reference of the GPU's kernel), and the lists are sorted, so what follows does not
 * depend on the order they were filled in.
 *
 * lda_optimize_priors then runs Minka's fixed point for the Dirichlet-multinomial evidence
 * with Wallach's digamma recurrence (Wallach, "Structured topic models for language", 2008,
 * section 2.3; Minka, "Estimating a Dirichlet distribution", 2000):
 *   α_k ← α_k · Σ_d [ψ(n_dk + α_k) − ψ(α_k)] / Σ_d [ψ(N_d + Σα) − ψ(Σα)]
 *   β   ← β · Σ_k Σ_w [ψ(n_wk + β) − ψ(β)] / (V · Σ_k [ψ(n_k + Vβ) − ψ(Vβ)])
 * until the largest relative change is below 10^-6 (at most 1000 rounds), and rounds the
 * results to float (core/priors.h). */
#ifndef LDA_OPTIMIZE_PRIORS_H
#define LDA_OPTIMIZE_PRIORS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "core/error.h"
#include "core/priors.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LDA_HIST_CAP 128u

typedef struct {
    uint32_t K;
    uint32_t *doc_topic;      /* K × LDA_HIST_CAP: [k][c] documents with c tokens of topic k (c >= 1) */
    uint64_t *doc_topic_over; /* (k << 32) | c for every count c >= LDA_HIST_CAP */
    size_t num_doc_over;
    uint32_t *word_topic;     /* LDA_HIST_CAP: [c] (word, topic) pairs of c tokens (c >= 1) */
    uint32_t *word_topic_over; /* every (word, topic) count c >= LDA_HIST_CAP */
    size_t num_word_over;
    size_t over_cap;          /* room of each list: tokens / LDA_HIST_CAP + 1 */
    uint32_t *topic;          /* K: n[k] */
} lda_count_hist;

int lda_count_hist_alloc(lda_count_hist *h, uint32_t K, size_t num_tokens, lda_error *err);
void lda_count_hist_free(lda_count_hist *h);
/* Zeroes the histograms and empties the lists (before a build). */
void lda_count_hist_clear(lda_count_hist *h);
/* Sorts the lists: after a build that filled them in any order. */
void lda_count_hist_sort(lda_count_hist *h);

/* The CPU reference: the histograms of counts in the backends' layout (n_mk of each
 * document's first piece: a document once; n_wk V × K; n_k K). */
void lda_count_hist_build(lda_count_hist *h, const lda_layout *L, const uint32_t *n_mk, const uint32_t *n_wk,
                          const uint32_t *n_k);

/* The histograms of a layout split into shards (backend_sharded.c) from those each shard built
 * of its own documents and of the totals n[w,k], n[k] (which every shard holds): the documents'
 * summed, the words' and topics' taken from the first. The same histograms as one build over
 * the whole layout; h must have room for the whole corpus's tokens. */
void lda_count_hist_merge(lda_count_hist *h, const lda_count_hist *shards, uint32_t count);

/* Learns α and β (above) from the histograms and the documents' lengths in L, starting from
 * `priors`, which it replaces; -1 with err when out of memory. */
int lda_optimize_priors(const lda_count_hist *h, const lda_layout *L, lda_priors *priors, lda_error *err);

/* Whether iteration `iteration` (1-based) learns the priors: the multiples of
 * p->optimize_interval after p->optimize_burn_in (interval 0: never); with LDA_OPTIMIZE_ONCE only
 * the first of them. A function of the iteration alone, so a resumed run learns when an
 * uninterrupted one would.
 *
 * Why once is the default (docs/priors.md; results/priors/, H100, collapsed, 300 iterations,
 * held-out by document completion): learning again from a state that the learned α itself
 * produced feeds back. Each fixed point fits α to the current counts, a smaller Σα makes the
 * next counts sparser, and Σα falls from the user's 20 or 50 to below 1 at K = 256 (wiki5k:
 * 0.32). Taking one step a time with Mallet's Gamma(1.001, 1) hyperprior instead of converging
 * ends at the same place. Learned once, from the chain the symmetric prior ran, α keeps the
 * data's asymmetry at a sensible mass (Σα ≈ 11 there) and held out better than learning at every
 * interval on wiki5k, wiki43k and wikimix at K = 50, 256 and 1024. */
int lda_priors_due(uint32_t iteration, const lda_params *p);

/* From this K learned priors held out worse than the symmetric default in every measurement
 * (results/priors/: collapsed, learned once, 0.03-0.16 a token at K = 1024 on wiki5k, wiki43k and
 * wikimix; at K = 256 within -0.025 and +0.03; at K = 50 better by 0.03-0.11): train warns. */
#define LDA_OPTIMIZE_WORSE_FROM_K 1024

/* ψ, the digamma function (double precision; exposed for the tests). */
double lda_digamma(double x);

#ifdef __cplusplus
}
#endif

#endif
