/* sampler_sparse_impl.h — the body of the sparse draw for one precision; included by
 * sampler_sparse.c with REAL and SUFFIX defined (as sampler_cpu_impl.h is). */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static void CAT(word_prior_blocks_, SUFFIX)(void *vctx, size_t task, int worker)
{
    (void)worker;
    const prefix_ctx *c = vctx;
    const uint32_t K = c->in->K, blocks = prior_blocks(K);
    const size_t w_end = (task + 1) * PREFIX_WORDS_A_TASK < c->V ? (task + 1) * PREFIX_WORDS_A_TASK : c->V;
    for (size_t w = task * PREFIX_WORDS_A_TASK; w < w_end; w++) {
        const float *ph = c->in->phi + w * K;
        REAL *out = (REAL *)c->table + w * blocks, sum = 0;
        for (uint32_t k = 0; k < K; k++) {
            sum += (REAL)c->in->alpha[k] * (REAL)ph[k];
            if (k % PRIOR_BLOCK == PRIOR_BLOCK - 1 || k == K - 1)
                out[k / PRIOR_BLOCK] = sum;
        }
    }
}

/* The smallest k with target < Σ_{j<=k} α_j φ[j] (target below the total): a binary search
 * of the block ends, then the block's sums formed again from the end of the one before, by
 * the same additions, so the topic is the full prefix search's. */
static uint32_t CAT(search_prior_, SUFFIX)(const REAL *block_end, const float *alpha, const float *ph, uint32_t K,
                                         REAL target)
{
    const uint32_t b = (uint32_t)CAT(lda_binary_search_, SUFFIX)(block_end, (int)prior_blocks(K), target);
    const uint32_t k0 = b * PRIOR_BLOCK, k1 = k0 + PRIOR_BLOCK < K ? k0 + PRIOR_BLOCK : K;
    REAL sum = b ? block_end[b - 1] : (REAL)0;
    for (uint32_t k = k0; k < k1 - 1; k++) {
        sum += (REAL)alpha[k] * (REAL)ph[k];
        if (target < sum)
            return k;
    }
    return k1 - 1;
}

/* Inserts topic into the sorted list of m topics; returns the new length. */
static uint32_t CAT(insert_sorted_, SUFFIX)(uint32_t *topics, uint32_t m, uint32_t topic)
{
    uint32_t j = m;
    while (j > 0 && topics[j - 1] > topic) {
        topics[j] = topics[j - 1];
        j--;
    }
    topics[j] = topic;
    return m + 1;
}

static void CAT(sample_doc_sparse_, SUFFIX)(const sparse_ctx *c, size_t s, const doc_scratch *d)
{
    const lda_layout *L = c->layout;
    const uint32_t K = c->in->K, len = L->slot_len[s], blocks = prior_blocks(K);
    const float *alpha = c->in->alpha;
    uint32_t *n = c->in->n_mk + s * K;
    REAL *cum = (REAL *)d->cum;
    uint32_t m = document_topics(c, s, d);
    for (uint32_t i = 0; i < len; i++) {
        const size_t pos = lda_layout_pos(L, s, i);
        const uint32_t w = L->words[pos];
        const float *ph = c->in->phi + (size_t)w * K;
        const REAL *block_end = (const REAL *)c->in->word_prior + (size_t)w * blocks;
        if (i + 1 < len) { /* the next token's φ entries: their loads overlap this token's work */
            const uint32_t next = L->words[lda_layout_pos(L, s, i + 1)];
            const float *nph = c->in->phi + (size_t)next * K;
            for (uint32_t j = 0; j < m; j++)
                __builtin_prefetch(nph + d->topics[j]);
            __builtin_prefetch((const REAL *)c->in->word_prior + (size_t)next * blocks + blocks / 2);
        }
        n[c->z[pos]]--;
        REAL sparse = 0;
        for (uint32_t j = 0; j < m; j++) {
            const uint32_t k = d->topics[j];
            sparse += (REAL)n[k] * (REAL)ph[k];
            cum[j] = sparse;
        }
        const REAL dense = block_end[blocks - 1];
        const uint32_t bits = lda_rng_once(c->in->seed, LDA_RNG_Z, c->in->iteration, L->slot_token_base[s] + i);
        const REAL target = CAT(lda_scaled_target_, SUFFIX)(sparse + dense, CAT(lda_uniform_, SUFFIX)(bits));
        uint32_t topic;
        if (target < sparse)
            topic = d->topics[CAT(lda_binary_search_, SUFFIX)(cum, (int)m, target)];
        else
            topic = CAT(search_prior_, SUFFIX)(block_end, alpha, ph, K,
                                               CAT(lda_sparse_dense_target_, SUFFIX)(target, sparse, dense));
        c->z[pos] = topic;
        if (!d->listed[topic]) {
            d->listed[topic] = 1;
            m = CAT(insert_sorted_, SUFFIX)(d->topics, m, topic);
        }
        n[topic]++;
    }
    for (uint32_t j = 0; j < m; j++)
        d->listed[d->topics[j]] = 0;
}

static void CAT(sample_warp_sparse_, SUFFIX)(void *vctx, size_t q, int worker)
{
    const sparse_ctx *c = vctx;
    q = q * c->part_count + c->in->part; /* the task's warp within this part */
    const doc_scratch d = worker_scratch(c, worker);
    for (uint32_t r = 0; r < LDA_WARP; r++)
        CAT(sample_doc_sparse_, SUFFIX)(c, q * LDA_WARP + r, &d);
}

#undef CAT
#undef CAT_
