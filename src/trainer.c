/* trainer.c — the training driver. It talks to the backend only through backend.h, so the
 * same loop runs on the CPU and on the GPU. */
#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "atomic_file.h"
#include "backend.h"
#include "layout.h"
#include "model.h"
#include "train_log.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_corpus_summary(const lda_train_options *o, const corpus *c, double seconds)
{
    fprintf(stderr, "ldagpu: read %s (%s): %zu documents", o->corpus_path, corpus_format_name(c->format),
            c->num_docs);
    if (c->num_empty_docs)
        fprintf(stderr, " (%zu empty, skipped)", c->num_empty_docs);
    fprintf(stderr, ", %zu tokens, %u words in %.2f s\n", c->num_tokens, c->vocab_size, seconds);
}

static int save_model(const lda_train_options *o, const corpus *c, const lda_layout *L, lda_backend *b,
                      uint32_t iterations, const lda_train_log *log, lda_error *err)
{
    const size_t K = b->params.num_topics;
    float *theta = lda_malloc_array(L->num_slots * K, sizeof(float), "theta", err);
    float *phi = lda_malloc_array((size_t)L->vocab_size * K, sizeof(float), "phi", err);
    uint32_t *z = lda_malloc_array(L->num_positions, sizeof(uint32_t), "z", err);
    uint32_t *n_k = lda_malloc_array(K, sizeof(uint32_t), "topic counts", err);
    char *csv = lda_path_join(o->output_dir, "log.csv", err);
    lda_model m = {0};
    int rc = -1;
    if (!theta || !phi || !z || !n_k || !csv)
        goto out;
    if (b->ops->fetch(b, theta, phi, z, err) || b->ops->fetch_counts(b, NULL, NULL, n_k, err) ||
        lda_model_from_state(&m, c, L, &b->params, iterations, o->corpus_path, theta, phi, z, n_k, err) ||
        lda_model_write(&m, o->output_dir, o->top_words, err) || lda_train_log_write_csv(log, csv, err))
        goto out;
    rc = 0;
out:
    lda_model_free(&m);
    free(theta);
    free(phi);
    free(z);
    free(n_k);
    free(csv);
    return rc;
}

static int evaluate_into(lda_backend *b, lda_log_row *row, lda_error *err)
{
    row->evaluated = 1;
    return b->ops->evaluate(b, &row->eval, err);
}

static int run_iterations(const lda_train_options *o, const lda_layout *L, lda_backend *b, lda_train_log *log,
                          lda_error *err)
{
    const uint32_t n = o->params.iterations, every = o->params.eval_every;
    lda_log_row row = {0};
    if (every && evaluate_into(b, &row, err))
        return -1;
    if (every && lda_train_log_add(log, &row, err))
        return -1;
    double train_seconds = 0.0;
    for (uint32_t it = 1; it <= n; it++) {
        lda_log_row r = {.iteration = it};
        double t0 = now_seconds();
        if (b->ops->iterate(b, it, &r.timing, err))
            return -1;
        r.seconds = now_seconds() - t0;
        train_seconds += r.seconds;
        r.train_seconds = train_seconds;
        r.tokens_per_second = r.seconds > 0 ? (double)L->num_tokens / r.seconds : 0.0;
        if (((every && it % every == 0) || it == n) && evaluate_into(b, &r, err))
            return -1;
        if (lda_train_log_add(log, &r, err))
            return -1;
    }
    lda_train_log_finish(log);
    if (n)
        fprintf(stderr, "ldagpu: %u iterations in %.2f s (%.4f s per iteration, %.2f M tokens/s)\n", n,
                train_seconds, train_seconds / n, (double)L->num_tokens * n / train_seconds / 1e6);
    return 0;
}

int lda_train(const lda_train_options *o, lda_error *err)
{
    lda_layout *L = NULL;
    lda_backend *b = NULL;
    lda_train_log log;
    lda_train_log_init(&log, o->quiet ? NULL : stderr, 0, o->params.iterations);
    int rc = -1;

    double t0 = now_seconds();
    corpus *c = corpus_read(o->corpus_path, &o->corpus, err);
    if (!c)
        goto out;
    print_corpus_summary(o, c, now_seconds() - t0);
    if (o->params.device == LDA_DEVICE_AUTO) {
        char why[256];
        if (lda_cuda_device_count(why, sizeof why) == 0)
            fprintf(stderr, "ldagpu: --device auto: %s; training on the CPU\n", why);
    }
    if (!(L = lda_layout_build(c, err)) || !(b = lda_backend_create(L, &o->params, err)))
        goto out;
    fprintf(stderr, "ldagpu: training K=%u on %s: model %s, alpha %g, beta %g, %u iterations, precision %s, seed %llu\n",
            b->params.num_topics, b->description, lda_choice_name(lda_model_choices, lda_params_model(&b->params)),
            b->params.alpha, b->params.beta, o->params.iterations,
            lda_choice_name(lda_precision_choices, b->params.precision), (unsigned long long)b->params.seed);
    if (b->ops->start(b, NULL, 0, err) || run_iterations(o, L, b, &log, err) ||
        save_model(o, c, L, b, o->params.iterations, &log, err))
        goto out;
    fprintf(stderr, "ldagpu: model written to %s/ (top words in %s/topics.txt)\n", o->output_dir, o->output_dir);
    rc = 0;
out:
    lda_train_log_free(&log);
    lda_backend_destroy(b);
    lda_layout_free(L);
    corpus_free(c);
    return rc;
}
