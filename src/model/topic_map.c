/* topic_map.c — see topic_map.h. */
#include "model/topic_map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/threadpool.h"

/* p log(2p/(p+q)) + q log(2q/(p+q)): twice one word's share of JS(p, q). */
static double js_term(double p, double q)
{
    double s = p + q, t = 0;
    if (p > 0)
        t += p * log(2 * p / s);
    if (q > 0)
        t += q * log(2 * q / s);
    return t;
}

double lda_js_divergence(const float *p, const float *q, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += js_term(p[i], q[i]);
    return 0.5 * sum;
}

/* ---- all pairs of topics ---- */

typedef struct {
    const float *phi;
    uint32_t K, V;
    float *floor;       /* K: each row's minimum */
    uint32_t **above;   /* K lists: the words whose φ is above the row's minimum, ascending */
    uint32_t *n_above;  /* K */
    double *dist;
} pairs_ctx;

/* Row j against every later row: the words above either floor one by one, the rest (both
 * at their floors) as one term times their number. */
static void distances_of_row(void *vctx, size_t task, int worker)
{
    (void)worker;
    pairs_ctx *c = vctx;
    const uint32_t j = (uint32_t)task, V = c->V;
    const float *pj = c->phi + (size_t)j * V;
    for (uint32_t k = j + 1; k < c->K; k++) {
        const float *pk = c->phi + (size_t)k * V;
        const uint32_t *a = c->above[j], *b = c->above[k];
        uint32_t na = c->n_above[j], nb = c->n_above[k], ia = 0, ib = 0, seen = 0;
        double sum = 0;
        while (ia < na || ib < nb) {
            uint32_t w = ib == nb || (ia < na && a[ia] <= b[ib]) ? a[ia] : b[ib];
            ia += ia < na && a[ia] == w;
            ib += ib < nb && b[ib] == w;
            sum += js_term(pj[w], pk[w]);
            seen++;
        }
        sum += (double)(V - seen) * js_term(c->floor[j], c->floor[k]);
        double d = sum > 0 ? 0.5 * sum : 0;
        c->dist[(size_t)j * c->K + k] = c->dist[(size_t)k * c->K + j] = d;
    }
    c->dist[(size_t)j * c->K + j] = 0;
}

int lda_topic_distances(const float *phi, uint32_t K, uint32_t V, int threads, double *dist, lda_error *err)
{
    pairs_ctx c = {phi, K, V, NULL, NULL, NULL, dist};
    int rc = -1;
    lda_pool *pool = NULL;
    if (!(c.floor = lda_malloc_array(K, sizeof *c.floor, "topic floors", err)) ||
        !(c.n_above = lda_calloc(K, sizeof *c.n_above, "topic word counts", err)) ||
        !(c.above = lda_calloc(K, sizeof *c.above, "topic word lists", err)))
        goto out;
    for (uint32_t k = 0; k < K; k++) {
        const float *row = phi + (size_t)k * V;
        float lo = row[0];
        uint32_t n = 0;
        for (uint32_t w = 1; w < V; w++)
            lo = row[w] < lo ? row[w] : lo;
        for (uint32_t w = 0; w < V; w++)
            n += row[w] > lo;
        c.floor[k] = lo;
        if (!(c.above[k] = lda_malloc_array(n ? n : 1, sizeof **c.above, "topic word lists", err)))
            goto out;
        for (uint32_t w = 0; w < V; w++)
            if (row[w] > lo)
                c.above[k][c.n_above[k]++] = w;
    }
    if (!(pool = lda_pool_create(threads, err)))
        goto out;
    lda_pool_run(pool, K, distances_of_row, &c);
    rc = 0;
out:
    lda_pool_destroy(pool);
    for (uint32_t k = 0; c.above && k < K; k++)
        free(c.above[k]);
    free(c.above);
    free(c.n_above);
    free(c.floor);
    return rc;
}

/* ---- eigenvalues of a symmetric matrix ---- */

/* Householder reduction of a (n × n, row-major) to tridiagonal form: diagonal d, subdiagonal
 * e (e[0] = 0), a replaced by the orthogonal transformation (its columns). EISPACK's tred2. */
