/* test_topic_map.c — the report's intertopic distance map: Jensen–Shannon divergences
 * against values worked by hand, the sparse all-pairs computation against the plain sum,
 * the symmetric eigensolver, classical MDS recovering a configuration of points that truly
 * lies in a plane, and the bound on how many topics a map places. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/rng.h"
#include "model/topic_map.h"

Test(topic_map, js_divergence_known_values)
{
    const float a[2] = {1, 0}, b[2] = {0, 1}, half[2] = {0.5f, 0.5f};
    cr_assert_float_eq(lda_js_divergence(a, b, 2), log(2.0), 1e-12, "disjoint: ln 2");
    cr_assert_float_eq(lda_js_divergence(a, a, 2), 0.0, 1e-12);
    /* m = (0.75, 0.25): ½(½ ln(4/3) + ln(4/3)) = ¾ ln(4/3). */
    cr_assert_float_eq(lda_js_divergence(half, a, 2), 0.75 * log(4.0 / 3.0), 1e-7);
    cr_assert_float_eq(lda_js_divergence(a, half, 2), 0.75 * log(4.0 / 3.0), 1e-7, "symmetric");
}

static double uniform(uint64_t i) { return (double)(lda_rng_once(7, 1, 0, i) >> 8) / (1 << 24); }

Test(topic_map, all_pairs_equal_the_plain_sum_with_and_without_floors)
{
    enum { K = 7, V = 300 };
    static float phi[K * V];
    for (uint32_t k = 0; k < K; k++) {
        double sum = 0;
        for (uint32_t w = 0; w < V; w++) {
            /* Rows 0-3: a mean-like row, most words at one floor value; rows 4-6: all distinct. */
            double x = k < 4 ? (uniform(k * V + w) < 0.1 ? 1 + 50 * uniform(K * V + k * V + w) : 0.01)
                             : uniform(k * V + w) + 1e-3;
            phi[k * V + w] = (float)x;
            sum += x;
        }
        for (uint32_t w = 0; w < V; w++)
            phi[k * V + w] = (float)(phi[k * V + w] / sum);
    }
    double dist[K * K];
    lda_error err = {0};
    cr_assert_eq(lda_topic_distances(phi, NULL, K, V, 3, dist, &err), 0, "%s", err.msg);
    for (uint32_t j = 0; j < K; j++) {
        cr_assert_eq(dist[j * K + j], 0);
        for (uint32_t k = 0; k < K; k++) {
            double plain = j == k ? 0 : lda_js_divergence(phi + j * V, phi + k * V, V);
            cr_assert_float_eq(dist[j * K + k], plain, 2e-7, "(%u, %u): %.12g vs %.12g", j, k, dist[j * K + k],
                               plain);
            cr_assert_eq(dist[j * K + k], dist[k * K + j]);
        }
    }
    /* A chosen few rows, in a chosen order: the same divergences. */
    const uint32_t rows[3] = {6, 0, 4};
    double some[9];
    cr_assert_eq(lda_topic_distances(phi, rows, 3, V, 2, some, &err), 0, "%s", err.msg);
    for (uint32_t j = 0; j < 3; j++)
        for (uint32_t k = 0; k < 3; k++)
            cr_assert_eq(some[j * 3 + k], dist[rows[j] * K + rows[k]], "(%u, %u)", j, k);
}

Test(topic_map, the_map_size_bounds_its_cost)
{
    cr_assert_eq(lda_topic_map_size(1, 10), 1);
    cr_assert_eq(lda_topic_map_size(50, 50000), 50, "a usual model: every topic placed");
    cr_assert_eq(lda_topic_map_size(20000, 12), LDA_MAP_MAX_TOPICS);
    for (uint32_t V = 1000; V <= 100000000; V *= 10) {
        const uint64_t n = lda_topic_map_size(100000, V);
        cr_assert(n >= 2 && (n == 2 || n * (n - 1) / 2 * V <= LDA_MAP_MAX_WORD_PAIRS), "V = %u: %llu topics", V,
                  (unsigned long long)n);
        cr_assert(n == LDA_MAP_MAX_TOPICS || (n + 1) * n / 2 * V > LDA_MAP_MAX_WORD_PAIRS, "V = %u: as many as fit", V);
    }
}

Test(topic_map, symmetric_eigen_decomposition)
{
    double a[4] = {2, 1, 1, 2}, val[2], vec[4];
    lda_error err = {0};
    cr_assert_eq(lda_symmetric_eigen(a, 2, val, vec, &err), 0);
    cr_assert_float_eq(val[0], 1, 1e-12);
    cr_assert_float_eq(val[1], 3, 1e-12);
    cr_assert_float_eq(fabs(vec[2]), sqrt(0.5), 1e-12, "eigenvector of 3: (1, 1)/√2");
    cr_assert_float_eq(vec[2], vec[3], 1e-12);

    enum { N = 40 };
    static double m[N * N], copy[N * N], vals[N], vecs[N * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            m[i * N + j] = m[j * N + i] = uniform((uint64_t)i * N + j) - 0.5;
    for (int i = 0; i < N * N; i++)
        copy[i] = m[i];
    cr_assert_eq(lda_symmetric_eigen(copy, N, vals, vecs, &err), 0);
    for (int r = 0; r < N; r++) {
        if (r)
            cr_assert(vals[r] >= vals[r - 1], "ascending");
        for (int i = 0; i < N; i++) { /* M v = λ v */
            double mv = 0;
            for (int j = 0; j < N; j++)
                mv += m[i * N + j] * vecs[r * N + j];
            cr_assert_float_eq(mv, vals[r] * vecs[r * N + i], 1e-10);
        }
        for (int s = 0; s <= r; s++) { /* orthonormal */
            double dot = 0;
            for (int i = 0; i < N; i++)
                dot += vecs[r * N + i] * vecs[s * N + i];
            cr_assert_float_eq(dot, r == s ? 1.0 : 0.0, 1e-10);
        }
    }
}

Test(topic_map, classical_mds_recovers_a_planar_configuration)
{
    enum { N = 6 };
    const double pts[N][2] = {{0, 0}, {3, 0}, {0, 4}, {1, 1}, {-2, 5}, {2.5, -1.5}};
    double dist[N * N], xy[2 * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            dist[i * N + j] = hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]);
    lda_error err = {0};
    cr_assert_eq(lda_classical_mds(dist, N, xy, &err), 0, "%s", err.msg);
    double cx = 0, cy = 0;
    for (int i = 0; i < N; i++) {
        cx += xy[2 * i];
        cy += xy[2 * i + 1];
        for (int j = 0; j < N; j++)
            cr_assert_float_eq(hypot(xy[2 * i] - xy[2 * j], xy[2 * i + 1] - xy[2 * j + 1]), dist[i * N + j], 1e-9,
                               "distance (%d, %d)", i, j);
    }
    cr_assert_float_eq(cx, 0, 1e-9, "centred");
    cr_assert_float_eq(cy, 0, 1e-9, "centred");
    /* Two points: ±d/2 on the first axis; one point: the origin. */
    const double two[4] = {0, 0.5, 0.5, 0};
    cr_assert_eq(lda_classical_mds(two, 2, xy, &err), 0);
    cr_assert_float_eq(fabs(xy[0] - xy[2]), 0.5, 1e-12);
    cr_assert_float_eq(xy[1], 0, 1e-12);
    const double one[1] = {0};
    cr_assert_eq(lda_classical_mds(one, 1, xy, &err), 0);
    cr_assert(xy[0] == 0 && xy[1] == 0);
}
