/* cmd_bench.c — `ldagpu bench CORPUS`: the corpus is read and laid out once, then every
 * combination of K × sampler × precision × model (× split) is trained for a few warm-up
 * iterations and then timed: whole iterations (z draw + updates), timed with CUDA events on
 * the GPU (wall clock on the CPU), each point repeated; one CSV row per point with the
 * median and spread, the share of z sampling, and the z plan that ran (backend/zplan.h). The samplers, precisions and models come
 * from the same tables as the train command's options. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/device_bytes.h"
#include "backend/layout.h"
#include "cli/cli_options.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "cli/corpus_option_rows.h"
#include "corpus/corpus_read.h"
#include "util/atomic_file.h"

enum {
    OPT_TOPICS, OPT_SAMPLERS, OPT_PRECISIONS, OPT_MODELS, OPT_SPLITS, OPT_PIECES, OPT_REFRESH, OPT_ITERATIONS, OPT_WARMUP,
    OPT_REPEATS,
    OPT_DEVICE, OPT_THREADS, OPT_SEED, OPT_OUTPUT, OPT_FORMAT, OPT_VOCAB, OPT_HELP,
};

static const lda_option_spec bench_options[] = {
    [OPT_TOPICS] = {"topics", 'K', "LIST", "K values: 16,48,80 or ranges 4:1024:4", "1024"},
    [OPT_SAMPLERS] = {"samplers", 0, "LIST", "z samplers, comma-separated (sparse: θ-collapsed models only)", "auto",
                      lda_sampler_choices},
    [OPT_PRECISIONS] = {"precisions", 0, "LIST", "precisions, comma-separated", "float", lda_precision_choices},
    [OPT_MODELS] = {"models", 0, "LIST", "model versions, comma-separated", "uncollapsed", lda_model_choices},
    [OPT_SPLITS] = {"splits", 0, "LIST", "--split values (auto, staged, N warps a group); other samplers and θ-collapsed "
                    "models run once", "auto"},
    [OPT_PIECES] = {"piece-lengths", 0, "LIST", "--piece-length values (auto, or N; 0: documents never cut)",
                    "auto"},
    [OPT_REFRESH] = {"refresh", 0, "R", "z drawn in R parts an iteration, φ updated after each (see train)", "1"},
    [OPT_ITERATIONS] = {"iterations", 'n', "N", "timed iterations per repeat", "5"},
    [OPT_WARMUP] = {"warmup", 'w', "N", "untimed iterations before each point", "2"},
    [OPT_REPEATS] = {"repeats", 'r', "N", "timed repeats per point (median and spread)", "3"},
    [OPT_DEVICE] = {"device", 0, "auto|cpu|cuda", "where to run", "auto", lda_device_choices},
    [OPT_THREADS] = {"threads", 'j', "N", "CPU threads (CPU backend)", "all cores"},
    [OPT_SEED] = {"seed", 's', "S", "random seed", "1"},
    [OPT_OUTPUT] = {"output", 'o', "FILE", "CSV output ('-': stdout)", "-"},
    [OPT_FORMAT] = LDA_ROW_FORMAT,
    [OPT_VOCAB] = LDA_ROW_VOCAB,
    [OPT_HELP] = {"help", 'h', NULL, "show this help", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

static const lda_command_spec bench_spec = {
    "bench", "bench CORPUS [options]",
    "Times whole training iterations (z sampling + θ/φ updates) for every combination of the\n"
    "listed K values, samplers, precisions and models, on one corpus read once, and writes one\n"
    "CSV row per point: milliseconds per iteration (median, min, max over the repeats), the z\n"
    "and update parts, the share of z sampling, and tokens per second.",
    bench_options, -1, OPT_HELP,
    NULL,
};

typedef struct {
    uint32_t *topics;
    size_t num_topics;
    int *samplers, *precisions, *models;
    size_t num_samplers, num_precisions, num_models;
    uint32_t *splits;
    size_t num_splits;
    uint32_t *pieces;
    size_t num_pieces;
    uint32_t iterations, warmup, repeats;
    lda_params base;
    const char *output;
    corpus_options corpus;
} bench_ctx;

static int apply_bench_option(void *vctx, int index, const char *v, const char *where, lda_error *err)
{
    bench_ctx *c = vctx;
    switch (index) {
    case OPT_TOPICS:
        free(c->topics);
        c->topics = NULL;
        return lda_parse_u32_list(where, v, 1, 1u << 20, &c->topics, &c->num_topics, err);
    case OPT_SAMPLERS:
        free(c->samplers);
        c->samplers = NULL;
        return lda_parse_choice_list(where, v, lda_sampler_choices, &c->samplers, &c->num_samplers, err);
    case OPT_PRECISIONS:
        free(c->precisions);
        c->precisions = NULL;
        return lda_parse_choice_list(where, v, lda_precision_choices, &c->precisions, &c->num_precisions, err);
    case OPT_MODELS:
        free(c->models);
        c->models = NULL;
        return lda_parse_choice_list(where, v, lda_model_choices, &c->models, &c->num_models, err);
    case OPT_SPLITS:
        free(c->splits);
        c->splits = NULL;
        return lda_parse_split_list(where, v, &c->splits, &c->num_splits, err);
    case OPT_PIECES:
        free(c->pieces);
        c->pieces = NULL;
        return lda_parse_piece_lengths(where, v, &c->pieces, &c->num_pieces, err);
    case OPT_REFRESH:
        return lda_parse_u32(where, v, 1, 256, &c->base.refresh, err);
    case OPT_ITERATIONS:
        return lda_parse_u32(where, v, 1, 100000, &c->iterations, err);
    case OPT_WARMUP:
        return lda_parse_u32(where, v, 0, 100000, &c->warmup, err);
    case OPT_REPEATS:
        return lda_parse_u32(where, v, 1, 1000, &c->repeats, err);
    case OPT_DEVICE:
        return lda_parse_device(where, v, &c->base.device, err);
    case OPT_THREADS:
        return lda_parse_threads(where, v, &c->base.threads, err);
    case OPT_SEED:
        return lda_parse_u64(where, v, 0, UINT64_MAX, &c->base.seed, err);
    case OPT_OUTPUT:
        c->output = v;
        return 0;
    case OPT_FORMAT:
        return lda_parse_corpus_format(where, v, &c->corpus.format, err);
    case OPT_VOCAB:
        c->corpus.vocab_path = v;
        return 0;
    default:
        lda_error_fail(err, "internal error: option %d has no handler", index);
        return -1;
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    double total_ms[1000], z_ms[1000], update_ms[1000];
} point_times;

/* Trains one point: warm-up, then `repeats` timed runs of `iterations` iterations each;
 * the device and z plan that ran go to *device and *plan. */
