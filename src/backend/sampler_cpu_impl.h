/* sampler_cpu_impl.h — the body of the CPU z draw for one precision. Included by
 * sampler_cpu.c once per precision with REAL (float|double) and SUFFIX defined; C has no
 * templates, and this keeps one copy of the logic.
 *
 * With θ given, tokens of one document are drawn TOKENS_AT_ONCE at a time: the prefix sums
 * are sequential additions, and interleaving independent tokens hides their latency without
 * changing any result (each token's sums are still formed left to right). With θ collapsed
 * each draw depends on the previous one, so tokens go one by one. */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static uint32_t CAT(draw_, SUFFIX)(const zdraw_ctx *c, const REAL *p, REAL total, uint64_t token)
{
    uint32_t bits = lda_rng_once(c->in->seed, LDA_RNG_Z, c->in->iteration, token);
    REAL target = CAT(lda_scaled_target_, SUFFIX)(total, CAT(lda_uniform_, SUFFIX)(bits));
    return (uint32_t)CAT(lda_binary_search_, SUFFIX)(p, (int)c->in->K, target);
}

static void CAT(sample_doc_given_, SUFFIX)(const zdraw_ctx *c, size_t s, REAL *p)
{
    const lda_layout *L = c->layout;
    const uint32_t K = c->in->K, len = L->slot_len[s];
    const float *th = c->in->theta + s * K;
    for (uint32_t i0 = 0; i0 < len; i0 += TOKENS_AT_ONCE) {
        const uint32_t n = len - i0 < TOKENS_AT_ONCE ? len - i0 : TOKENS_AT_ONCE;
        const float *ph[TOKENS_AT_ONCE];
        size_t pos[TOKENS_AT_ONCE];
        REAL sum[TOKENS_AT_ONCE];
        for (uint32_t t = 0; t < TOKENS_AT_ONCE; t++) {
            /* Past the document's end, repeat its last token (results discarded). */
            pos[t] = lda_layout_pos(L, s, i0 + (t < n ? t : n - 1));
            ph[t] = c->in->phi + (size_t)L->words[pos[t]] * K;
            sum[t] = 0;
        }
        for (uint32_t k = 0; k < K; k++) {
            const REAL tk = (REAL)th[k];
            for (uint32_t t = 0; t < TOKENS_AT_ONCE; t++) {
                sum[t] += tk * (REAL)ph[t][k];
                p[t * K + k] = sum[t];
            }
        }
        for (uint32_t t = 0; t < n; t++)
            c->z[pos[t]] = CAT(draw_, SUFFIX)(c, p + t * K, sum[t], L->slot_token_base[s] + i0 + t);
    }
}

static void CAT(sample_doc_collapsed_, SUFFIX)(const zdraw_ctx *c, size_t s, REAL *p)
{
    const lda_layout *L = c->layout;
    const uint32_t K = c->in->K, len = L->slot_len[s];
    const float *alpha = c->in->alpha;
    uint32_t *n = c->in->n_mk + s * K;
    for (uint32_t i = 0; i < len; i++) {
        const size_t pos = lda_layout_pos(L, s, i);
        const float *ph = c->in->phi + (size_t)L->words[pos] * K;
        n[c->z[pos]]--;
        REAL sum = 0;
        for (uint32_t k = 0; k < K; k++) {
            sum += ((REAL)n[k] + (REAL)alpha[k]) * (REAL)ph[k];
            p[k] = sum;
        }
        const uint32_t topic = CAT(draw_, SUFFIX)(c, p, sum, L->slot_token_base[s] + i);
        c->z[pos] = topic;
        n[topic]++;
    }
}

static void CAT(sample_warp_, SUFFIX)(void *vctx, size_t q, int worker)
{
    const zdraw_ctx *c = vctx;
    q = q * c->part_count + c->in->part; /* the task's warp within this part */
    REAL *p = (REAL *)c->scratch + (size_t)worker * TOKENS_AT_ONCE * c->in->K;
    for (uint32_t r = 0; r < LDA_WARP; r++) {
        if (c->in->n_mk)
            CAT(sample_doc_collapsed_, SUFFIX)(c, q * LDA_WARP + r, p);
        else
            CAT(sample_doc_given_, SUFFIX)(c, q * LDA_WARP + r, p);
    }
}

#undef CAT
#undef CAT_
