/* threadpool.c — see threadpool.h. Workers sleep on a condition variable between jobs;
 * a job is one (fn, ctx, num_tasks) triple whose tasks are claimed with an atomic counter. */
#include "util/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

struct lda_pool {
    int threads;
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    unsigned long generation; /* bumped for every job */
    int busy;                 /* workers still inside the current job */
    int quit;
    lda_task_fn fn;
    void *ctx;
    size_t num_tasks;
    atomic_size_t next_task;
};

typedef struct {
    lda_pool *pool;
    int worker;
} worker_arg;

static void run_tasks(lda_pool *pool, int worker)
{
    for (;;) {
        size_t t = atomic_fetch_add(&pool->next_task, 1);
        if (t >= pool->num_tasks)
            return;
        pool->fn(pool->ctx, t, worker);
    }
}

static void *worker_main(void *p)
{
    worker_arg *arg = p;
    lda_pool *pool = arg->pool;
    int worker = arg->worker;
    free(arg);
    unsigned long seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->quit && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->quit)
            break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        run_tasks(pool, worker);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

lda_pool *lda_pool_create(int threads, lda_error *err)
{
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    lda_pool *pool = lda_calloc(1, sizeof *pool, "thread pool", err);
    if (!pool)
        return NULL;
    pool->threads = threads;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    if (threads > 1 && !(pool->workers = lda_calloc((size_t)threads - 1, sizeof *pool->workers, "threads", err)))
        goto fail;
    for (int i = 1; i < threads; i++) {
        worker_arg *arg = lda_malloc(sizeof *arg, "thread", err);
        if (!arg) {
            pool->threads = i; /* only workers 1..i-1 exist to be joined */
            goto fail;
        }
        arg->pool = pool;
        arg->worker = i;
        if (pthread_create(&pool->workers[i - 1], NULL, worker_main, arg) != 0) {
            free(arg);
            lda_error_errno(err, "cannot start a worker thread");
            pool->threads = i;
            goto fail;
        }
    }
    return pool;
fail:
    lda_pool_destroy(pool);
    return NULL;
}

int lda_pool_threads(const lda_pool *pool)
{
    return pool->threads;
}

void lda_pool_run(lda_pool *pool, size_t num_tasks, lda_task_fn fn, void *ctx)
{
    if (pool->threads == 1 || num_tasks <= 1) {
        for (size_t t = 0; t < num_tasks; t++)
            fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->num_tasks = num_tasks;
    atomic_store(&pool->next_task, 0);
    pool->busy = pool->threads - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    run_tasks(pool, 0);

    pthread_mutex_lock(&pool->lock);
    while (pool->busy > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

void lda_pool_destroy(lda_pool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i < pool->threads; i++)
        if (pool->workers)
            pthread_join(pool->workers[i - 1], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    free(pool->workers);
    free(pool);
}
