/* optimize_priors.c — see optimize_priors.h. */
#include "backend/optimize_priors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 1000
#define CONVERGED 1e-6
#define SMALLEST_PRIOR 1e-6 /* a topic no document uses would otherwise reach 0 */

int lda_count_hist_alloc(lda_count_hist *h, uint32_t K, size_t num_tokens, lda_error *err)
{
    memset(h, 0, sizeof *h);
    h->K = K;
    h->over_cap = num_tokens / LDA_HIST_CAP + 1;
    if (!(h->doc_topic = lda_calloc((size_t)K * LDA_HIST_CAP, sizeof *h->doc_topic, "count histograms", err)) ||
        !(h->doc_topic_over = lda_malloc_array(h->over_cap, sizeof *h->doc_topic_over, "count histograms", err)) ||
        !(h->word_topic = lda_calloc(LDA_HIST_CAP, sizeof *h->word_topic, "count histograms", err)) ||
        !(h->word_topic_over = lda_malloc_array(h->over_cap, sizeof *h->word_topic_over, "count histograms", err)) ||
        !(h->topic = lda_calloc(K, sizeof *h->topic, "count histograms", err))) {
        lda_count_hist_free(h);
        return -1;
    }
    return 0;
}

void lda_count_hist_free(lda_count_hist *h)
{
    free(h->doc_topic);
    free(h->doc_topic_over);
    free(h->word_topic);
    free(h->word_topic_over);
    free(h->topic);
    memset(h, 0, sizeof *h);
}

