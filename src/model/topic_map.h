/* topic_map.h — the intertopic distance map of the report, as LDAvis draws it: the
 * Jensen–Shannon divergence between every two topics' word distributions (rows of φ), and
 * the topics placed in two dimensions by classical (Torgerson) multidimensional scaling of
 * those divergences. Like LDAvis (jsPCA: R's cmdscale of proxy::dist with its jensenShannon)
 * and pyLDAvis (js_PCoA), the divergence itself, natural log, is the dissimilarity scaled. */
#ifndef LDA_TOPIC_MAP_H
#define LDA_TOPIC_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* JS(p, q) = ½ KL(p ‖ m) + ½ KL(q ‖ m), m = (p + q)/2, natural log, 0·log 0 = 0: in [0, ln 2]. */
double lda_js_divergence(const float *p, const float *q, size_t n);

/* dist (n × n, row-major) = JS divergence between the rows rows[j] and rows[k] of phi (rows of V
 * words; rows NULL: rows 0 .. n-1), to about 1e-7 (see topic_map.c). A row's entries at its
 * minimum (every word a topic never drew, when φ is a mean) are summed in one step, so sparse
 * topics cost what their words cost; dense ones cost one vectorized logarithm per word and pair.
 * threads as lda_pool_create. */
int lda_topic_distances(const float *phi, const uint32_t *rows, uint32_t n, uint32_t V, int threads, double *dist,
                        lda_error *err);

/* How many topics a map places: n topics cost n(n-1)/2 divergences over V words and an n × n
 * eigen-decomposition (n³), so at most LDA_MAP_MAX_TOPICS, and fewer where the word pairs would
 * pass LDA_MAP_MAX_WORD_PAIRS (2^31: about 9 s on 2 cores of a shared machine, under 2 s on 8;
 * the all-pairs map of K = 20,000 did not finish in 10 minutes). At least min(K, 2). The report
 * places the largest topics by tokens and lists every topic. */
enum { LDA_MAP_MAX_TOPICS = 300 };
#define LDA_MAP_MAX_WORD_PAIRS ((uint64_t)1 << 31)
uint32_t lda_topic_map_size(uint32_t K, uint32_t V);

/* Classical MDS: the n points whose distances best match dist (n × n, symmetric, zero
 * diagonal) in two dimensions: the top two eigenvectors of B = −½ J D² J (J centring), each
 * scaled by the square root of its eigenvalue (0 where that is not positive), as R's
 * cmdscale(d, k = 2). xy[2i], xy[2i+1]: point i. Each axis's sign is fixed so that its
 * largest coordinate in magnitude is positive (eigenvectors have no sign of their own). */
int lda_classical_mds(const double *dist, uint32_t n, double *xy, lda_error *err);

/* The eigenvalues (ascending, into values[n]) and unit eigenvectors (row i of vectors:
 * the eigenvector of values[i]) of the symmetric n × n matrix a (row-major; destroyed).
 * Householder reduction to tridiagonal form, then the implicit QL algorithm (EISPACK's
 * tred2 and tql2). Fails only if QL does not converge. */
int lda_symmetric_eigen(double *a, uint32_t n, double *values, double *vectors, lda_error *err);

#endif
