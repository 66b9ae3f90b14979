/* generate.c — a synthetic LDA corpus; see generate.h. */
#include "synth/generate.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "model/matrix_file.h"
#include "synth/gen_output.h"
#include "synth/planted_model.h"
#include "util/memory.h"
#include "util/clock.h"
#include "util/threadpool.h"

enum {
    BLOCK_TOKENS = 1 << 18, /* a block closes at the document that reaches this many tokens */
    BLOCKS_PER_THREAD = 2,  /* a round: enough blocks that uneven ones still keep every thread busy */
    LINE_MAX_BYTES = 33,    /* a UCI line: three 32-bit numbers, two spaces, a newline */
    LENGTH_TASK = 1 << 16,  /* documents a task when drawing the lengths */
};

/* A run of documents and, once made, their bytes in the output format. */
typedef struct {
    uint64_t first_doc, end_doc;
    unsigned char *bytes;
    size_t len, cap;
    uint64_t nnz;   /* UCI lines in bytes */
    int no_memory;
} gen_block;

/* One worker's scratch: a document's word counts (zero between documents) and distinct words,
 * its tokens' topics and words' random words (the longest document's length each), and with θ
 * asked for, its topic counts (zero between documents) and θ. */
typedef struct {
    uint32_t *counts, *distinct, *sort_tmp;
    uint32_t *topics, *topic_counts;
    uint64_t *word_bits;
    double *theta;
} gen_scratch;

typedef struct {
    const lda_generate_options *o;
    const lda_planted_topics *topics;
    uint32_t *lengths;
    float *theta_out; /* D × K, or NULL */
    gen_block *blocks; /* the round being made */
    gen_scratch *scratch;
} gen_job;

/* ---- one document ---- */

/* Word ids in increasing order: insertion sort for a few, else radix sort a byte at a time
 * over the bytes that ids below V use. */
