/* backend.c — the backend a run asks for: one device's, or shards over several
 * (backend_sharded.c, which makes each shard's with lda_backend_create_one); see backend.h. */
#include "backend/backend.h"

lda_backend *lda_backend_create(const lda_layout *L, const lda_params *params, lda_error *err)
{
    if (params->shards <= 1)
        return lda_backend_create_one(L, params, err);
    lda_params p = *params;
    p.alpha = lda_params_alpha(params);
    lda_zplan_resolve_sampler(&p);
    return lda_backend_with_priors(lda_sharded_backend_create(L, &p, err), err);
}
