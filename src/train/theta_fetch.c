/* theta_fetch.c — see theta_fetch.h. */
#include "train/theta_fetch.h"

#include <pthread.h>
#include <stdlib.h>

size_t lda_theta_chunk_slots(const lda_layout *L, uint32_t K)
{
    size_t slots = LDA_THETA_CHUNK_BYTES / ((size_t)K * sizeof(float)) / LDA_WARP * LDA_WARP;
    if (slots < LDA_WARP)
        slots = LDA_WARP;
    return slots < L->num_slots ? slots : L->num_slots;
}

uint64_t lda_theta_fetch_bytes(const lda_layout *L, uint32_t K, uint64_t num_input_docs)
{
    return 2 * (uint64_t)lda_theta_chunk_slots(L, K) * ((uint64_t)K * sizeof(float) + sizeof(uint64_t)) +
           num_input_docs;
}

/* One chunk's rows and, for each, its input document (LDA_THETA_NO_ROW: a padding slot or a
 * cut document's later piece). */
typedef struct {
    float *rows;
    uint64_t *docs;
} chunk_buf;

/* Slots first .. first + count - 1 into buf, their documents marked trained. */
static int fetch_chunk(lda_backend *b, const corpus *c, size_t first, size_t count, chunk_buf *buf,
                       unsigned char *trained, lda_error *err)
{
    const lda_layout *L = b->layout;
    if (b->ops->fetch_theta_rows(b, first, count, buf->rows, err))
        return -1;
    for (size_t i = 0; i < count; i++) {
        const size_t slot = first + i;
        buf->docs[i] = LDA_THETA_NO_ROW;
        if (L->slot_doc[slot] == LDA_NO_DOC || L->slot_piece[slot] != 0)
            continue;
        buf->docs[i] = c->input_index[L->slot_doc[slot]];
        trained[buf->docs[i]] = 1;
    }
    return 0;
}

/* A chunk's entries kept on a thread of its own, while this one fetches the next chunk. */
typedef struct {
    lda_theta_builder *bld;
    lda_pool *pool;
    const chunk_buf *buf;
    size_t count;
    int rc;
    lda_error err;
} keep_job;

static void *keep_chunk(void *vjob)
{
    keep_job *j = vjob;
    j->rc = lda_theta_build_rows(j->bld, j->pool, j->buf->docs, j->buf->rows, 1, j->count, &j->err);
    return NULL;
}

/* The trained documents' rows, a chunk of slots at a time, the next fetched while the last is kept. */
static int trained_rows(lda_theta_builder *bld, lda_pool *pool, lda_backend *b, const corpus *c, size_t chunk,
                        chunk_buf buf[2], unsigned char *trained, lda_error *err)
{
    const size_t slots = b->layout->num_slots;
    if (slots && fetch_chunk(b, c, 0, chunk < slots ? chunk : slots, &buf[0], trained, err))
        return -1;
    for (size_t first = 0, i = 0; first < slots; first += chunk, i ^= 1) {
        keep_job job = {bld, pool, &buf[i], slots - first < chunk ? slots - first : chunk, 0, {{0}, 0}};
        pthread_t thread;
        const int apart = pthread_create(&thread, NULL, keep_chunk, &job) == 0;
        if (!apart) /* no thread to spare: kept here, then the next fetched */
            keep_chunk(&job);
        const size_t next = first + chunk;
        const int fetched = next >= slots ||
                            fetch_chunk(b, c, next, slots - next < chunk ? slots - next : chunk, &buf[i ^ 1], trained,
                                        err) == 0;
        if (apart)
            pthread_join(thread, NULL);
        if (job.rc) {
            *err = job.err;
            return -1;
        }
        if (!fetched)
            return -1;
    }
    return 0;
}

/* The uniform row 1/K for every input document not trained on, a chunk of documents at a time. */
static int untrained_rows(lda_theta_builder *bld, lda_pool *pool, uint32_t K, uint64_t num_input_docs,
                          size_t chunk, chunk_buf *buf, const unsigned char *trained, lda_error *err)
{
    for (uint32_t k = 0; k < K; k++)
        buf->rows[k] = 1.0f / (float)K;
    size_t n = 0;
    for (uint64_t d = 0; d <= num_input_docs; d++) {
        if (n == chunk || (d == num_input_docs && n)) {
            if (lda_theta_build_rows(bld, pool, buf->docs, buf->rows, 0, n, err))
                return -1;
            n = 0;
        }
        if (d < num_input_docs && !trained[d])
            buf->docs[n++] = d;
    }
    return 0;
}

int lda_theta_fetch(lda_theta *out, lda_backend *b, const corpus *c, uint64_t num_input_docs,
                    const lda_doc_topics *form, size_t chunk_slots, lda_error *err)
{
    const uint32_t K = b->params.num_topics;
    const size_t chunk = chunk_slots ? chunk_slots : lda_theta_chunk_slots(b->layout, K);
    lda_theta_builder bld;
    if (lda_theta_build_begin(&bld, out, form, num_input_docs, K, err))
        return -1;
    if (form->form == LDA_DOC_TOPICS_NONE)
        return lda_theta_build_end(&bld, err);
    const size_t room = chunk ? chunk : 1;
    chunk_buf buf[2] = {{lda_malloc_array(room * K, sizeof(float), "theta rows", err),
                         lda_malloc_array(room, sizeof(uint64_t), "theta rows", err)},
                        {lda_malloc_array(room * K, sizeof(float), "theta rows", err),
                         lda_malloc_array(room, sizeof(uint64_t), "theta rows", err)}};
    unsigned char *trained = lda_calloc(num_input_docs ? num_input_docs : 1, 1, "trained documents", err);
    lda_pool *pool = lda_pool_create(b->params.threads, err);
    int rc = -1;
    if (buf[0].rows && buf[0].docs && buf[1].rows && buf[1].docs && trained && pool &&
        trained_rows(&bld, pool, b, c, room, buf, trained, err) == 0 &&
        untrained_rows(&bld, pool, K, num_input_docs, room, &buf[0], trained, err) == 0)
        rc = lda_theta_build_end(&bld, err);
    else
        lda_theta_build_abort(&bld);
    lda_pool_destroy(pool);
    for (int i = 0; i < 2; i++) {
        free(buf[i].rows);
        free(buf[i].docs);
    }
    free(trained);
    return rc;
}
