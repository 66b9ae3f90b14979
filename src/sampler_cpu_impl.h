/* sampler_cpu_impl.h — the body of the CPU z draw for one precision. Included by
 * sampler_cpu.c once per precision with REAL (float|double) and SUFFIX defined; C has no
 * templates, and this keeps one copy of the logic.
 *
 * Tokens of one document are drawn TOKENS_AT_ONCE at a time: the prefix sums are
 * sequential additions, and interleaving independent tokens hides their latency without
 * changing any result (each token's sums are still formed left to right). */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static void CAT(sample_warp_, SUFFIX)(void *vctx, size_t q, int worker)
{
    const zdraw_ctx *c = vctx;
    const lda_layout *L = c->layout;
    const uint32_t K = c->K;
    REAL *p = (REAL *)c->scratch + (size_t)worker * TOKENS_AT_ONCE * K;
    for (uint32_t r = 0; r < LDA_WARP; r++) {
        const size_t s = q * LDA_WARP + r;
        const uint32_t len = L->slot_len[s];
        const float *th = c->theta + s * K;
        for (uint32_t i0 = 0; i0 < len; i0 += TOKENS_AT_ONCE) {
            const uint32_t n = len - i0 < TOKENS_AT_ONCE ? len - i0 : TOKENS_AT_ONCE;
            const float *ph[TOKENS_AT_ONCE];
            size_t pos[TOKENS_AT_ONCE];
            REAL sum[TOKENS_AT_ONCE];
            for (uint32_t t = 0; t < TOKENS_AT_ONCE; t++) {
                /* Past the document's end, repeat its last token (results discarded). */
                pos[t] = lda_layout_pos(L, s, i0 + (t < n ? t : n - 1));
                ph[t] = c->phi + (size_t)L->words[pos[t]] * K;
                sum[t] = 0;
            }
            for (uint32_t k = 0; k < K; k++) {
                const REAL tk = (REAL)th[k];
                for (uint32_t t = 0; t < TOKENS_AT_ONCE; t++) {
                    sum[t] += tk * (REAL)ph[t][k];
                    p[t * K + k] = sum[t];
                }
            }
            for (uint32_t t = 0; t < n; t++) {
                uint32_t bits = lda_rng_once(c->seed, LDA_RNG_Z, c->iteration, L->slot_token_base[s] + i0 + t);
                REAL target = CAT(lda_scaled_target_, SUFFIX)(sum[t], CAT(lda_uniform_, SUFFIX)(bits));
                c->z[pos[t]] = (uint32_t)CAT(lda_binary_search_, SUFFIX)(p + t * K, (int)K, target);
            }
        }
    }
}

#undef CAT
#undef CAT_