static int time_point(const bench_ctx *c, const lda_layout *L, const lda_params *p, point_times *t,
                      lda_device *device, lda_zplan *plan, lda_error *err)
{
    lda_backend *b = lda_backend_create(L, p, err);
    if (!b)
        return -1;
    *device = b->params.device;
    *plan = b->zplan;
    int rc = -1;
    uint32_t it = 0;
    if (b->ops->start(b, NULL, 0, err))
        goto out;
    for (uint32_t w = 0; w < c->warmup; w++)
        if (b->ops->iterate(b, ++it, NULL, err))
            goto out;
    for (uint32_t r = 0; r < c->repeats; r++) {
        double z = 0, u = 0;
        for (uint32_t i = 0; i < c->iterations; i++) {
            lda_iter_timing timing;
            if (b->ops->iterate(b, ++it, &timing, err))
                goto out;
            z += timing.z_seconds;
            u += timing.update_seconds;
        }
        t->z_ms[r] = 1e3 * z / c->iterations;
        t->update_ms[r] = 1e3 * u / c->iterations;
        t->total_ms[r] = t->z_ms[r] + t->update_ms[r];
    }
    rc = 0;
out:
    lda_backend_destroy(b);
    return rc;
}

/* Times one point and writes its row; an unsupported combination is skipped with a note. */
static int bench_point(const bench_ctx *c, const corpus *corp, const lda_layout *L, const lda_params *p, FILE *out,
                       lda_error *err)
{
    static point_times t;
    lda_error point_err = {0};
    lda_device device;
    lda_zplan plan;
    if (time_point(c, L, p, &t, &device, &plan, &point_err)) {
        if (point_err.status != LDA_EXIT_BAD_INPUT) {
            *err = point_err;
            return -1;
        }
        fprintf(stderr, "ldagpu bench: skipped K=%u %s: %s\n", p->num_topics,
                lda_choice_name(lda_sampler_choices, p->sampler), point_err.msg);
        return 0;
    }
    double lo = t.total_ms[0], hi = t.total_ms[0];
    for (uint32_t r = 1; r < c->repeats; r++) {
        lo = t.total_ms[r] < lo ? t.total_ms[r] : lo;
        hi = t.total_ms[r] > hi ? t.total_ms[r] : hi;
    }
    const double ms = median(t.total_ms, c->repeats), zm = median(t.z_ms, c->repeats),
                 um = median(t.update_ms, c->repeats);
    const char *model = lda_choice_name(lda_model_choices, lda_params_model(p));
    char split_buf[16];
    const char *split = p->sampler == LDA_SAMPLER_BUTTERFLY && !p->theta_collapsed ? lda_split_name(p->split, split_buf)
                                                                                   : "1"; /* a warp or thread a group */
    fprintf(out, "%u,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.0f,%u,%u,%u,%s,%u,%u\n", p->num_topics,
            lda_choice_name(lda_sampler_choices, p->sampler), lda_choice_name(lda_precision_choices, p->precision),
            model, split, lda_choice_name(lda_device_choices, device), ms, lo, hi, zm, um, zm / (zm + um),
            corp->num_tokens / (ms * 1e-3), c->repeats, c->iterations, p->refresh, lda_zkernel_name(plan.kernel),
            plan.warps_per_group, p->piece_length);
    fflush(out);
    fprintf(stderr, "K=%5u %-16s %-6s %-15s split %-6s pieces %-5u: %9.3f ms/iteration (z %.3f, update %.3f); %s\n",
            p->num_topics, lda_choice_name(lda_sampler_choices, p->sampler),
            lda_choice_name(lda_precision_choices, p->precision), model, split, p->piece_length, ms, zm, um, plan.why);
    if (device == LDA_DEVICE_CUDA && p->shards <= 1) {
        lda_device_bytes bytes;
        char shares[1024];
        lda_device_bytes_plan(L, p, &plan, &bytes);
        lda_device_bytes_describe(&bytes, L->num_tokens, LDA_DEVICE_BYTES_MAX_ROWS, shares, sizeof shares);
        fprintf(stderr, "  device memory: %s\n", shares);
    }
    return 0;
}

