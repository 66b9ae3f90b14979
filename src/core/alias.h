/* alias.h — Walker's alias tables (Vose's construction): a draw from n weighted outcomes in
 * O(1), from two 32-bit random words, whatever n is.
 *
 * Entry i keeps i with probability keep / 2^32 and otherwise gives its alias. The bucket is
 * the high part of u_bucket · n, so both decisions are integer comparisons and a draw is the
 * same on every host. Probabilities are rounded to multiples of 2^-32 (of an outcome's
 * share of 1/n), far below what any test of the draws can see. ldagpu generate draws each
 * token's topic and word this way (synth/generate.c). */
#ifndef LDA_ALIAS_H
#define LDA_ALIAS_H

#include <stdint.h>

typedef struct {
    uint32_t keep;  /* keep the bucket's own outcome when u_keep < keep */
    uint32_t alias; /* else this one */
} lda_alias_entry;

/* Builds table[n] from the non-negative weights w[n] (a positive sum). q (n doubles) and work
 * (n indices) are scratch. The same weights give the same table. */
void lda_alias_build(const double *w, uint32_t n, lda_alias_entry *table, double *q, uint32_t *work);

static inline uint32_t lda_alias_draw(const lda_alias_entry *table, uint32_t n, uint32_t u_bucket, uint32_t u_keep)
{
    const uint32_t i = (uint32_t)(((uint64_t)u_bucket * n) >> 32);
    return u_keep < table[i].keep ? i : table[i].alias;
}

/* An alias table whose weights are not normalised, for draws whose probabilities must be exact
 * on integer weights (--sampler alias, backend/sampler_alias.h): every cell holds the table's
 * total W; cell j gives `own` for a coin below `cut` (in [0, W]) and `alias` otherwise. Built
 * from the weights times n, in doubles: on integer weights (n W below 2^53) every step is an
 * exact integer operation, so outcome i's share, (its cells' cuts + Σ W − cut over the cells
 * aliasing it) / (n W), is w_i / W exactly; the cell is the high part of u_cell · n and the coin
 * a 32-bit uniform, as lda_alias_draw's. */
typedef struct {
    double cut;
    uint32_t own, alias; /* outcomes: the caller's ids */
} lda_alias_cell;

/* cells[n] from the weights w[n] (non-negative), their ids and total (Σ w, a positive sum, as the
 * caller summed it). q (n doubles) and work (n indices) are scratch. */
void lda_alias_cells_build(const double *w, const uint32_t *ids, uint32_t n, double total, lda_alias_cell *cells,
                           double *q, uint32_t *work);

static inline uint32_t lda_alias_cells_draw(const lda_alias_cell *cells, uint32_t n, double total, uint32_t u_cell,
                                            uint32_t u_coin)
{
    const lda_alias_cell *c = &cells[((uint64_t)u_cell * n) >> 32];
    return (double)u_coin * 2.3283064365386963e-10 * total < c->cut ? c->own : c->alias; /* 2^-32 */
}

#endif
