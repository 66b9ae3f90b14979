/* train_log.c — see train_log.h. */
#include "train_log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"

void lda_train_log_init(lda_train_log *log, FILE *out, uint32_t first, uint32_t last)
{
    memset(log, 0, sizeof *log);
    log->out = out;
    log->progress = out && isatty(fileno(out));
    log->first = first;
    log->last = last;
}

static void draw_progress(const lda_train_log *log, const lda_log_row *row)
{
    enum { WIDTH = 30 };
    uint32_t total = log->last > log->first ? log->last - log->first : 1;
    uint32_t done = row->iteration - log->first;
    int filled = (int)((double)WIDTH * done / total);
    double per_iteration = done ? row->train_seconds / done : 0.0;
    fprintf(log->out, "[%.*s%*s] %u/%u  %.3f s/it  ETA %.0f s", filled, "##############################",
            WIDTH - filled, "", row->iteration, log->last, per_iteration, per_iteration * (total - done));
    fflush(log->out);
}

int lda_train_log_add(lda_train_log *log, const lda_log_row *row, lda_error *err)
{
    if (log->count == log->cap) {
        size_t cap = log->cap ? 2 * log->cap : 128;
        lda_log_row *rows = realloc(log->rows, cap * sizeof *rows);
        if (!rows) {
            lda_error_fail(err, "out of memory (training log)");
            return -1;
        }
        log->rows = rows;
        log->cap = cap;
    }
    log->rows[log->count++] = *row;
    if (!log->out)
        return 0;
    if (log->progress)
        fputs("\r\033[K", log->out);
    if (row->iteration == 0)
        fprintf(log->out, "iter %4u  initial state %38s", row->iteration, "");
    else
        fprintf(log->out, "iter %4u  %8.4f s  %7.2f Mtok/s  (z %.4f s, update %.4f s)", row->iteration,
                row->seconds, row->tokens_per_second / 1e6, row->timing.z_seconds, row->timing.update_seconds);
    if (row->evaluated)
        fprintf(log->out, "  loglik %.4f  joint %.4f", row->eval.loglik_pred, row->eval.loglik_joint);
    fputc('\n', log->out);
    if (log->progress && row->iteration < log->last)
        draw_progress(log, row);
    return 0;
}

void lda_train_log_finish(lda_train_log *log)
{
    if (log->out && log->progress)
        fputs("\r\033[K", log->out);
}

int lda_train_log_write_csv(const lda_train_log *log, const char *path, lda_error *err)
{
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    fprintf(af.f, "iteration,seconds,train_seconds,tokens_per_second,z_seconds,update_seconds,loglik_pred,"
                  "loglik_joint\n");
    for (size_t i = 0; i < log->count; i++) {
        const lda_log_row *r = &log->rows[i];
        fprintf(af.f, "%u,%.6f,%.6f,%.0f,%.6f,%.6f,", r->iteration, r->seconds, r->train_seconds,
                r->tokens_per_second, r->timing.z_seconds, r->timing.update_seconds);
        if (r->evaluated)
            fprintf(af.f, "%.6f,%.6f\n", r->eval.loglik_pred, r->eval.loglik_joint);
        else
            fprintf(af.f, ",\n");
    }
    return lda_atomic_commit(&af, err);
}

void lda_train_log_free(lda_train_log *log)
{
    free(log->rows);
    memset(log, 0, sizeof *log);
}