/* The layouts of the corpus, one a piece length, built when a point first needs one. */
typedef struct {
    const char *path;
    const corpus *corp;
    lda_layout *layouts[16];
    size_t count;
} layout_cache;

static const lda_layout *layout_for(layout_cache *lc, uint32_t piece_length, lda_error *err)
{
    for (size_t i = 0; i < lc->count; i++)
        if (lc->layouts[i]->piece_length == piece_length)
            return lc->layouts[i];
    if (lc->count == sizeof lc->layouts / sizeof lc->layouts[0]) {
        lda_error_input(err, "--piece-lengths: at most %zu different lengths", lc->count);
        return NULL;
    }
    lda_layout *L = lda_layout_build(lc->corp, piece_length, err);
    if (!L)
        return NULL;
    char shape[256];
    fprintf(stderr, "ldagpu bench: %s: %zu tokens, V=%u; layout: %s\n", lc->path, lc->corp->num_tokens,
            lc->corp->vocab_size, lda_layout_describe(L, shape, sizeof shape));
    return lc->layouts[lc->count++] = L;
}

/* Whether entry `is` of --samplers, resolved, is a point another entry runs: an earlier one, or
 * an explicit one anywhere (auto's point then runs once, under the sampler's name). */
static int listed_before(const bench_ctx *c, size_t is, lda_sampler resolved)
{
    for (size_t j = 0; j < c->num_samplers; j++)
        if (j != is && c->samplers[j] == (int)resolved && (j < is || c->samplers[is] == LDA_SAMPLER_AUTO))
            return 1;
    return 0;
}

