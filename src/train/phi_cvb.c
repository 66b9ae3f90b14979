/* phi_cvb.c — the topics polished by CVB0 from the last sample; see phi_cvb.h. */
#include "train/phi_cvb.h"

#include "train/cvb_start.h"
#include "util/threadpool.h"

uint32_t lda_phi_cvb_passes(uint32_t asked, uint32_t iterations)
{
    return iterations < asked ? iterations : asked;
}

int lda_phi_cvb(const corpus *c, const uint32_t *z, uint32_t K, const lda_priors *priors, int threads,
                uint32_t passes, float *phi_vk, lda_error *err)
{
    lda_pool *pool = lda_pool_create(threads, err);
    if (!pool)
        return -1;
    lda_cvb_state s;
    const int rc = lda_cvb_run(&s, c, priors, K, 0, z, passes, pool, err); /* the seed is not used: γ is z's */
    if (!rc) {
        lda_cvb_phi(&s, priors, phi_vk);
        lda_cvb_free(&s);
    }
    lda_pool_destroy(pool);
    return rc;
}

uint64_t lda_phi_cvb_bytes(uint64_t num_tokens, uint64_t num_docs, uint32_t vocab_size, uint32_t K)
{
    return lda_cvb_bytes(num_tokens, num_docs, vocab_size, K);
}
