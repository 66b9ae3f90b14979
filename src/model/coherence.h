/* coherence.h — topic coherence from document co-occurrence of a topic's top words.
 *
 * For a topic with top words v_1 .. v_N (most probable first), over the documents of a
 * corpus, D(v) = documents containing v and D(v, v') = documents containing both:
 *   UMass (Mimno et al., EMNLP 2011), averaged over the pairs as gensim and tomotopy report it
 *     (their sum grows with N: one topic read −56.7, −156.9 or −282.4 as 10, 15 or 20 words were
 *     listed): the mean over l < m of log((D(v_m, v_l) + 1) / D(v_l)); pairs whose higher-ranked
 *     word v_l occurs in no document are left out (0 when every pair is);
 *   NPMI (Bouma 2009; Lau et al. 2014), documents as the co-occurrence window, averaged over
 *     the N(N−1)/2 pairs: log(p(v,v') / (p(v) p(v'))) / −log p(v,v'), with p = D / #documents;
 *     −1 for a pair that never co-occurs, 1 for a pair present in every document.
 * Only the at most K·N distinct top words are looked at: each document's set of them is
 * found once, and each topic's pairs among that set are counted. */
#ifndef LDA_COHERENCE_H
#define LDA_COHERENCE_H

#include <stdint.h>

#include "core/error.h"
#include "corpus/corpus.h"

typedef struct {
    double umass;
    double npmi;
} lda_coherence;

/* top: K rows of n word ids (ids of c's vocabulary), each row most probable first.
 * out: K results. */
int lda_coherence_compute(const corpus *c, const uint32_t *top, uint32_t K, uint32_t n, lda_coherence *out,
                          lda_error *err);

#endif
