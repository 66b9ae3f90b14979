/* theta_fetch.c — see theta_fetch.h. */
#include "train/theta_fetch.h"

#include <stdlib.h>

typedef struct {
    lda_backend *b;
    const corpus *c;
    uint64_t num_input_docs;
    size_t chunk; /* slots a fetch */
} fetch_src;

size_t lda_theta_chunk_slots(const lda_layout *L, uint32_t K)
{
    size_t slots = LDA_THETA_CHUNK_BYTES / ((size_t)K * sizeof(float)) / LDA_WARP * LDA_WARP;
    if (slots < LDA_WARP)
        slots = LDA_WARP;
    return slots < L->num_slots ? slots : L->num_slots;
}

/* One pass: the trained documents from the backend a chunk of slots at a time, then the
 * uniform row for the others. */
static int each_row(void *vsrc, lda_theta_row_fn fn, void *fn_ctx, lda_error *err)
{
    const fetch_src *s = vsrc;
    const lda_layout *L = s->b->layout;
    const uint32_t K = s->b->params.num_topics;
    const size_t chunk = s->chunk;
    float *rows = lda_malloc_array((chunk ? chunk : 1) * K, sizeof *rows, "theta rows", err);
    unsigned char *trained = lda_calloc(s->num_input_docs ? s->num_input_docs : 1, 1, "trained documents", err);
    int rc = -1;
    if (!rows || !trained)
        goto out;
    for (size_t first = 0; first < L->num_slots; first += chunk) {
        const size_t count = L->num_slots - first < chunk ? L->num_slots - first : chunk;
        if (s->b->ops->fetch_theta_rows(s->b, first, count, rows, err))
            goto out;
        for (size_t i = 0; i < count; i++) {
            const size_t slot = first + i;
            if (L->slot_doc[slot] == LDA_NO_DOC || L->slot_piece[slot] != 0)
                continue;
            const uint64_t d = s->c->input_index[L->slot_doc[slot]];
            trained[d] = 1;
            if (fn(fn_ctx, d, rows + i * K, err))
                goto out;
        }
    }
    for (uint32_t k = 0; k < K; k++)
        rows[k] = 1.0f / (float)K;
    for (uint64_t d = 0; d < s->num_input_docs; d++)
        if (!trained[d] && fn(fn_ctx, d, rows, err))
            goto out;
    rc = 0;
out:
    free(rows);
    free(trained);
    return rc;
}

int lda_theta_fetch(lda_theta *out, lda_backend *b, const corpus *c, uint64_t num_input_docs,
                    const lda_doc_topics *form, size_t chunk_slots, lda_error *err)
{
    const size_t chunk = chunk_slots ? chunk_slots : lda_theta_chunk_slots(b->layout, b->params.num_topics);
    fetch_src s = {b, c, num_input_docs, chunk};
    return lda_theta_build(out, form, num_input_docs, b->params.num_topics, each_row, &s, err);
}
