/* search.h — drawing an index from a table of prefix sums (Algorithms 2 and 3 of
 * Steele & Tristan, 000_e24edcbece0b8c44.txt).
 *
 * Given p[k] = a[0] + ... + a[k] (non-negative a) and a uniform u in [0,1), the draw is the
 * smallest j with u' < p[j], where u' = u * p[K-1]. In floating point u * p[K-1] can round
 * up to p[K-1] itself, and then no entry is larger: the search would fall off the end onto
 * the last topic even when its weight is zero. lda_scaled_target() clamps u' strictly
 * below the total, so the drawn index always has a positive weight. Every sampler (CPU,
 * naive, transpose, butterfly) uses it, so all of them return the same index for the same u
 * whenever the partial sums are exact (integer weights). */
#ifndef LDA_SEARCH_H
#define LDA_SEARCH_H

#include <stdint.h>
#include <string.h>

#include "core/hd.h"

/* The largest value below a positive finite x (one unit in the last place down). */
LDA_HD float lda_below_float(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits -= 1;
    memcpy(&x, &bits, sizeof x);
    return x;
}

LDA_HD double lda_below_double(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits -= 1;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* u * total, clamped below total (total > 0). */
LDA_HD float lda_scaled_target_float(float total, float u)
{
    float t = total * u;
    return t < total ? t : lda_below_float(total);
}

LDA_HD double lda_scaled_target_double(double total, double u)
{
    double t = total * u;
    return t < total ? t : lda_below_double(total);
}

/* Smallest j in [0, K-1] with target < p[j] (Algorithm 3); K-1 if none. */
#define LDA_DEFINE_PREFIX_SEARCH(REAL, SUFFIX)                                                  \
    LDA_HD int lda_binary_search_##SUFFIX(const REAL *p, int K, REAL target)                   \
    {                                                                                          \
        int j = 0, k = K - 1;                                                                  \
        while (j < k) {                                                                        \
            int mid = (j + k) >> 1;                                                            \
            if (target < p[mid])                                                               \
                k = mid;                                                                       \
            else                                                                               \
                j = mid + 1;                                                                   \
        }                                                                                      \
        return j;                                                                              \
    }                                                                                          \
    /* The same answer by a linear scan (Algorithm 2): the tests' reference. */                \
    LDA_HD int lda_linear_search_##SUFFIX(const REAL *p, int K, REAL target)                   \
    {                                                                                          \
        int j = 0;                                                                             \
        while (j < K - 1 && !(target < p[j]))                                                  \
            j++;                                                                               \
        return j;                                                                              \
    }

LDA_DEFINE_PREFIX_SEARCH(float, float)
LDA_DEFINE_PREFIX_SEARCH(double, double)

#endif