void lda_count_hist_clear(lda_count_hist *h)
{
    memset(h->doc_topic, 0, (size_t)h->K * LDA_HIST_CAP * sizeof *h->doc_topic);
    memset(h->word_topic, 0, LDA_HIST_CAP * sizeof *h->word_topic);
    memset(h->topic, 0, h->K * sizeof *h->topic);
    h->num_doc_over = h->num_word_over = 0;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void lda_count_hist_sort(lda_count_hist *h)
{
    qsort(h->doc_topic_over, h->num_doc_over, sizeof *h->doc_topic_over, by_u64);
    qsort(h->word_topic_over, h->num_word_over, sizeof *h->word_topic_over, by_u32);
}

void lda_count_hist_build(lda_count_hist *h, const lda_layout *L, const uint32_t *n_mk, const uint32_t *n_wk,
                          const uint32_t *n_k)
{
    const uint32_t K = h->K;
    lda_count_hist_clear(h);
    for (size_t s = 0; s < L->num_slots; s++) {
        if (L->slot_doc[s] == LDA_NO_DOC || L->slot_piece[s] != 0) /* a document once */
            continue;
        for (uint32_t k = 0; k < K; k++) {
            const uint32_t c = n_mk[s * K + k];
            if (c >= LDA_HIST_CAP)
                h->doc_topic_over[h->num_doc_over++] = (uint64_t)k << 32 | c;
            else if (c)
                h->doc_topic[(size_t)k * LDA_HIST_CAP + c]++;
        }
    }
    for (size_t i = 0; i < (size_t)L->vocab_size * K; i++) {
        const uint32_t c = n_wk[i];
        if (c >= LDA_HIST_CAP)
            h->word_topic_over[h->num_word_over++] = c;
        else if (c)
            h->word_topic[c]++;
    }
    memcpy(h->topic, n_k, K * sizeof *h->topic);
    lda_count_hist_sort(h);
}

void lda_count_hist_merge(lda_count_hist *h, const lda_count_hist *shards, uint32_t count)
{
    const size_t bins = (size_t)h->K * LDA_HIST_CAP;
    lda_count_hist_clear(h);
    for (uint32_t g = 0; g < count; g++) {
        const lda_count_hist *s = &shards[g];
        for (size_t i = 0; i < bins; i++)
            h->doc_topic[i] += s->doc_topic[i];
        memcpy(h->doc_topic_over + h->num_doc_over, s->doc_topic_over, s->num_doc_over * sizeof *s->doc_topic_over);
        h->num_doc_over += s->num_doc_over;
    }
    if (count) {
        memcpy(h->word_topic, shards[0].word_topic, LDA_HIST_CAP * sizeof *h->word_topic);
        memcpy(h->word_topic_over, shards[0].word_topic_over, shards[0].num_word_over * sizeof *h->word_topic_over);
        h->num_word_over = shards[0].num_word_over;
        memcpy(h->topic, shards[0].topic, h->K * sizeof *h->topic);
    }
    lda_count_hist_sort(h);
}

double lda_digamma(double x)
{
    double shift = 0.0;
    while (x < 10.0) { /* ψ(x) = ψ(x + 1) − 1/x, then the asymptotic series (error below 3e-14) */
        shift -= 1.0 / x;
        x += 1.0;
    }
    const double r = 1.0 / x, r2 = r * r;
    return shift + log(x) - 0.5 * r -
           r2 * (1.0 / 12 - r2 * (1.0 / 120 - r2 * (1.0 / 252 - r2 * (1.0 / 240 - r2 * (1.0 / 132)))));
}

/* Σ_c hist[c] · (ψ(c + a) − ψ(a)) over the binned counts, by the recurrence
 * ψ(c + a) − ψ(a) = Σ_{i < c} 1/(a + i). */
static double binned_sum(const uint32_t *hist, double a)
{
    double total = 0.0, run = 0.0;
    for (uint32_t c = 1; c < LDA_HIST_CAP; c++) {
        run += 1.0 / (a + (c - 1));
        if (hist[c])
            total += hist[c] * run;
    }
    return total;
}

/* The documents' lengths: binned below LDA_HIST_CAP, listed above. */
typedef struct {
    uint32_t binned[LDA_HIST_CAP];
    uint32_t *long_lengths;
    size_t num_long;
} length_hist;

static int lengths_of(const lda_layout *L, length_hist *lh, lda_error *err)
{
    memset(lh, 0, sizeof *lh);
    if (!(lh->long_lengths = lda_malloc_array(L->num_docs ? L->num_docs : 1, sizeof *lh->long_lengths,
                                              "document lengths", err)))
        return -1;
    for (size_t s = 0; s < L->num_slots; s++) {
        if (L->slot_doc[s] == LDA_NO_DOC || L->slot_piece[s] != 0)
            continue;
        const uint32_t n = L->slot_doc_len[s];
        if (n >= LDA_HIST_CAP)
            lh->long_lengths[lh->num_long++] = n;
        else
            lh->binned[n]++;
    }
    qsort(lh->long_lengths, lh->num_long, sizeof *lh->long_lengths, by_u32);
    return 0;
}

static double document_sum(const length_hist *lh, double alpha_sum)
{
    double total = binned_sum(lh->binned, alpha_sum);
    const double base = lda_digamma(alpha_sum);
    for (size_t i = 0; i < lh->num_long; i++)
        total += lda_digamma(lh->long_lengths[i] + alpha_sum) - base;
    return total;
}

static int learn_alpha(const lda_count_hist *h, const length_hist *lh, double *alpha, lda_error *err)
{
    const uint32_t K = h->K;
    /* topic k's listed counts: [first[k], first[k+1]) */
    size_t *first = lda_malloc_array(K + 1, sizeof *first, "prior learning", err);
    double *next = first ? lda_malloc_array(K, sizeof *next, "prior learning", err) : NULL;
    if (!next) {
        free(first);
        return -1;
    }
    for (uint32_t k = 0, i = 0; k <= K; k++) {
        while (i < h->num_doc_over && h->doc_topic_over[i] >> 32 < k)
            i++;
        first[k] = i;
    }
    for (int round = 0; round < MAX_ROUNDS; round++) {
        double sum = 0.0;
        for (uint32_t k = 0; k < K; k++)
            sum += alpha[k];
        const double denominator = document_sum(lh, sum);
        double change = 0.0;
        for (uint32_t k = 0; k < K; k++) {
            double numerator = binned_sum(h->doc_topic + (size_t)k * LDA_HIST_CAP, alpha[k]);
            const double base = lda_digamma(alpha[k]);
            for (size_t i = first[k]; i < first[k + 1]; i++)
                numerator += lda_digamma((double)(uint32_t)h->doc_topic_over[i] + alpha[k]) - base;
            next[k] = denominator > 0 ? fmax(alpha[k] * numerator / denominator, SMALLEST_PRIOR) : alpha[k];
            change = fmax(change, fabs(next[k] - alpha[k]) / alpha[k]);
        }
        memcpy(alpha, next, K * sizeof *alpha);
        if (change < CONVERGED)
            break;
    }
    free(first);
    free(next);
    return 0;
}

static double learn_beta(const lda_count_hist *h, uint32_t V, double beta)
{
    for (int round = 0; round < MAX_ROUNDS; round++) {
        double numerator = binned_sum(h->word_topic, beta), denominator = 0.0;
        const double base = lda_digamma(beta), total_base = lda_digamma(V * beta);
        for (size_t i = 0; i < h->num_word_over; i++)
            numerator += lda_digamma(h->word_topic_over[i] + beta) - base;
        for (uint32_t k = 0; k < h->K; k++)
            denominator += lda_digamma(h->topic[k] + V * beta) - total_base;
        if (!(denominator > 0))
            return beta;
        const double next = fmax(beta * numerator / (V * denominator), SMALLEST_PRIOR);
        const double change = fabs(next - beta) / beta;
        beta = next;
        if (change < CONVERGED)
            break;
    }
    return beta;
}

int lda_optimize_priors(const lda_count_hist *h, const lda_layout *L, lda_priors *priors, lda_error *err)
{
    length_hist lh;
    double *alpha = lda_malloc_array(h->K, sizeof *alpha, "prior learning", err);
    if (!alpha || lengths_of(L, &lh, err) != 0) {
        free(alpha);
        return -1;
    }
    memcpy(alpha, priors->alpha, h->K * sizeof *alpha);
    int rc = learn_alpha(h, &lh, alpha, err);
    if (rc == 0)
        lda_priors_learn(priors, alpha, learn_beta(h, L->vocab_size, priors->beta));
    free(lh.long_lengths);
    free(alpha);
    return rc;
}

int lda_priors_due(uint32_t iteration, const lda_params *p)
{
    const uint32_t interval = p->optimize_interval, burn_in = p->optimize_burn_in;
    if (!interval || iteration <= burn_in || iteration % interval != 0)
        return 0;
    return p->optimize_mode == LDA_OPTIMIZE_EVERY || iteration - interval <= burn_in;
}
