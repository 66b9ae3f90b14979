/* theta_bench.c — the harness of results/theta-build/cpu.md: lda_theta_fetch timed alone on a collapsed
 * CPU backend after 1 iteration, every form at -j 1 and 2, best of 3 (wall and CPU seconds). Built
 * against a CPU build's objects (make CUDA=0 ldagpu first):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -pthread -Isrc -Iinclude results/theta-build/theta_bench.c \
 *      $(find build/cpu/src build/cpu/gen -name '*.o' ! -name main.o) -lpcre2-8 -lz -lm -o theta_bench
 *   ./theta_bench CORPUS.ldab K LABEL */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "corpus/corpus_binary.h"
#include "train/theta_fetch.h"
#include "util/clock.h"

static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static int fail(const lda_error *err)
{
    fprintf(stderr, "theta_bench: %s\n", err->msg);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: theta_bench CORPUS.ldab K LABEL\n");
        return 2;
    }
    lda_error err = {0};
    corpus *c = corpus_binary_read(argv[1], &err);
    if (!c)
        return fail(&err);
    const uint32_t K = (uint32_t)atoi(argv[2]);
    lda_layout *L = lda_layout_build(c, 0, &err);
    if (!L)
        return fail(&err);
    lda_params p;
    lda_params_default(&p);
    p.num_topics = K;
    p.device = LDA_DEVICE_CPU;
    p.threads = 2;
    lda_params_set_model(&p, LDA_MODEL_COLLAPSED);
    lda_params_resolve_sampler(&p);
    lda_backend *b = lda_backend_create(L, &p, &err);
    lda_iter_timing timing;
    if (!b || b->ops->start(b, NULL, 0, &err) || b->ops->iterate(b, 1, &timing, &err))
        return fail(&err);
    static const char *const forms[] = {"sparse:0.01", "top:10", "dense"};
    for (int f = 0; f < 3; f++)
        for (int j = 1; j <= 2; j++) {
            double wall = 1e9, cpu = 1e9;
            for (int rep = 0; rep < 3; rep++) {
                lda_doc_topics form;
                lda_theta t;
                if (lda_doc_topics_parse("form", forms[f], &form, &err))
                    return fail(&err);
                form = lda_doc_topics_resolve(&form, c->num_input_docs, K, NULL, 0);
                b->params.threads = j;
                const double w0 = lda_now_seconds(), c0 = cpu_seconds();
                if (lda_theta_fetch(&t, b, c, c->num_input_docs, &form, 0, &err))
                    return fail(&err);
                const double w = lda_now_seconds() - w0, cs = cpu_seconds() - c0;
                wall = w < wall ? w : wall;
                cpu = cs < cpu ? cs : cpu;
                lda_theta_free(&t);
            }
            char load[64] = "";
            FILE *fl = fopen("/proc/loadavg", "r");
            if (fl && !fgets(load, sizeof load, fl))
                load[0] = 0;
            if (fl)
                fclose(fl);
            printf("%s K=%u D=%llu %-12s -j %d: %.3f s wall, %.3f s CPU (best of 3)  load %.5s\n", argv[3], K,
                   (unsigned long long)c->num_input_docs, forms[f], j, wall, cpu, load);
            fflush(stdout);
        }
    lda_backend_destroy(b);
    lda_layout_free(L);
    corpus_free(c);
    return 0;
}
