// Prototype: CVB0 for LDA, doc side live, word side of the pass's start (Jacobi on words).
// usage: cvb0 train.docword K alpha beta iters_list(comma) outprefix threads
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void write_npy(const char *path, const float *phi_t, int K, int V) {
    FILE *f = fopen(path, "wb");
    char hdr[128];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", K, V);
    int total = 10 + n + 1;
    int pad = (64 - total % 64) % 64;
    unsigned short hl = (unsigned short)(n + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fwrite(&hl, 2, 1, f);
    fwrite(hdr, 1, n, f);
    for (int i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    fwrite(phi_t, sizeof(float), (size_t)K * V, f);
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 8) return 2;
    FILE *f = fopen(argv[1], "r");
    int K = atoi(argv[2]);
    float alpha = atof(argv[3]), beta = atof(argv[4]);
    const char *its = argv[5], *out = argv[6];
    int threads = atoi(argv[7]);
    int init_mode = argc > 8 ? atoi(argv[8]) : 0;
    long D, V, P;
    if (fscanf(f, "%ld %ld %ld", &D, &V, &P) != 3) return 2;
    int *pd = malloc(P * sizeof *pd), *pw = malloc(P * sizeof *pw);
    float *pc = malloc(P * sizeof *pc);
    long *dstart = calloc(D + 1, sizeof *dstart);
    for (long p = 0; p < P; p++) {
        int d, w, c;
        if (fscanf(f, "%d %d %d", &d, &w, &c) != 3) return 2;
        pd[p] = d - 1; pw[p] = w - 1; pc[p] = c;
        dstart[d]++;
    }
    fclose(f);
    for (long d = 0; d < D; d++) dstart[d + 1] += dstart[d];
    double tokens = 0;
    for (long p = 0; p < P; p++) tokens += pc[p];
    float *gamma = aligned_alloc(64, ((size_t)P * K * 4 + 63) / 64 * 64);
    float *nw = aligned_alloc(64, (size_t)V * K * 4), *nz = calloc(K, 4);
    float *nw_new = aligned_alloc(64, (size_t)threads * V * K * 4);
    double *nz_new = calloc((size_t)threads * K, 8);
    // init
    uint64_t s = 88172645463325252ull;
    memset(nw, 0, (size_t)V * K * 4);
    for (long p = 0; p < P; p++) {
        float *g = gamma + (size_t)p * K;
        if (init_mode == 0) {
            double sum = 0;
            for (int k = 0; k < K; k++) {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                g[k] = (float)((s >> 11) * (1.0 / 9007199254740992.0)) + 1e-3f;
                sum += g[k];
            }
            for (int k = 0; k < K; k++) g[k] /= sum;
        } else {
            for (int k = 0; k < K; k++) g[k] = 0;
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            g[s % K] = 1;
        }
        for (int k = 0; k < K; k++) nw[(size_t)pw[p] * K + k] += pc[p] * g[k];
    }
    for (long w = 0; w < V; w++)
        for (int k = 0; k < K; k++) nz[k] += nw[w * K + k];
    float Vbeta = V * beta;
    int next_mark = 0, marks[64], nmarks = 0;
    for (char *q = (char *)its; *q;) {
        marks[nmarks++] = strtol(q, &q, 10);
        if (*q == ',') q++;
    }
    double elapsed = 0;
    float *phi_t = malloc((size_t)K * V * 4);
    for (int it = 1; it <= marks[nmarks - 1]; it++) {
        double t0 = now();
        memset(nw_new, 0, (size_t)threads * V * K * 4);
        memset(nz_new, 0, (size_t)threads * K * 8);
        float *rnz = malloc(K * 4);
        for (int k = 0; k < K; k++) rnz[k] = 1.0f / (nz[k] + Vbeta);
#pragma omp parallel num_threads(threads)
        {
            int t = omp_get_thread_num();
            float *theta = aligned_alloc(64, K * 4 + 64), *tmp = aligned_alloc(64, K * 4 + 64);
            float *acc = nw_new + (size_t)t * V * K;
            double *accz = nz_new + (size_t)t * K;
#pragma omp for schedule(dynamic, 64)
            for (long d = 0; d < D; d++) {
                for (int k = 0; k < K; k++) theta[k] = 0;
                for (long p = dstart[d]; p < dstart[d + 1]; p++) {
                    float *g = gamma + (size_t)p * K;
                    for (int k = 0; k < K; k++) theta[k] += pc[p] * g[k];
                }
                for (long p = dstart[d]; p < dstart[d + 1]; p++) {
                    float *g = gamma + (size_t)p * K;
                    const float *row = nw + (size_t)pw[p] * K;
                    float c = pc[p], sum = 0, part[8] = {0};
                    int k = 0;
                    for (; k + 8 <= K; k += 8)
                        for (int j = 0; j < 8; j++) {
                            float gk = g[k + j];
                            float v = (theta[k + j] - gk + alpha) * (row[k + j] - gk + beta) * rnz[k + j];
                            tmp[k + j] = v;
                            part[j] += v;
                        }
                    for (; k < K; k++) {
                        float gk = g[k];
                        float v = (theta[k] - gk + alpha) * (row[k] - gk + beta) * rnz[k];
                        tmp[k] = v;
                        part[k & 7] += v;
                    }
                    sum = ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
                    float inv = 1.0f / sum;
                    float *a = acc + (size_t)pw[p] * K;
                    for (int k = 0; k < K; k++) {
                        float gn = tmp[k] * inv;
                        theta[k] += c * (gn - g[k]);
                        g[k] = gn;
                        a[k] += c * gn;
                    }
                }
            }
            free(theta);
            free(tmp);
        }
        for (long i = 0; i < V * K; i++) {
            float v = 0;
            for (int t = 0; t < threads; t++) v += nw_new[(size_t)t * V * K + i];
            nw[i] = v;
        }
        for (int k = 0; k < K; k++) nz[k] = 0;
        for (long w = 0; w < V; w++)
            for (int k = 0; k < K; k++) nz[k] += nw[w * K + k];
        free(rnz);
        elapsed += now() - t0;
        if (it == marks[next_mark]) {
            next_mark++;
            for (int k = 0; k < K; k++)
                for (long w = 0; w < V; w++) phi_t[(size_t)k * V + w] = (nw[w * K + k] + beta) / (nz[k] + Vbeta);
            char path[512];
            snprintf(path, sizeof path, "%s-%d.npy", out, it);
            write_npy(path, phi_t, K, V);
            printf("%d %.3f %.2f\n", it, elapsed, tokens * it / elapsed / 1e6);
            if (getenv("ZOUT") && it == marks[nmarks - 1]) {
                FILE *zf = fopen(getenv("ZOUT"), "wb");
                for (long p = 0; p < P; p++) {
                    const float *g = gamma + (size_t)p * K;
                    for (int c = 0; c < (int)pc[p]; c++) {
                        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                        float u = (float)((s >> 11) * (1.0 / 9007199254740992.0)), acc2 = 0;
                        uint32_t k = 0;
                        for (; k + 1 < (uint32_t)K; k++) { acc2 += g[k]; if (u < acc2) break; }
                        fwrite(&k, 4, 1, zf);
                    }
                }
                fclose(zf);
            }
            fflush(stdout);
        }
    }
    return 0;
}
