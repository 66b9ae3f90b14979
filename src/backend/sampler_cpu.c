/* sampler_cpu.c — the CPU reference z draw; see sampler_cpu.h. One task per warp of the
 * layout; each worker has its own prefix-sum scratch. */
#include "backend/sampler_cpu.h"

#include <stdlib.h>

#include "backend/sampler_alias.h"
#include "backend/sampler_sparse.h"
#include "backend/sampler_sparselda.h"
#include "core/rng.h"
#include "core/search.h"

#define TOKENS_AT_ONCE 4

typedef struct {
    const lda_layout *layout;
    const lda_zdraw *in;
    uint32_t *z;
    void *scratch; /* threads × TOKENS_AT_ONCE × K REALs */
    size_t part_count;
} zdraw_ctx;

#define REAL float
#define SUFFIX float
#include "backend/sampler_cpu_impl.h"
#undef REAL
#undef SUFFIX

#define REAL double
#define SUFFIX double
#include "backend/sampler_cpu_impl.h"
#undef REAL
#undef SUFFIX

int lda_cpu_sample_z(lda_pool *pool, const lda_layout *L, const lda_zdraw *in, uint32_t *z, lda_error *err)
{
    if (in->sparselda)
        return lda_cpu_sample_z_sparselda(pool, L, in, z, err);
    if (in->alias)
        return lda_cpu_sample_z_alias(pool, L, in, z, err);
    if (in->word_prior)
        return lda_cpu_sample_z_sparse(pool, L, in, z, err);
    const int dbl = in->precision == LDA_PRECISION_DOUBLE;
    zdraw_ctx c = {L, in, z, NULL, in->part_count ? in->part_count : 1};
    const size_t warps = lda_part_warps(L->num_warps, in->part, (uint32_t)c.part_count);
    if (warps == 0)
        return 0; /* a part with no warps */
    c.scratch = lda_malloc_array((size_t)lda_pool_threads(pool) * TOKENS_AT_ONCE * in->K,
                                 dbl ? sizeof(double) : sizeof(float), "prefix sums", err);
    if (!c.scratch)
        return -1;
    lda_pool_run(pool, warps, dbl ? sample_warp_double : sample_warp_float, &c);
    free(c.scratch);
    return 0;
}