static void tridiagonalize(double *a, uint32_t n, double *d, double *e)
{
#define A(i, j) a[(size_t)(i) * n + (j)]
    for (uint32_t j = 0; j < n; j++)
        d[j] = A(n - 1, j);
    for (uint32_t i = n - 1; i > 0; i--) {
        double scale = 0, h = 0;
        for (uint32_t k = 0; k < i; k++)
            scale += fabs(d[k]);
        if (scale == 0) {
            e[i] = d[i - 1];
            for (uint32_t j = 0; j < i; j++) {
                d[j] = A(i - 1, j);
                A(i, j) = 0;
                A(j, i) = 0;
            }
        } else {
            for (uint32_t k = 0; k < i; k++) {
                d[k] /= scale;
                h += d[k] * d[k];
            }
            double f = d[i - 1], g = f > 0 ? -sqrt(h) : sqrt(h);
            e[i] = scale * g;
            h -= f * g;
            d[i - 1] = f - g;
            for (uint32_t j = 0; j < i; j++)
                e[j] = 0;
            for (uint32_t j = 0; j < i; j++) {
                f = d[j];
                A(j, i) = f;
                g = e[j] + A(j, j) * f;
                for (uint32_t k = j + 1; k < i; k++) {
                    g += A(k, j) * d[k];
                    e[k] += A(k, j) * f;
                }
                e[j] = g;
            }
            f = 0;
            for (uint32_t j = 0; j < i; j++) {
                e[j] /= h;
                f += e[j] * d[j];
            }
            double hh = f / (h + h);
            for (uint32_t j = 0; j < i; j++)
                e[j] -= hh * d[j];
            for (uint32_t j = 0; j < i; j++) {
                f = d[j];
                g = e[j];
                for (uint32_t k = j; k < i; k++)
                    A(k, j) -= f * e[k] + g * d[k];
                d[j] = A(i - 1, j);
                A(i, j) = 0;
            }
        }
        d[i] = h;
    }
    for (uint32_t i = 0; i + 1 < n; i++) { /* accumulate the transformations */
        A(n - 1, i) = A(i, i);
        A(i, i) = 1;
        double h = d[i + 1];
        if (h != 0) {
            for (uint32_t k = 0; k <= i; k++)
                d[k] = A(k, i + 1) / h;
            for (uint32_t j = 0; j <= i; j++) {
                double g = 0;
                for (uint32_t k = 0; k <= i; k++)
                    g += A(k, i + 1) * A(k, j);
                for (uint32_t k = 0; k <= i; k++)
                    A(k, j) -= g * d[k];
            }
        }
        for (uint32_t k = 0; k <= i; k++)
            A(k, i + 1) = 0;
    }
    for (uint32_t j = 0; j < n; j++) {
        d[j] = A(n - 1, j);
        A(n - 1, j) = 0;
    }
    A(n - 1, n - 1) = 1;
    e[0] = 0;
#undef A
}

/* Implicit QL on the tridiagonal (d, e) with the transformation's *rows* in w (w = the
 * transpose of tred2's result, so each rotation walks two contiguous rows): d becomes the
 * eigenvalues, row i of w the eigenvector of d[i]. EISPACK's tql2. */
static int ql_implicit(double *d, double *e, double *w, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        e[i - 1] = e[i];
    e[n - 1] = 0;
    double f = 0, tst1 = 0;
    const double eps = 0x1p-52;
    for (uint32_t l = 0; l < n; l++) {
        tst1 = fmax(tst1, fabs(d[l]) + fabs(e[l]));
        uint32_t m = l;
        while (m < n - 1 && fabs(e[m]) > eps * tst1)
            m++;
        if (m > l) {
            int iter = 0;
            do {
                if (++iter > 100)
                    return -1;
                double g = d[l], p = (d[l + 1] - g) / (2 * e[l]), r = hypot(p, 1);
                if (p < 0)
                    r = -r;
                d[l] = e[l] / (p + r);
                d[l + 1] = e[l] * (p + r);
                double dl1 = d[l + 1], h = g - d[l];
                for (uint32_t i = l + 2; i < n; i++)
                    d[i] -= h;
                f += h;
                p = d[m];
                double c = 1, c2 = 1, c3 = 1, el1 = e[l + 1], s = 0, s2 = 0;
                for (uint32_t i = m; i-- > l;) {
                    c3 = c2;
                    c2 = c;
                    s2 = s;
                    g = c * e[i];
                    h = c * p;
                    r = hypot(p, e[i]);
                    e[i + 1] = s * r;
                    s = e[i] / r;
                    c = p / r;
                    p = c * d[i] - s * g;
                    d[i + 1] = h + s * (c * g + s * d[i]);
                    double *wi = w + (size_t)i * n, *wi1 = wi + n;
                    for (uint32_t k = 0; k < n; k++) {
                        h = wi1[k];
                        wi1[k] = s * wi[k] + c * h;
                        wi[k] = c * wi[k] - s * h;
                    }
                }
                p = -s * s2 * c3 * el1 * e[l] / dl1;
                e[l] = s * p;
                d[l] = c * p;
            } while (fabs(e[l]) > eps * tst1);
        }
        d[l] += f;
        e[l] = 0;
    }
    return 0;
}

