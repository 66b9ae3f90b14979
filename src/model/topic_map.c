/* topic_map.c — see topic_map.h. */
#include "model/topic_map.h"

#include <math.h>
#include <stdint.h>
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

/* ---- all pairs of topics ----
 *
 * With s = p + q, p log(2p/s) + q log(2q/s) = p log p + q log q + s log 2 − s log s, so
 * JS(p, q) = ½ (H_p + H_q + (Σp + Σq) log 2 − Σ s log s) with H_p = Σ p log p computed once
 * per topic: one logarithm per word and pair. Rows mostly at their minimum (φ as a mean: the
 * words a topic never drew) are summed over the words above either floor, the others in one
 * term; dense rows (φ drawn) four words at a time with a polynomial logarithm, accurate to
 * about 1e-7 (the map could not show a thousand times more). */

/* Four words at a time with GCC's vector extensions (the compiler does not vectorize a
 * floating-point sum itself without -ffast-math): the logarithm's mantissa part in single
 * precision, where it is small (|ln m| < 0.35), everything else in double. */
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));

/* ln x = e ln 2 + ln m for normal x > 0: x = 2^e · m, m in [√½, √2),
 * ln m = 2 atanh((m−1)/(m+1)) to the 9th power (|error| < 1e-9 before rounding). */
static inline void log4(v4f x, v4i *e, v4f *ln_m)
{
    v4i bits = (v4i)x;
    v4i ex = ((bits >> 23) & 0xff) - 127;
    v4f m = (v4f)((bits & 0x7fffff) | 0x3f800000);
    v4i big = m > 1.41421356f; /* -1 where true */
    m = (v4f)(((v4i)(m * 0.5f) & big) | ((v4i)m & ~big));
    *e = ex - big;
    v4f t = (m - 1) / (m + 1), t2 = t * t;
    *ln_m = t * (2 + t2 * (2.0f / 3 + t2 * (2.0f / 5 + t2 * (2.0f / 7 + t2 * (2.0f / 9)))));
}

/* Σ s log s over s = p[w] + q[w], dense; s below the smallest normal float counts 0. */
static double sum_slogs(const float *p, const float *q, uint32_t V)
{
    enum { LANES = 4 };
    v4d acc = {0, 0, 0, 0};
    uint32_t w = 0;
    for (; w + LANES <= V; w += LANES) {
        v4f a, b, ln_m;
        v4i e;
        memcpy(&a, p + w, sizeof a);
        memcpy(&b, q + w, sizeof b);
        v4f x = a + b;
        v4i normal = x >= 1.17549435e-38f;
        x = (v4f)((v4i)x & normal); /* 0 where not normal: adds nothing */
        log4(x, &e, &ln_m);
        v4d xd = __builtin_convertvector(x, v4d);
        acc += xd * (__builtin_convertvector(e, v4d) * M_LN2 + __builtin_convertvector(ln_m, v4d));
    }
    double total = acc[0] + acc[1] + acc[2] + acc[3];
    for (; w < V; w++) {
        double x = (double)p[w] + q[w];
        total += x > 0 ? x * log(x) : 0;
    }
    return total;
}

typedef struct {
    const float **row;  /* K: each topic's row of φ */
    uint32_t K, V;
    double *entropy;    /* K: Σ p log p */
    double *mass;       /* K: Σ p (1 but for rounding) */
    float *floor;       /* K: each row's minimum */
    uint32_t **above;   /* K lists: the words whose φ is above the row's minimum, ascending */
    uint32_t *n_above;  /* K */
    double *dist;
} pairs_ctx;

static double slog(double s) { return s > 0 ? s * log(s) : 0; }

/* Σ s log s for rows j and k, mostly at their floors: the words above either floor one by one,
 * the rest as one term times their number. */
