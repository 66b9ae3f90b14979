/* train_log.c — see train_log.h. */
#include "model/train_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomic_file.h"

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
    if (row->iteration && row->timing.copy_wait_seconds > 0)
        fprintf(log->out, "  copies not hidden %.4f s", row->timing.copy_wait_seconds);
    if (row->evaluated)
        fprintf(log->out, "  loglik %.4f  joint %.4f", row->eval.loglik_pred, row->eval.loglik_joint);
    if (row->heldout_evaluated)
        fprintf(log->out, "  heldout %.4f", row->loglik_heldout);
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
                  "loglik_joint,loglik_heldout,phi_seconds\n");
    for (size_t i = 0; i < log->count; i++) {
        const lda_log_row *r = &log->rows[i];
        fprintf(af.f, "%u,%.6f,%.6f,%.0f,%.6f,%.6f,", r->iteration, r->seconds, r->train_seconds,
                r->tokens_per_second, r->timing.z_seconds, r->timing.update_seconds);
        if (r->evaluated)
            fprintf(af.f, "%.6f,%.6f,", r->eval.loglik_pred, r->eval.loglik_joint);
        else
            fprintf(af.f, ",,");
        if (r->heldout_evaluated)
            fprintf(af.f, "%.6f", r->loglik_heldout);
        fprintf(af.f, ",%.6f\n", r->phi_seconds);
    }
    return lda_atomic_commit(&af, err);
}

/* Columns of log.csv, by name. */
enum { COL_ITERATION, COL_SECONDS, COL_TRAIN_SECONDS, COL_TOKENS_PER_SECOND, COL_Z_SECONDS, COL_UPDATE_SECONDS,
       COL_LOGLIK_PRED, COL_LOGLIK_JOINT, COL_LOGLIK_HELDOUT, COL_PHI_SECONDS, NUM_COLS };
static const char *const column_names[NUM_COLS] = {
    "iteration", "seconds", "train_seconds", "tokens_per_second", "z_seconds", "update_seconds",
    "loglik_pred", "loglik_joint", "loglik_heldout", "phi_seconds",
};

/* Splits a line at commas in place (at most max fields); returns the count. */
static int split_csv(char *line, char **fields, int max)
{
    line[strcspn(line, "\r\n")] = '\0';
    int n = 0;
    for (char *p = line; n < max;) {
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static int parse_field(const char *text, double *v)
{
    char *end;
    if (!*text)
        return 0;
    *v = strtod(text, &end);
    return *end == '\0' ? 1 : -1;
}

int lda_train_log_read_csv(lda_train_log *log, const char *path, lda_error *err)
{
    enum { MAX_FIELDS = 64 };
    FILE *f = fopen(path, "r");
    if (!f) {
        lda_error_input(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL, *fields[MAX_FIELDS];
    size_t cap = 0, lineno = 0;
    int where[NUM_COLS], rc = -1;
    for (int c = 0; c < NUM_COLS; c++)
        where[c] = -1;
    while (getline(&line, &cap, f) != -1) {
        lineno++;
        int n = split_csv(line, fields, MAX_FIELDS);
        if (lineno == 1) {
            for (int i = 0; i < n; i++)
                for (int c = 0; c < NUM_COLS; c++)
                    if (strcmp(fields[i], column_names[c]) == 0)
                        where[c] = i;
            if (where[COL_ITERATION] < 0) {
                lda_error_input(err, "%s:1: not an ldagpu log (no 'iteration' column)", path);
                goto out;
            }
            continue;
        }
        double v[NUM_COLS];
        int present[NUM_COLS];
        for (int c = 0; c < NUM_COLS; c++) {
            present[c] = where[c] >= 0 && where[c] < n ? parse_field(fields[where[c]], &v[c]) : 0;
            if (present[c] < 0) {
                lda_error_input(err, "%s:%zu: %s: not a number", path, lineno, column_names[c]);
                goto out;
            }
            if (!present[c])
                v[c] = 0.0;
        }
        /* Written so that a NaN fails too: it is not a count, and no integer type holds it. */
        if (!present[COL_ITERATION] || !(v[COL_ITERATION] >= 0 && v[COL_ITERATION] <= UINT32_MAX)) {
            lda_error_input(err, "%s:%zu: iteration: expected a count", path, lineno);
            goto out;
        }
        lda_log_row r = {0};
        r.iteration = (uint32_t)v[COL_ITERATION];
        r.seconds = v[COL_SECONDS];
        r.train_seconds = v[COL_TRAIN_SECONDS];
        r.tokens_per_second = v[COL_TOKENS_PER_SECOND];
        r.timing.z_seconds = v[COL_Z_SECONDS];
        r.timing.update_seconds = v[COL_UPDATE_SECONDS];
        r.evaluated = present[COL_LOGLIK_PRED] && present[COL_LOGLIK_JOINT];
        r.eval.loglik_pred = v[COL_LOGLIK_PRED];
        r.eval.loglik_joint = v[COL_LOGLIK_JOINT];
        r.heldout_evaluated = present[COL_LOGLIK_HELDOUT];
        r.loglik_heldout = v[COL_LOGLIK_HELDOUT];
        r.phi_seconds = v[COL_PHI_SECONDS];
        FILE *out = log->out;
        log->out = NULL; /* kept, not printed again */
        int failed = lda_train_log_add(log, &r, err);
        log->out = out;
        if (failed)
            goto out;
    }
    if (ferror(f)) {
        lda_error_input(err, "%s: read error", path);
        goto out;
    }
    rc = 0;
out:
    free(line);
    fclose(f);
    return rc;
}

void lda_train_log_free(lda_train_log *log)
{
    free(log->rows);
    memset(log, 0, sizeof *log);
}