static void sort_words(uint32_t *a, uint32_t *tmp, size_t n, uint32_t vocab_size)
{
    if (n < 48) {
        for (size_t i = 1; i < n; i++) {
            uint32_t x = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1] > x; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    uint32_t *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 32 && ((vocab_size - 1) >> shift) != 0; shift += 8) {
        size_t start[257] = {0};
        for (size_t i = 0; i < n; i++)
            start[((src[i] >> shift) & 255) + 1]++;
        for (int b = 0; b < 256; b++)
            start[b + 1] += start[b];
        for (size_t i = 0; i < n; i++)
            dst[start[(src[i] >> shift) & 255]++] = src[i];
        uint32_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

static char *put_decimal(char *p, uint64_t v)
{
    char digits[20];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = digits[--n];
    return p;
}

static int reserve(gen_block *b, size_t more)
{
    if (more <= b->cap - b->len)
        return 0;
    size_t cap = b->cap ? b->cap : 1 << 20;
    while (cap - b->len < more)
        cap *= 2;
    unsigned char *grown = realloc(b->bytes, cap);
    if (!grown)
        return -1;
    b->bytes = grown;
    b->cap = cap;
    return 0;
}

/* The bag of document d (its distinct words in order, their counts) in the output format. */
static int emit_document(gen_block *b, const gen_scratch *s, size_t n, uint64_t d, uint32_t length,
                         corpus_format format)
{
    if (format == CORPUS_FORMAT_BINARY) {
        if (reserve(b, (size_t)length * sizeof(uint32_t)))
            return -1;
        uint32_t *out = (uint32_t *)(b->bytes + b->len);
        for (size_t i = 0; i < n; i++)
            for (uint32_t c = s->counts[s->distinct[i]]; c > 0; c--)
                *out++ = s->distinct[i];
        b->len = (size_t)((unsigned char *)out - b->bytes);
        return 0;
    }
    if (reserve(b, n * LINE_MAX_BYTES))
        return -1;
    char doc_id[24], *p = (char *)b->bytes + b->len;
    const size_t doc_len = (size_t)(put_decimal(doc_id, d + 1) - doc_id);
    for (size_t i = 0; i < n; i++) {
        memcpy(p, doc_id, doc_len);
        p += doc_len;
        *p++ = ' ';
        p = put_decimal(p, (uint64_t)s->distinct[i] + 1);
        *p++ = ' ';
        p = put_decimal(p, s->counts[s->distinct[i]]);
        *p++ = '\n';
    }
    b->len = (size_t)((unsigned char *)p - b->bytes);
    b->nnz += n;
    return 0;
}

/* Document d: its tokens' topics, then their words, in a pass of their own: each word is an
 * entry of the topics' alias tables (K × V, gigabytes at K = 10^4) at random, so the entry of
 * the token PREFETCH_AHEAD on is fetched while this one is drawn. */
static int make_document(const gen_job *job, gen_scratch *s, gen_block *b, uint64_t d)
{
    enum { PREFETCH_AHEAD = 16 };
    const lda_generate_options *o = job->o;
    const uint32_t V = o->vocab_size, length = job->lengths[d];
    const lda_alias_entry *alias = job->topics->alias;
    lda_planted_doc_topics(o->seed, d, o->alpha, o->num_topics, length, s->topics, s->word_bits);
    if (job->theta_out)
        lda_planted_theta_given(o->seed, d, o->alpha, o->num_topics, s->topics, length, s->topic_counts, s->theta,
                                job->theta_out + d * o->num_topics);
    size_t n = 0;
    for (uint32_t i = 0; i < length; i++) {
        if (i + PREFETCH_AHEAD < length) {
            const uint32_t j = i + PREFETCH_AHEAD, bucket = (uint32_t)(((s->word_bits[j] >> 32) * V) >> 32);
            __builtin_prefetch(alias + (size_t)s->topics[j] * V + bucket);
        }
        const uint32_t w = lda_alias_draw(alias + (size_t)s->topics[i] * V, V, (uint32_t)(s->word_bits[i] >> 32),
                                          (uint32_t)s->word_bits[i]);
        if (s->counts[w]++ == 0)
            s->distinct[n++] = w;
    }
    sort_words(s->distinct, s->sort_tmp, n, V);
    int rc = emit_document(b, s, n, d, length, o->format);
    for (size_t i = 0; i < n; i++)
        s->counts[s->distinct[i]] = 0;
    return rc;
}

static void make_block(void *ctx, size_t task, int worker)
{
    const gen_job *job = ctx;
    gen_block *b = &job->blocks[task];
    b->len = 0;
    b->nnz = 0;
    for (uint64_t d = b->first_doc; d < b->end_doc && !b->no_memory; d++)
        b->no_memory = make_document(job, &job->scratch[worker], b, d) != 0;
}

/* ---- lengths, memory, scratch ---- */

typedef struct {
    const lda_generate_options *o;
    uint32_t *lengths;
} length_job;

static void draw_lengths(void *ctx, size_t task, int worker)
{
    (void)worker;
    const length_job *job = ctx;
    const uint64_t first = (uint64_t)task * LENGTH_TASK, D = job->o->num_docs;
    for (uint64_t d = first; d < first + LENGTH_TASK && d < D; d++)
        job->lengths[d] = lda_doc_length(&job->o->lengths, job->o->seed, d);
}

/* What the run holds besides its blocks, planned before anything large is allocated. */
static int check_memory(const lda_generate_options *o, int threads, lda_error *err)
{
    const double KV = (double)o->num_topics * o->vocab_size;
    const double need = KV * (sizeof(float) + sizeof(lda_alias_entry)) + (double)o->num_docs * sizeof(uint32_t) +
                        (o->want_theta ? (double)o->num_docs * o->num_topics * sizeof(float) : 0.0) +
                        (double)threads * o->vocab_size * 3 * sizeof(uint32_t);
    uint64_t have;
    if (lda_memory_available(&have, err))
        return -1;
    if (need <= (double)have)
        return 0;
    char need_text[32], have_text[32];
    lda_error_fail(err, "not enough memory: %u topics over %u words%s need %s, and %s are available", o->num_topics,
                   o->vocab_size, o->want_theta ? " and θ of every document" : "",
                   lda_size_text((uint64_t)need, need_text), lda_size_text(have, have_text));
    return -1;
}

static void free_scratch(gen_scratch *s, int threads)
{
    for (int t = 0; s && t < threads; t++) {
        free(s[t].counts);
        free(s[t].distinct);
        free(s[t].sort_tmp);
        free(s[t].topics);
        free(s[t].topic_counts);
        free(s[t].word_bits);
        free(s[t].theta);
    }
    free(s);
}

static gen_scratch *make_scratch(int threads, uint32_t K, uint32_t V, uint32_t longest, int want_theta,
                                 lda_error *err)
{
    const uint32_t most_distinct = longest < V ? longest : V;
    gen_scratch *s = lda_calloc((size_t)threads, sizeof *s, "generator scratch", err);
    for (int t = 0; s && t < threads; t++) {
        gen_scratch *w = &s[t];
        if (!(w->counts = lda_calloc(V, sizeof *w->counts, "word counts", err)) ||
            !(w->distinct = lda_malloc_array(most_distinct, sizeof(uint32_t), "document words", err)) ||
            !(w->sort_tmp = lda_malloc_array(most_distinct, sizeof(uint32_t), "document words", err)) ||
            !(w->topics = lda_malloc_array(longest, sizeof(uint32_t), "document topics", err)) ||
            !(w->word_bits = lda_malloc_array(longest, sizeof(uint64_t), "document topics", err)) ||
            (want_theta && (!(w->topic_counts = lda_calloc(K, sizeof(uint32_t), "theta", err)) ||
                            !(w->theta = lda_malloc_array(K, sizeof(double), "theta", err))))) {
            free_scratch(s, threads);
            return NULL;
        }
    }
    return s;
}

/* ---- rounds: one made while the last is written ---- */

typedef struct {
    gen_output *out;
    gen_block *blocks;
    size_t count;
    int rc;
    lda_error err;
} round_writer;

static void *write_round(void *p)
{
    round_writer *w = p;
    for (size_t i = 0; i < w->count && w->rc == 0; i++)
        w->rc = gen_output_write(w->out, w->blocks[i].bytes, w->blocks[i].len, w->blocks[i].nnz, &w->err);
    return NULL;
}

/* Splits the documents into blocks of about BLOCK_TOKENS; returns their first documents
 * (num + 1 entries, the last D). */
static uint64_t *block_starts(const uint32_t *lengths, uint64_t D, size_t *num, lda_error *err)
{
    uint64_t total = 0;
    for (uint64_t d = 0; d < D; d++)
        total += lengths[d];
    uint64_t *starts = lda_malloc_array(total / BLOCK_TOKENS + 2, sizeof *starts, "blocks", err);
    if (!starts)
        return NULL;
    size_t n = 0;
    uint64_t in_block = 0;
    starts[n++] = 0;
    for (uint64_t d = 0; d < D; d++)
        if ((in_block += lengths[d]) >= BLOCK_TOKENS && d + 1 < D) {
            starts[n++] = d + 1;
            in_block = 0;
        }
    starts[n] = D;
    *num = n;
    return starts;
}

static int make_documents(gen_job *job, lda_pool *pool, gen_output *out, lda_error *err)
{
    const int threads = lda_pool_threads(pool);
    const size_t per_round = (size_t)threads * BLOCKS_PER_THREAD;
    size_t num_blocks;
    uint64_t *starts = block_starts(job->lengths, job->o->num_docs, &num_blocks, err);
    gen_block *sets = starts ? lda_calloc(2 * per_round, sizeof *sets, "blocks", err) : NULL;
    round_writer writer = {out, NULL, 0, 0, {{0}, 0}};
    pthread_t writing;
    int rc = sets ? 0 : -1, running = 0;
    for (size_t first = 0, round = 0; rc == 0 && first < num_blocks; first += per_round, round++) {
        gen_block *set = sets + (round % 2) * per_round;
        const size_t count = num_blocks - first < per_round ? num_blocks - first : per_round;
        for (size_t i = 0; i < count; i++) {
            set[i].first_doc = starts[first + i];
            set[i].end_doc = starts[first + i + 1];
        }
        job->blocks = set;
        lda_pool_run(pool, count, make_block, job);
        for (size_t i = 0; i < count && rc == 0; i++)
            if (set[i].no_memory) {
                lda_error_fail(err, "out of memory (the documents of a block)");
                rc = -1;
            }
        if (running)
            pthread_join(writing, NULL);
        running = 0;
        if (writer.rc) {
            *err = writer.err;
            rc = -1;
        }
        if (rc == 0) {
            writer.blocks = set;
            writer.count = count;
            if (pthread_create(&writing, NULL, write_round, &writer) != 0)
                write_round(&writer); /* no thread to spare: write it now */
            else
                running = 1;
        }
    }
    if (running)
        pthread_join(writing, NULL);
    if (rc == 0 && writer.rc) {
        *err = writer.err;
        rc = -1;
    }
    for (size_t i = 0; sets && i < 2 * per_round; i++)
        free(sets[i].bytes);
    free(sets);
    free(starts);
    return rc;
}

/* ---- the whole corpus ---- */

static int check_corpus_size(const lda_generate_options *o, const uint32_t *lengths, uint32_t *longest,
                             uint64_t *tokens, lda_error *err)
{
    *tokens = 0;
    *longest = 0;
    for (uint64_t d = 0; d < o->num_docs; d++) {
        *tokens += lengths[d];
        *longest = lengths[d] > *longest ? lengths[d] : *longest;
    }
    if (*tokens <= CORPUS_MAX_TOKENS)
        return 0;
    lda_error_input(err, "%llu documents of mean length %g came to %llu tokens, more than the %llu a corpus may "
                    "have: ask for fewer or shorter documents",
                    (unsigned long long)o->num_docs, o->lengths.mean, (unsigned long long)*tokens,
                    (unsigned long long)CORPUS_MAX_TOKENS);
    return -1;
}

static char *with_suffix(const char *path, const char *suffix, lda_error *err)
{
    char *p = NULL;
    if (asprintf(&p, "%s%s", path, suffix) < 0) {
        lda_error_fail(err, "out of memory");
        return NULL;
    }
    return p;
}

int lda_generate(const lda_generate_options *o, lda_generate_result *result, lda_error *err)
{
    memset(result, 0, sizeof *result);
    if (o->format != CORPUS_FORMAT_UCI && o->format != CORPUS_FORMAT_BINARY) {
        lda_error_input(err, "a generated corpus is written as uci or binary, not %s", corpus_format_name(o->format));
        return -1;
    }
    lda_pool *pool = NULL;
    uint32_t *lengths = NULL, longest;
    float *theta = NULL;
    gen_scratch *scratch = NULL;
    lda_planted_topics topics = {0};
    gen_output out = {0};
    int rc = -1;
    if (!(result->phi_path = with_suffix(o->output, ".phi.npy", err)) ||
        (o->want_theta && !(result->theta_path = with_suffix(o->output, ".theta.npy", err))) ||
        !(pool = lda_pool_create(o->threads, err)) || check_memory(o, lda_pool_threads(pool), err) ||
        !(lengths = lda_malloc_array(o->num_docs, sizeof *lengths, "document lengths", err)))
        goto out;
    length_job lj = {o, lengths};
    lda_pool_run(pool, (size_t)((o->num_docs + LENGTH_TASK - 1) / LENGTH_TASK), draw_lengths, &lj);
    const double t0 = lda_now_seconds();
    if (check_corpus_size(o, lengths, &longest, &result->num_tokens, err) ||
        (o->want_theta && !(theta = lda_malloc_array(o->num_docs * o->num_topics, sizeof *theta, "theta", err))) ||
        lda_planted_topics_draw(&topics, o->num_topics, o->vocab_size, o->beta, o->seed, pool, err))
        goto out;
    result->topics_seconds = lda_now_seconds() - t0;
    if (!(scratch = make_scratch(lda_pool_threads(pool), o->num_topics, o->vocab_size, longest, o->want_theta,
                                 err)) ||
        gen_output_open(&out, o->output, o->format, o->num_docs, lengths, o->vocab_size, err))
        goto out;
    gen_job job = {o, &topics, lengths, theta, NULL, scratch};
    if (make_documents(&job, pool, &out, err) || gen_output_close(&out, err))
        goto out;
    if (lda_matrix_write(result->phi_path, LDA_MATRIX_F32, o->num_topics, o->vocab_size, topics.phi, err) ||
        (theta && lda_matrix_write(result->theta_path, LDA_MATRIX_F32, o->num_docs, o->num_topics, theta, err)))
        goto out;
    rc = 0;
out:
    if (rc)
        gen_output_abort(&out); /* what was not completed; nothing once closed */
    free_scratch(scratch, pool ? lda_pool_threads(pool) : 0);
    lda_planted_topics_free(&topics);
    free(theta);
    free(lengths);
    lda_pool_destroy(pool);
    if (rc)
        lda_generate_result_free(result);
    return rc;
}

void lda_generate_result_free(lda_generate_result *result)
{
    free(result->phi_path);
    free(result->theta_path);
    result->phi_path = result->theta_path = NULL;
}
