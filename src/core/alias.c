/* alias.c — building an alias table; see alias.h. */
#include "core/alias.h"

/* A probability below 1 as a threshold on a 32-bit word; 1 (or rounding above it) keeps always. */
static uint32_t keep_threshold(double q)
{
    return q >= 1.0 ? UINT32_MAX : (uint32_t)(q * 4294967296.0);
}

void lda_alias_build(const double *w, uint32_t n, lda_alias_entry *table, double *q, uint32_t *work)
{
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++)
        sum += w[i];
    const double scale = (double)n / sum;
    /* One array holds both work lists: the small outcomes (q < 1) from the front, the large
     * ones from the back; an outcome is in at most one list, so they never meet. */
    uint32_t small = 0, large = n;
    for (uint32_t i = 0; i < n; i++) {
        q[i] = w[i] * scale;
        if (q[i] < 1.0)
            work[small++] = i;
        else
            work[--large] = i;
    }
    while (small > 0 && large < n) {
        const uint32_t s = work[--small], l = work[large++];
        table[s] = (lda_alias_entry){keep_threshold(q[s]), l};
        q[l] = (q[l] + q[s]) - 1.0; /* the large outcome gives the small bucket what it lacks */
        if (q[l] < 1.0)
            work[small++] = l;
        else
            work[--large] = l;
    }
    /* What is left has q = 1 up to rounding: it keeps itself. */
    while (small > 0) {
        const uint32_t i = work[--small];
        table[i] = (lda_alias_entry){UINT32_MAX, i};
    }
    while (large < n) {
        const uint32_t i = work[large++];
        table[i] = (lda_alias_entry){UINT32_MAX, i};
    }
}

void lda_alias_cells_build(const double *w, const uint32_t *ids, uint32_t n, double total, lda_alias_cell *cells,
                           double *q, uint32_t *work)
{
    /* as lda_alias_build, in units of the total: a cell is full at W, not at 1 */
    uint32_t small = 0, large = n;
    for (uint32_t i = 0; i < n; i++) {
        q[i] = w[i] * (double)n;
        if (q[i] < total)
            work[small++] = i;
        else
            work[--large] = i;
    }
    while (small > 0 && large < n) {
        const uint32_t s = work[--small], l = work[large++];
        cells[s] = (lda_alias_cell){q[s], ids[s], ids[l]};
        q[l] = (q[l] + q[s]) - total;
        if (q[l] < total)
            work[small++] = l;
        else
            work[--large] = l;
    }
    /* what is left is full up to rounding (exactly, on integer weights): it keeps itself */
    while (small > 0) {
        const uint32_t i = work[--small];
        cells[i] = (lda_alias_cell){total, ids[i], ids[i]};
    }
    while (large < n) {
        const uint32_t i = work[large++];
        cells[i] = (lda_alias_cell){total, ids[i], ids[i]};
    }
}
