/* threadpool.h — a fixed set of worker threads running numbered tasks.
 *
 * lda_pool_run(pool, n, fn, ctx) calls fn(ctx, task, worker) once for every task in
 * [0, n), spread over the workers (the caller works too), and returns when all are done.
 * Tasks are claimed dynamically, so results must not depend on which worker runs a task:
 * every task writes only its own outputs, and any floating-point reduction is over a fixed
 * partition combined in a fixed order. That is what makes ldagpu's results the same for
 * any thread count. `worker` (0..threads-1) selects per-worker scratch space. */
#ifndef LDA_THREADPOOL_H
#define LDA_THREADPOOL_H

#include <stddef.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lda_pool lda_pool;
typedef void (*lda_task_fn)(void *ctx, size_t task, int worker);

/* threads <= 0: one per online CPU. */
lda_pool *lda_pool_create(int threads, lda_error *err);
int lda_pool_threads(const lda_pool *pool);
void lda_pool_run(lda_pool *pool, size_t num_tasks, lda_task_fn fn, void *ctx);
void lda_pool_destroy(lda_pool *pool);

#ifdef __cplusplus
}
#endif

#endif