int lda_symmetric_eigen(double *a, uint32_t n, double *values, double *vectors, lda_error *err)
{
    double *e = lda_malloc_array(n ? n : 1, sizeof *e, "eigen scratch", err);
    if (!e)
        return -1;
    if (n == 0) {
        free(e);
        return 0;
    }
    tridiagonalize(a, n, values, e);
    for (uint32_t i = 0; i < n; i++) /* columns of a -> rows of vectors */
        for (uint32_t j = 0; j < n; j++)
            vectors[(size_t)j * n + i] = a[(size_t)i * n + j];
    int rc = ql_implicit(values, e, vectors, n);
    free(e);
    if (rc) {
        lda_error_fail(err, "eigenvalues of a %u x %u matrix did not converge", n, n);
        return -1;
    }
    for (uint32_t i = 1; i < n; i++) { /* insertion sort, ascending, rows along */
        for (uint32_t j = i; j > 0 && values[j] < values[j - 1]; j--) {
            double t = values[j];
            values[j] = values[j - 1];
            values[j - 1] = t;
            double *x = vectors + (size_t)j * n, *y = x - n;
            for (uint32_t k = 0; k < n; k++) {
                t = x[k];
                x[k] = y[k];
                y[k] = t;
            }
        }
    }
    return 0;
}

/* ---- classical MDS ---- */

int lda_classical_mds(const double *dist, uint32_t n, double *xy, lda_error *err)
{
    const size_t nn = (size_t)n * n;
    double *b = lda_malloc_array(nn ? nn : 1, sizeof *b, "MDS matrix", err);
    double *vec = b ? lda_malloc_array(nn ? nn : 1, sizeof *vec, "MDS eigenvectors", err) : NULL;
    double *val = vec ? lda_malloc_array(n ? n : 1, sizeof *val, "MDS eigenvalues", err) : NULL;
    double *mean = val ? lda_calloc(n ? n : 1, sizeof *mean, "MDS means", err) : NULL;
    int rc = -1;
    if (!mean)
        goto out;
    /* B = −½ J D² J: squared distances with row and column means removed, grand mean added. */
    double grand = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t j = 0; j < n; j++) {
            double d2 = dist[(size_t)i * n + j] * dist[(size_t)i * n + j];
            b[(size_t)i * n + j] = d2;
            mean[i] += d2;
        }
        grand += mean[i];
        mean[i] /= n;
    }
    grand /= (double)nn;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            b[(size_t)i * n + j] = -0.5 * (b[(size_t)i * n + j] - mean[i] - mean[j] + grand);
    if (lda_symmetric_eigen(b, n, val, vec, err))
        goto out;
    for (uint32_t axis = 0; axis < 2; axis++) {
        if (axis >= n) { /* one topic: the second axis is 0 */
            for (uint32_t i = 0; i < n; i++)
                xy[2 * i + axis] = 0;
            continue;
        }
        const uint32_t r = n - 1 - axis; /* largest eigenvalues last */
        const double *v = vec + (size_t)r * n, scale = val[r] > 0 ? sqrt(val[r]) : 0;
        uint32_t big = 0;
        for (uint32_t i = 1; i < n; i++)
            big = fabs(v[i]) > fabs(v[big]) ? i : big;
        double sign = v[big] < 0 ? -1 : 1;
        for (uint32_t i = 0; i < n; i++)
            xy[2 * i + axis] = sign * scale * v[i];
    }
    rc = 0;
out:
    free(b);
    free(vec);
    free(val);
    free(mean);
    return rc;
}