/* Every point: K x sampler x precision x model x split x piece length. */
static int bench_points(const bench_ctx *c, layout_cache *lc, FILE *out, lda_error *err)
{
    for (size_t ik = 0; ik < c->num_topics; ik++)
        for (size_t is = 0; is < c->num_samplers; is++)
            for (size_t ip = 0; ip < c->num_precisions; ip++)
                for (size_t im = 0; im < c->num_models; im++)
                    for (size_t ipc = 0; ipc < c->num_pieces; ipc++)
                        for (size_t isp = 0; isp < c->num_splits; isp++) {
                            lda_params p = c->base;
                            p.num_topics = c->topics[ik];
                            p.alpha = 0; /* the model's default (lda_params_alpha) */
                            p.sampler = (lda_sampler)c->samplers[is];
                            p.precision = (lda_precision)c->precisions[ip];
                            lda_params_set_model(&p, (lda_model_kind)c->models[im]);
                            lda_zplan_resolve_sampler(&p);
                            if (listed_before(c, is, p.sampler)) /* auto resolved to a sampler listed too */
                                continue;
                            p.split = c->splits[isp];
                            p.piece_length = c->pieces[ipc];
                            p.piece_length = lda_params_piece_length(&p);
                            /* splits vary the butterfly with θ given only: the rest run once, at the first */
                            if (isp > 0 && (p.sampler != LDA_SAMPLER_BUTTERFLY || p.theta_collapsed))
                                continue;
                            const lda_layout *L = layout_for(lc, p.piece_length, err);
                            if (!L || bench_point(c, lc->corp, L, &p, out, err))
                                return -1;
                        }
    return 0;
}

static int run_bench(bench_ctx *c, const char *corpus_path, lda_error *err)
{
    corpus *corp = corpus_read(corpus_path, &c->corpus, err);
    layout_cache lc = {corpus_path, corp, {NULL}, 0};
    lda_atomic_file af = {0};
    FILE *out = stdout;
    int rc = -1;
    if (!corp)
        goto done;
    if (strcmp(c->output, "-") != 0) {
        if (lda_atomic_open(&af, c->output, err))
            goto done;
        out = af.f;
    }
    fprintf(out, "K,sampler,precision,model,split,device,ms_median,ms_min,ms_max,z_ms,update_ms,z_share,"
                 "tokens_per_s,repeats,iterations,refresh,kernel,warps_per_group,piece_length\n");
    if (bench_points(c, &lc, out, err))
        goto done;
    rc = out == stdout ? 0 : lda_atomic_commit(&af, err);
    out = stdout;
done:
    if (out != stdout)
        lda_atomic_abort(&af);
    for (size_t i = 0; i < lc.count; i++)
        lda_layout_free(lc.layouts[i]);
    corpus_free(corp);
    return rc;
}

int lda_cmd_bench(int argc, char **argv)
{
    bench_ctx c;
    memset(&c, 0, sizeof c);
    lda_params_default(&c.base);
    corpus_options_default(&c.corpus);
    c.iterations = 5;
    c.warmup = 2;
    c.repeats = 3;
    c.output = "-";
    lda_error err = {0};
    const char *positional[1];
    int npos, help, rc = LDA_EXIT_OK;
    const struct {
        int option;
        const char *value;
    } defaults[] = {{OPT_TOPICS, "1024"},          {OPT_SAMPLERS, "auto"}, {OPT_PRECISIONS, "float"},
                    {OPT_MODELS, "uncollapsed"},   {OPT_SPLITS, "auto"},        {OPT_PIECES, "auto"}};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (apply_bench_option(&c, defaults[i].option, defaults[i].value, bench_options[defaults[i].option].name,
                               &err))
            goto fail;
    if (lda_options_parse(&bench_spec, argc, argv, apply_bench_option, &c, NULL, positional, 1, &npos, &help, &err))
        goto fail;
    if (help) {
        lda_options_print_help(&bench_spec, stdout);
        goto out;
    }
    if (npos != 1) {
        lda_error_input(&err, "no corpus given (usage: ldagpu %s)", bench_spec.usage);
        goto fail;
    }
    if (c.repeats > 1000) {
        lda_error_input(&err, "--repeats: at most 1000");
        goto fail;
    }
    if (lda_backend_check_device(c.base.device, &err) == 0 && run_bench(&c, positional[0], &err) == 0)
        goto out;
fail:
    rc = lda_report(argv[0], &err);
out:
    free(c.topics);
    free(c.samplers);
    free(c.precisions);
    free(c.models);
    free(c.splits);
    free(c.pieces);
    return rc;
}