static double sum_slogs_sparse(const pairs_ctx *c, uint32_t j, uint32_t k)
{
    const float *pj = c->row[j], *pk = c->row[k];
    const uint32_t *a = c->above[j], *b = c->above[k];
    uint32_t na = c->n_above[j], nb = c->n_above[k], ia = 0, ib = 0, seen = 0;
    double sum = 0;
    while (ia < na || ib < nb) {
        uint32_t w = ib == nb || (ia < na && a[ia] <= b[ib]) ? a[ia] : b[ib];
        ia += ia < na && a[ia] == w;
        ib += ib < nb && b[ib] == w;
        sum += slog((double)pj[w] + pk[w]);
        seen++;
    }
    return sum + (double)(c->V - seen) * slog((double)c->floor[j] + c->floor[k]);
}

static void distances_of_row(void *vctx, size_t task, int worker)
{
    (void)worker;
    pairs_ctx *c = vctx;
    const uint32_t j = (uint32_t)task, V = c->V;
    for (uint32_t k = j + 1; k < c->K; k++) {
        double s = (uint64_t)c->n_above[j] + c->n_above[k] < V / 4
                       ? sum_slogs_sparse(c, j, k)
                       : sum_slogs(c->row[j], c->row[k], V);
        double d = 0.5 * (c->entropy[j] + c->entropy[k] + (c->mass[j] + c->mass[k]) * M_LN2 - s);
        c->dist[(size_t)j * c->K + k] = c->dist[(size_t)k * c->K + j] = d > 0 ? d : 0;
    }
    c->dist[(size_t)j * c->K + j] = 0;
}

uint32_t lda_topic_map_size(uint32_t K, uint32_t V)
{
    uint64_t n = K < LDA_MAP_MAX_TOPICS ? K : LDA_MAP_MAX_TOPICS;
    while (n > 2 && n * (n - 1) / 2 * (V ? V : 1) > LDA_MAP_MAX_WORD_PAIRS)
        n--;
    return (uint32_t)n;
}

int lda_topic_distances(const float *phi, const uint32_t *rows, uint32_t K, uint32_t V, int threads, double *dist,
                        lda_error *err)
{
    pairs_ctx c = {NULL, K, V, NULL, NULL, NULL, NULL, NULL, dist};
    int rc = -1;
    lda_pool *pool = NULL;
    if (!(c.row = lda_malloc_array(K ? K : 1, sizeof *c.row, "topic rows", err)))
        return -1;
    for (uint32_t k = 0; k < K; k++)
        c.row[k] = phi + (size_t)(rows ? rows[k] : k) * V;
    if (!(c.entropy = lda_malloc_array(K, sizeof *c.entropy, "topic entropies", err)) ||
        !(c.mass = lda_malloc_array(K, sizeof *c.mass, "topic sums", err)) ||
        !(c.floor = lda_malloc_array(K, sizeof *c.floor, "topic floors", err)) ||
        !(c.n_above = lda_calloc(K, sizeof *c.n_above, "topic word counts", err)) ||
        !(c.above = lda_calloc(K, sizeof *c.above, "topic word lists", err)))
        goto out;
    for (uint32_t k = 0; k < K; k++) {
        const float *row = c.row[k];
        float lo = row[0];
        uint32_t n = 0;
        double h = 0, mass = 0;
        for (uint32_t w = 0; w < V; w++) {
            lo = row[w] < lo ? row[w] : lo;
            h += slog(row[w]);
            mass += row[w];
        }
        c.entropy[k] = h;
        c.mass[k] = mass;
        for (uint32_t w = 0; w < V; w++)
            n += row[w] > lo;
        c.floor[k] = lo;
        if (n >= V / 4)
            continue; /* dense: no list */
        if (!(c.above[k] = lda_malloc_array(n ? n : 1, sizeof **c.above, "topic word lists", err)))
            goto out;
        for (uint32_t w = 0; w < V; w++)
            if (row[w] > lo)
                c.above[k][c.n_above[k]++] = w;
    }
    for (uint32_t k = 0; k < K; k++) /* a dense row counts as V words above its floor */
        if (!c.above[k])
            c.n_above[k] = V;
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
    free(c.mass);
    free(c.entropy);
    free(c.row);
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
