/* coherence.c — see coherence.h. */
#include "model/coherence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t topic, rank;
} occurrence;

int lda_coherence_compute(const corpus *c, const uint32_t *top, uint32_t K, uint32_t n, lda_coherence *out,
                          lda_error *err)
{
    const uint32_t V = c->vocab_size;
    const size_t slots = (size_t)K * n;
    uint32_t *compact = NULL, *occ_start = NULL, *df = NULL, *stamp = NULL, *present = NULL, *pairs = NULL;
    uint32_t *topic_list = NULL, *topic_count = NULL, *touched = NULL;
    occurrence *occ = NULL;
    int rc = -1;
    if (!(compact = lda_malloc_array(V ? V : 1, sizeof *compact, "coherence", err)))
        goto out;
    for (uint32_t w = 0; w < V; w++)
        compact[w] = UINT32_MAX;
    uint32_t distinct = 0;
    for (size_t i = 0; i < slots; i++) {
        if (top[i] >= V) {
            lda_error_fail(err, "internal error: top word %u outside the vocabulary (%u words)", top[i], V);
            goto out;
        }
        if (compact[top[i]] == UINT32_MAX)
            compact[top[i]] = distinct++;
    }
    /* Where each distinct word stands in the top lists (CSR by compact id). */
    if (!(occ_start = lda_calloc((size_t)distinct + 1, sizeof *occ_start, "coherence", err)) ||
        !(occ = lda_malloc_array(slots ? slots : 1, sizeof *occ, "coherence", err)) ||
        !(df = lda_calloc(distinct ? distinct : 1, sizeof *df, "coherence", err)) ||
        !(stamp = lda_malloc_array(distinct ? distinct : 1, sizeof *stamp, "coherence", err)) ||
        !(present = lda_malloc_array(distinct ? distinct : 1, sizeof *present, "coherence", err)) ||
        !(pairs = lda_calloc(slots * (n ? n : 1), sizeof *pairs, "coherence pair counts", err)) ||
        !(topic_list = lda_malloc_array(slots ? slots : 1, sizeof *topic_list, "coherence", err)) ||
        !(topic_count = lda_calloc(K ? K : 1, sizeof *topic_count, "coherence", err)) ||
        !(touched = lda_malloc_array(K ? K : 1, sizeof *touched, "coherence", err)))
        goto out;
    for (size_t i = 0; i < slots; i++)
        occ_start[compact[top[i]] + 1]++;
    for (uint32_t j = 0; j < distinct; j++)
        occ_start[j + 1] += occ_start[j];
    {
        uint32_t *fill = present; /* scratch: next free entry of each word */
        memcpy(fill, occ_start, distinct * sizeof *fill);
        for (uint32_t k = 0; k < K; k++)
            for (uint32_t r = 0; r < n; r++) {
                uint32_t j = compact[top[(size_t)k * n + r]];
                occ[fill[j]++] = (occurrence){k, r};
            }
    }
    for (uint32_t j = 0; j < distinct; j++)
        stamp[j] = UINT32_MAX;

    for (size_t d = 0; d < c->num_docs; d++) {
        uint32_t np = 0, nt = 0;
        for (size_t t = c->doc_offsets[d]; t < c->doc_offsets[d + 1]; t++) {
            uint32_t j = compact[c->words[t]];
            if (j == UINT32_MAX || stamp[j] == (uint32_t)d)
                continue;
            stamp[j] = (uint32_t)d;
            present[np++] = j;
        }
        for (uint32_t p = 0; p < np; p++) {
            uint32_t j = present[p];
            df[j]++;
            for (uint32_t e = occ_start[j]; e < occ_start[j + 1]; e++) {
                uint32_t k = occ[e].topic;
                if (topic_count[k] == 0)
                    touched[nt++] = k;
                topic_list[(size_t)k * n + topic_count[k]++] = occ[e].rank;
            }
        }
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t k = touched[t], cnt = topic_count[k];
            const uint32_t *ranks = topic_list + (size_t)k * n;
            uint32_t *pk = pairs + (size_t)k * n * n;
            for (uint32_t a = 0; a < cnt; a++)
                for (uint32_t b = a + 1; b < cnt; b++) {
                    uint32_t hi = ranks[a] < ranks[b] ? ranks[a] : ranks[b];
                    uint32_t lo = ranks[a] < ranks[b] ? ranks[b] : ranks[a];
                    pk[(size_t)hi * n + lo]++; /* row: the higher-ranked word */
                }
            topic_count[k] = 0;
        }
    }

    const double docs = (double)c->num_docs;
    for (uint32_t k = 0; k < K; k++) {
        const uint32_t *row = top + (size_t)k * n, *pk = pairs + (size_t)k * n * n;
        double umass = 0.0, npmi = 0.0;
        size_t npairs = 0, umass_pairs = 0;
        for (uint32_t m = 1; m < n; m++)
            for (uint32_t l = 0; l < m; l++) {
                double dl = df[compact[row[l]]], dm = df[compact[row[m]]], co = pk[(size_t)l * n + m];
                if (dl > 0) {
                    umass += log((co + 1.0) / dl);
                    umass_pairs++;
                }
                npairs++;
                if (co == 0)
                    npmi += -1.0;
                else if (co == docs)
                    npmi += 1.0;
                else
                    npmi += log(co * docs / (dl * dm)) / -log(co / docs);
            }
        out[k].umass = umass_pairs ? umass / (double)umass_pairs : 0.0;
        out[k].npmi = npairs ? npmi / (double)npairs : 0.0;
    }
    rc = 0;
out:
    free(compact);
    free(occ_start);
    free(occ);
    free(df);
    free(stamp);
    free(present);
    free(pairs);
    free(topic_list);
    free(topic_count);
    free(touched);
    return rc;
}
