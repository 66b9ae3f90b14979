/* test_doc_topics.c — θ in the forms `--doc-topics` chooses (model/doc_topics.h, theta.h):
 * the setting read and written; the largest entries against a plain sort; every form built,
 * written and read back, and malformed files refused; the real binary's files against the
 * dense θ of the same run (exactly: the same floats), also through NumPy; every consumer on
 * every form (exact, approximate and said, or refused naming the option); the setting kept by
 * --resume and changed by --resume -n 0; the planned host memory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "helpers.h"
#include "model/doc_topics.h"
#include "model/matrix_file.h"
#include "model/theta.h"
#include "train/run_memory.h"
#include "train/theta_fetch.h"

/* ---- the setting ---- */

Test(doc_topics, every_form_parses_and_formats_back)
{
    static const char *const forms[] = {"auto", "dense", "none", "top:1", "top:20", "sparse:0.01", "sparse:0.125",
                                        "sparse:1"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        lda_doc_topics d;
        lda_error err = {0};
        char buf[64];
        cr_assert_eq(lda_doc_topics_parse("--doc-topics", forms[i], &d, &err), 0, "%s: %s", forms[i], err.msg);
        cr_assert_str_eq(lda_doc_topics_format(&d, buf, sizeof buf), forms[i]);
    }
    lda_doc_topics d;
    lda_error err = {0};
    char buf[64];
    cr_assert_eq(lda_doc_topics_parse("x", "sparse", &d, &err), 0);
    cr_assert_str_eq(lda_doc_topics_format(&d, buf, sizeof buf), "sparse:0.01", "sparse alone: the default EPS");
    static const char *const bad[] = {"", "top", "top:", "top:0", "top:-1", "top:2x", "top:1048577", "sparse:0",
                                      "sparse:-0.1", "sparse:1.5", "sparse:x", "Dense", "top 3", "csr"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_neq(lda_doc_topics_parse("--doc-topics", bad[i], &d, &err), 0, "'%s' was accepted", bad[i]);
        cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT);
        cr_assert(strncmp(err.msg, "--doc-topics", 12) == 0 && strstr(err.msg, bad[i]), "%s", err.msg);
    }
}

/* auto: dense while D x K float32 fits in 1 GiB, sparse one document beyond; top:N beyond K keeps K. */
Test(doc_topics, auto_is_dense_up_to_one_gib_and_sparse_above)
{
    const uint32_t K = 1024;
    const uint64_t most = LDA_DOC_TOPICS_AUTO_DENSE_BYTES / (K * 4ull);
    const lda_doc_topics a = lda_doc_topics_default();
    char why[512];
    lda_doc_topics r = lda_doc_topics_resolve(&a, most, K, why, sizeof why);
    cr_assert_eq(r.form, LDA_DOC_TOPICS_DENSE, "%s", why);
    r = lda_doc_topics_resolve(&a, most + 1, K, why, sizeof why);
    cr_assert_eq(r.form, LDA_DOC_TOPICS_SPARSE);
    cr_assert_eq(r.threshold, LDA_DOC_TOPICS_DEFAULT_EPS);
    cr_assert(strstr(why, "1.0 GiB") && strstr(why, "262145 documents x 1024 topics") && strstr(why, "sparse:0.01") &&
                  strstr(why, "--doc-topics dense"),
              "%s", why);
    const lda_doc_topics top = {LDA_DOC_TOPICS_TOP, 50, 0.0}, dense = {LDA_DOC_TOPICS_DENSE, 0, 0.0};
    r = lda_doc_topics_resolve(&top, 10, 8, why, sizeof why);
    cr_assert(r.form == LDA_DOC_TOPICS_TOP && r.top == 8 && why[0] == '\0');
    r = lda_doc_topics_resolve(&dense, most * 100, K, NULL, 0);
    cr_assert_eq(r.form, LDA_DOC_TOPICS_DENSE, "an explicit form is kept whatever the size");
}

/* ---- the largest entries ---- */

typedef struct {
    uint32_t k;
    float w;
} entry;

static int by_weight_then_topic(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* Against qsort of every entry, on rows full of ties (weights from 4 values), for every n. */
Test(doc_topics, top_entries_equal_a_full_sort_with_ties_by_topic_id)
{
    enum { K = 37 };
    uint32_t seed = 12345, sub[K];
    float row[K], subw[K];
    for (int trial = 0; trial < 300; trial++) {
        for (uint32_t k = 0; k < K; k++) {
            seed = seed * 1103515245u + 12345u;
            row[k] = (float)((seed >> 16) % 4) * 0.25f;
        }
        /* a sparse row: a subset of the topics, ascending, as a CSR row holds them */
        uint32_t count = 0;
        for (uint32_t k = 0; k < K; k++)
            if ((seed >> (k % 16)) & 1) {
                sub[count] = k;
                subw[count++] = row[k];
            }
        for (int sparse = 0; sparse < 2; sparse++) {
            const uint32_t c = sparse ? count : K;
            entry all[K];
            for (uint32_t i = 0; i < c; i++)
                all[i] = (entry){sparse ? sub[i] : i, sparse ? subw[i] : row[i]};
            qsort(all, c, sizeof *all, by_weight_then_topic);
            for (uint32_t n = 0; n <= K + 2; n++) {
                uint32_t topics[K + 2];
                float weights[K + 2];
                uint32_t got = lda_top_entries(sparse ? sub : NULL, sparse ? subw : row, c, n, topics, weights);
                cr_assert_eq(got, n < c ? n : c);
                for (uint32_t i = 0; i < got; i++)
                    cr_assert(topics[i] == all[i].k && weights[i] == all[i].w,
                              "trial %d, n %u, entry %u: topic %u (%g), the sort says %u (%g)", trial, n, i, topics[i],
                              weights[i], all[i].k, all[i].w);
            }
        }
    }
}

/* ---- building, writing, reading ---- */

enum { TD = 50, TK = 9 }; /* the synthetic θ: documents, topics */

/* Row d: proportions from 5 values, many ties (a value over the row's sum); document 7's row is
 * uniform, below every threshold of the sparse forms below. Rows are distributions: reading
 * θ back checks that they are (model_check.h). */
static void synthetic_row(uint64_t d, float *row)
{
    uint32_t sum = 0;
    for (uint32_t k = 0; k < TK; k++)
        sum += (uint32_t)((d * 7 + k * 3) % 5);
    for (uint32_t k = 0; k < TK; k++)
        row[k] = d == 7 ? 1.0f / TK : (float)((d * 7 + k * 3) % 5) / (float)sum;
}

/* Gives the rows in a scrambled order, as the layout's slots do. */
static int synthetic_source(void *ctx, lda_theta_row_fn fn, void *fn_ctx, lda_error *err)
{
    (void)ctx;
    float row[TK];
    for (uint64_t i = 0; i < TD; i++) {
        const uint64_t d = (i * 17) % TD;
        synthetic_row(d, row);
        if (fn(fn_ctx, d, row, err))
            return -1;
    }
    return 0;
}

static void build(lda_theta *t, const char *form)
{
    lda_doc_topics f;
    lda_error err = {0};
    cr_assert_eq(lda_doc_topics_parse("test", form, &f, &err), 0, "%s", err.msg);
    f = lda_doc_topics_resolve(&f, TD, TK, NULL, 0);
    cr_assert_eq(lda_theta_build(t, &f, TD, TK, synthetic_source, NULL, &err), 0, "%s", err.msg);
}

/* What each form must hold of the synthetic rows, checked on any θ of that form. */
static void check_rows(const lda_theta *t)
{
    float row[TK], dense[TK];
    for (uint64_t d = 0; d < TD; d++) {
        synthetic_row(d, row);
        lda_theta_row_dense(t, d, dense);
        const lda_theta_row r = lda_theta_get_row(t, d);
        switch (t->form.form) {
        case LDA_DOC_TOPICS_DENSE:
            cr_assert_eq(memcmp(row, dense, sizeof row), 0, "row %llu", (unsigned long long)d);
            break;
        case LDA_DOC_TOPICS_TOP: {
            entry all[TK];
            for (uint32_t k = 0; k < TK; k++)
                all[k] = (entry){k, row[k]};
            qsort(all, TK, sizeof *all, by_weight_then_topic);
            cr_assert_eq(r.count, t->form.top);
            for (uint32_t i = 0; i < r.count; i++)
                cr_assert(r.topics[i] == all[i].k && r.weights[i] == all[i].w, "row %llu, entry %u",
                          (unsigned long long)d, i);
            break;
        }
        case LDA_DOC_TOPICS_SPARSE:
            for (uint32_t k = 0; k < TK; k++)
                cr_assert_eq(dense[k], row[k] >= (float)t->form.threshold ? row[k] : 0.0f, "row %llu, topic %u",
                             (unsigned long long)d, k);
            for (uint32_t i = 1; i < r.count; i++)
                cr_assert_lt(r.topics[i - 1], r.topics[i], "topics ascending");
            break;
        default:
            cr_assert_eq(r.count, 0);
        }
    }
}

static int file_exists(const char *dir, const char *name)
{
    char path[8192];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &sb) == 0;
}

Test(doc_topics, every_form_is_built_written_and_read_back)
{
    static const char *const forms[] = {"dense", "top:1", "top:4", "top:9", "top:30", "sparse:0.2", "sparse:0.35",
                                        "sparse:1", "none"};
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        lda_theta t, back;
        lda_error err = {0};
        build(&t, forms[i]);
        check_rows(&t);
        cr_assert_eq(lda_theta_write(&t, dir, &err), 0, "%s", err.msg);
        cr_assert_eq(lda_theta_remove_other_forms(t.form.form, dir, &err), 0, "%s", err.msg);
        for (const char *const *f = lda_doc_topics_all_files; *f; f++) {
            int mine = 0;
            for (const char *const *g = lda_doc_topics_files(t.form.form); *g; g++)
                mine |= strcmp(*f, *g) == 0;
            cr_assert_eq(file_exists(dir, *f), mine, "%s: %s %s", forms[i], *f, mine ? "missing" : "left over");
        }
        cr_assert_eq(lda_theta_read(&back, dir, &t.form, TD, TK, &err), 0, "%s: %s", forms[i], err.msg);
        check_rows(&back);
        const uint64_t entries = t.form.form == LDA_DOC_TOPICS_DENSE ? (uint64_t)TD * TK
                                 : t.form.form == LDA_DOC_TOPICS_TOP ? (uint64_t)TD * t.form.top
                                 : t.indptr                          ? t.indptr[TD]
                                                                     : 0;
        if (t.form.form == LDA_DOC_TOPICS_DENSE)
            cr_assert_eq(memcmp(t.dense, back.dense, entries * 4), 0);
        else if (entries)
            cr_assert(memcmp(t.topics, back.topics, entries * 4) == 0 &&
                          memcmp(t.weights, back.weights, entries * 4) == 0,
                      "%s", forms[i]);
        if (t.form.form == LDA_DOC_TOPICS_SPARSE) {
            cr_assert_eq(memcmp(t.indptr, back.indptr, (TD + 1) * 8), 0);
            cr_assert_eq(lda_theta_get_row(&t, 7).count, 0, "the zero row keeps nothing");
        }
        lda_theta_free(&t);
        lda_theta_free(&back);
    }
    test_rmdir(dir);
    free(dir);
}

/* Writes one array into dir (name without .npy). */
static void put(const char *dir, const char *name, lda_matrix_type type, uint64_t rows, uint64_t cols, const void *v)
{
    lda_error err = {0};
    char path[8192];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    cr_assert_eq(lda_matrix_write(path, type, rows, cols, v, &err), 0, "%s", err.msg);
}

static void expect_refused(const char *dir, const char *form, uint64_t docs, const char *needle)
{
    lda_doc_topics f;
    lda_theta t;
    lda_error err = {0};
    cr_assert_eq(lda_doc_topics_parse("test", form, &f, &err), 0);
    cr_assert_neq(lda_theta_read(&t, dir, &f, docs, 4, &err), 0, "%s read: %s expected", form, needle);
    cr_assert_eq(err.status, LDA_EXIT_BAD_INPUT, "%s", err.msg);
    cr_assert(strstr(err.msg, needle), "'%s' not in: %s", needle, err.msg);
}

static const float w6[6] = {0.5f, 0.25f, 0.5f, 0.25f, 0.5f, 0.25f};
static const uint32_t good_topics[6] = {0, 1, 2, 3, 1, 3}, bad_topic[6] = {0, 1, 2, 4, 1, 3},
                      unordered[6] = {0, 1, 3, 2, 1, 3};
static const uint64_t good_ptr[4] = {0, 2, 4, 6}, falling[4] = {0, 4, 2, 6}, not_zero[4] = {1, 2, 4, 6},
                      beyond[4] = {0, 2, 4, 9};

/* In order: write the file (name without .npy; NULL: none), then read θ of `form` with `docs`
 * documents (K = 4) and expect the refusal (needle NULL: no reading). */
static const struct {
    const char *name;
    lda_matrix_type type;
    uint64_t rows, cols;
    const void *data;
    const char *form;
    uint64_t docs;
    const char *needle;
} malformed[] = {
    /* top:2 of 3 documents */
    {"doc_topics_weight", LDA_MATRIX_F32, 3, 2, w6, NULL, 0, NULL},
    {"doc_topics_index", LDA_MATRIX_U32, 3, 2, bad_topic, "top:2", 3,
     "doc_topics_index.npy: topic 4 at row 1 is not below K = 4"},
    {NULL, 0, 0, 0, NULL, "top:2", 4, "doc_topics_index.npy: 3 x 2 values, model.conf implies 4 x 2"},
    {NULL, 0, 0, 0, NULL, "top:3", 3, "3 x 2 values, model.conf implies 3 x 3"},
    {"doc_topics_index", LDA_MATRIX_F32, 3, 2, w6, "top:2", 3, "its elements are not little-endian uint32"},
    /* sparse of 3 documents, 6 entries */
    {"theta_indices", LDA_MATRIX_U32, 6, 0, good_topics, NULL, 0, NULL},
    {"theta_data", LDA_MATRIX_F32, 6, 0, w6, "sparse", 3, "theta_indptr.npy: No such file"},
    {"theta_indptr", LDA_MATRIX_U32, 4, 0, good_topics, "sparse", 3,
     "theta_indptr.npy: cannot read this .npy file: its elements are not little-endian uint64"},
    {"theta_indptr", LDA_MATRIX_U64, 4, 0, falling, "sparse", 3,
     "theta_indptr.npy: row pointer 2 (2) is below the one before it (4)"},
    {"theta_indptr", LDA_MATRIX_U64, 4, 0, not_zero, "sparse", 3,
     "theta_indptr.npy: the first row pointer is 1, not 0"},
    {"theta_indptr", LDA_MATRIX_U64, 4, 0, beyond, "sparse", 3,
     "theta_indices.npy: 6 x 1 values, model.conf implies 9 x 1"},
    {"theta_indptr", LDA_MATRIX_U64, 4, 0, good_ptr, "sparse", 4,
     "theta_indptr.npy: 4 x 1 values, model.conf implies 5 x 1"},
    {"theta_indices", LDA_MATRIX_U32, 6, 0, bad_topic, "sparse", 3,
     "theta_indices.npy: topic 4 at entry 3 is not below K = 4"},
    {"theta_indices", LDA_MATRIX_U32, 6, 0, unordered, "sparse", 3,
     "theta_indices.npy: the topics of row 1 are not in increasing order (2 after 3)"},
    {"theta_indices", LDA_MATRIX_U32, 6, 0, good_topics, NULL, 0, NULL},
};

/* A θ file is input: sizes against model.conf, topics below K, a CSR's rows well formed. */
Test(doc_topics, malformed_theta_files_are_refused)
{
    char *dir = test_tmpdir();
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        if (malformed[i].name)
            put(dir, malformed[i].name, malformed[i].type, malformed[i].rows, malformed[i].cols, malformed[i].data);
        if (malformed[i].needle)
            expect_refused(dir, malformed[i].form, malformed[i].docs, malformed[i].needle);
    }
    lda_doc_topics f;
    lda_theta t;
    lda_error err = {0};
    cr_assert_eq(lda_doc_topics_parse("test", "sparse", &f, &err), 0);
    cr_assert_eq(lda_theta_read(&t, dir, &f, 3, 4, &err), 0, "the well-formed one reads: %s", err.msg);
    float row[4];
    lda_theta_row_dense(&t, 1, row);
    cr_assert(row[0] == 0 && row[1] == 0 && row[2] == 0.5f && row[3] == 0.25f);
    lda_theta_free(&t);
    test_rmdir(dir);
    free(dir);
}

/* ---- from the backend ---- */

/* θ from the backend in chunks of slots (theta_fetch.h) equals its whole θ, in input order:
 * cut documents (pieces of 16 tokens) by their first piece, the documents missing from the
 * layout (here: every 7th, as if held out) uniform; on the CPU, and on the GPU where there is
 * one (mean-for-mode: θ the staged kernel leaves stale until fetched). */
enum { FETCH_K = 8, FETCH_DOCS = 300 };

/* A backend trained 3 iterations on FETCH_DOCS planted documents but every 7th (as if held
 * out: c keeps their input indices), cut into pieces of 16 tokens; mean-for-mode (θ the staged
 * kernel leaves stale until fetched). */
typedef struct {
    corpus *all, *c;
    lda_layout *L;
    lda_backend *b;
} fetch_setup;

static fetch_setup fetch_setup_make(lda_device device)
{
    fetch_setup f = {0};
    lda_error err = {0};
    f.all = test_planted_corpus(4, 10, FETCH_DOCS, 5, 90, 21, NULL);
    cr_assert(f.all);
    const uint32_t *docs[FETCH_DOCS];
    uint32_t len[FETCH_DOCS];
    size_t n = 0;
    for (size_t d = 0; d < FETCH_DOCS; d++)
        if (d % 7) {
            docs[n] = f.all->words + f.all->doc_offsets[d];
            len[n++] = (uint32_t)(f.all->doc_offsets[d + 1] - f.all->doc_offsets[d]);
        }
    f.c = test_corpus_from_docs(n, docs, len, f.all->vocab_size);
    for (size_t i = 0, d = 0; d < FETCH_DOCS; d++)
        if (d % 7)
            f.c->input_index[i++] = d;
    f.c->num_input_docs = FETCH_DOCS;
    f.L = lda_layout_build(f.c, 16, &err);
    cr_assert(f.L && f.L->num_cut_docs > 10, "%s", err.msg);
    lda_params p;
    lda_params_default(&p);
    p.num_topics = FETCH_K;
    p.device = device;
    p.threads = 2;
    p.piece_length = 16;
    lda_params_set_model(&p, LDA_MODEL_MEAN_FOR_MODE);
    f.b = lda_backend_create(f.L, &p, &err);
    cr_assert(f.b, "%s", err.msg);
    lda_iter_timing timing;
    cr_assert_eq(f.b->ops->start(f.b, NULL, 0, &err), 0, "%s", err.msg);
    for (uint32_t it = 1; it <= 3; it++)
        cr_assert_eq(f.b->ops->iterate(f.b, it, &timing, &err), 0, "%s", err.msg);
    return f;
}

static void fetch_setup_free(fetch_setup *f)
{
    lda_backend_destroy(f->b);
    lda_layout_free(f->L);
    corpus_free(f->c);
    corpus_free(f->all);
}

/* θ from the backend in chunks of slots (theta_fetch.h) equals its whole θ, in input order:
 * cut documents by their first piece, the documents missing from the layout uniform; on the
 * CPU, and on the GPU where there is one. */
static void fetch_equals_the_backends_theta(lda_device device)
{
    enum { K = FETCH_K, DOCS = FETCH_DOCS };
    lda_error err = {0};
    fetch_setup fs = fetch_setup_make(device);
    lda_backend *b = fs.b;
    const lda_layout *L = fs.L;
    const corpus *c = fs.c;
    float *whole = malloc(L->num_slots * K * sizeof *whole);
    cr_assert_eq(b->ops->fetch(b, whole, NULL, NULL, &err), 0, "%s", err.msg);
    static const char *const forms[] = {"dense", "top:3", "sparse:0.05"};
    static const size_t chunks[] = {32, 96, 0};
    for (size_t f = 0; f < 3; f++)
        for (size_t ch = 0; ch < 3; ch++) {
            lda_doc_topics form;
            lda_theta t;
            cr_assert_eq(lda_doc_topics_parse("test", forms[f], &form, &err), 0);
            cr_assert_eq(lda_theta_fetch(&t, b, c, DOCS, &form, chunks[ch], &err), 0, "%s", err.msg);
            float want[K], got[K], uniform[K];
            for (uint32_t k = 0; k < K; k++)
                uniform[k] = 1.0f / K;
            for (size_t i = 0, d = 0; d < DOCS; d++) {
                const float *row = d % 7 ? whole + (size_t)L->doc_slot[i++] * K : uniform;
                lda_theta_row_dense(&t, d, got);
                uint32_t topics[K];
                float weights[K];
                const uint32_t kept = lda_top_entries(NULL, row, K, 3, topics, weights);
                for (uint32_t k = 0; k < K; k++)
                    want[k] = form.form == LDA_DOC_TOPICS_DENSE ? row[k] : row[k] >= 0.05f ? row[k] : 0.0f;
                if (form.form == LDA_DOC_TOPICS_TOP) {
                    memset(want, 0, sizeof want);
                    for (uint32_t r = 0; r < kept; r++)
                        want[topics[r]] = weights[r];
                }
                cr_assert_eq(memcmp(want, got, sizeof want), 0, "%s, chunks of %zu: document %zu", forms[f],
                             chunks[ch], d);
            }
            lda_theta_free(&t);
        }
    free(whole);
    fetch_setup_free(&fs);
}

Test(doc_topics, fetched_in_chunks_equals_the_cpu_backends_theta) { fetch_equals_the_backends_theta(LDA_DEVICE_CPU); }

/* A check on the GPU, skipped where there is none (in the gpu suite, which gpu-check.sh runs
 * under compute-sanitizer memcheck). */
static void on_the_gpu(void (*check)(lda_device))
{
    char why[256];
    if (lda_cuda_device_count(why, sizeof why) == 0)
        cr_skip_test("no GPU here: %s", why);
    check(LDA_DEVICE_CUDA);
}

Test(gpu, doc_topics_fetched_in_chunks_equal_the_backends_theta) { on_the_gpu(fetch_equals_the_backends_theta); }

/* The backend's fetch_theta_rows, watched: how often each slot is fetched, and fetches that
 * go into the buffer the fetch before them filled (which the selection may still be reading). */
static const lda_backend_ops *watched_ops;
static unsigned watched_fetches[FETCH_DOCS * 8]; /* slots: the documents, their pieces, padding */
static const float *watched_last;
static unsigned watched_same_buffer;

static int watched_fetch(lda_backend *b, size_t first, size_t count, float *theta, lda_error *err)
{
    for (size_t i = 0; i < count; i++)
        watched_fetches[first + i]++;
    watched_same_buffer += theta == watched_last;
    watched_last = theta;
    return watched_ops->fetch_theta_rows(b, first, count, theta, err);
}

/* The same bytes in every array of two θ of one form. */
static int theta_same(const lda_theta *a, const lda_theta *b)
{
    const uint64_t D = a->num_docs, K = a->num_topics;
    switch (a->form.form) {
    case LDA_DOC_TOPICS_DENSE:
        return memcmp(a->dense, b->dense, D * K * 4) == 0;
    case LDA_DOC_TOPICS_TOP:
        return memcmp(a->topics, b->topics, D * a->form.top * 4) == 0 &&
               memcmp(a->weights, b->weights, D * a->form.top * 4) == 0;
    case LDA_DOC_TOPICS_SPARSE:
        return memcmp(a->indptr, b->indptr, (D + 1) * 8) == 0 &&
               memcmp(a->topics, b->topics, a->indptr[D] * 4) == 0 &&
               memcmp(a->weights, b->weights, a->indptr[D] * 4) == 0;
    default:
        return 1;
    }
}

/* Every form's θ is the same bytes for 1, 2 and 3 threads and chunks of 32, 64, 96 and all
 * slots; each slot is fetched once (sparse included), and each fetch goes into the other
 * buffer than the one before it, which the threads are keeping the entries of. */
static void fetch_once_same_for_any_threads(lda_device device)
{
    lda_error err = {0};
    fetch_setup fs = fetch_setup_make(device);
    lda_backend *b = fs.b;
    cr_assert_leq(fs.L->num_slots, sizeof watched_fetches / sizeof watched_fetches[0]);
    lda_backend_ops ops = *b->ops;
    ops.fetch_theta_rows = watched_fetch;
    watched_ops = b->ops;
    b->ops = &ops;
    static const char *const forms[] = {"dense", "top:3", "sparse:0.05", "sparse:0.3"};
    static const size_t chunks[] = {32, 64, 96, 0};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        lda_doc_topics form;
        lda_theta want;
        cr_assert_eq(lda_doc_topics_parse("test", forms[f], &form, &err), 0);
        b->params.threads = 1;
        cr_assert_eq(lda_theta_fetch(&want, b, fs.c, FETCH_DOCS, &form, 0, &err), 0, "%s", err.msg);
        for (int threads = 1; threads <= 3; threads++)
            for (size_t ch = 0; ch < sizeof chunks / sizeof chunks[0]; ch++) {
                lda_theta t;
                memset(watched_fetches, 0, sizeof watched_fetches);
                watched_last = NULL;
                watched_same_buffer = 0;
                b->params.threads = threads;
                cr_assert_eq(lda_theta_fetch(&t, b, fs.c, FETCH_DOCS, &form, chunks[ch], &err), 0, "%s", err.msg);
                for (size_t slot = 0; slot < fs.L->num_slots; slot++)
                    cr_assert_eq(watched_fetches[slot], 1, "%s, chunks of %zu: slot %zu fetched %u times", forms[f],
                                 chunks[ch], slot, watched_fetches[slot]);
                cr_assert_eq(watched_same_buffer, 0, "%s, chunks of %zu: %u fetches into the buffer just filled",
                             forms[f], chunks[ch], watched_same_buffer);
                cr_assert(theta_same(&t, &want), "%s, %d threads, chunks of %zu: not the same θ", forms[f], threads,
                          chunks[ch]);
                lda_theta_free(&t);
            }
        lda_theta_free(&want);
    }
    b->ops = watched_ops;
    fetch_setup_free(&fs);
}

Test(doc_topics, fetched_once_the_same_for_any_threads_and_chunks) { fetch_once_same_for_any_threads(LDA_DEVICE_CPU); }

Test(gpu, doc_topics_fetched_once_the_same_for_any_threads_and_chunks) { on_the_gpu(fetch_once_same_for_any_threads); }

/* Rows given in blocks over a pool's threads (as the fetch gives them) make the same θ as row by
 * row, for blocks of any size with rows that stand for no document among them; rows that sum
 * above 1 (every 5th: each entry 0.5, more entries ≥ EPS than a row's place holds) are kept
 * whole too. */
static void heavy_row(uint64_t d, float *row)
{
    synthetic_row(d, row);
    if (d % 5 == 0)
        for (uint32_t k = 0; k < TK; k++)
            row[k] = 0.5f;
}

static int heavy_source(void *ctx, lda_theta_row_fn fn, void *fn_ctx, lda_error *err)
{
    (void)ctx;
    float row[TK];
    for (uint64_t d = 0; d < TD; d++) {
        heavy_row(d, row);
        if (fn(fn_ctx, d, row, err))
            return -1;
    }
    return 0;
}

Test(doc_topics, rows_kept_in_blocks_over_threads_equal_row_by_row)
{
    static const char *const forms[] = {"dense", "top:4", "sparse:0.2", "sparse:0.35", "sparse:1"};
    lda_error err = {0};
    lda_pool *pool = lda_pool_create(3, &err);
    cr_assert(pool, "%s", err.msg);
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        lda_doc_topics form;
        cr_assert_eq(lda_doc_topics_parse("test", forms[f], &form, &err), 0);
        form = lda_doc_topics_resolve(&form, TD, TK, NULL, 0);
        lda_theta want;
        cr_assert_eq(lda_theta_build(&want, &form, TD, TK, heavy_source, NULL, &err), 0, "%s", err.msg);
        for (uint64_t d = 0; d < TD; d++) { /* what row by row keeps: the entries ≥ EPS, all of them */
            float row[TK], got[TK];
            heavy_row(d, row);
            lda_theta_row_dense(&want, d, got);
            for (uint32_t k = 0; form.form == LDA_DOC_TOPICS_SPARSE && k < TK; k++)
                cr_assert_eq(got[k], row[k] >= (float)form.threshold ? row[k] : 0.0f, "%s: row %llu, topic %u",
                             forms[f], (unsigned long long)d, k);
        }
        for (size_t block = 1; block <= 11; block += 5) {
            /* the documents in a scrambled order, every 4th place no document's */
            enum { PLACES = TD + TD / 3 + 1 };
            uint64_t docs[PLACES];
            float rows[PLACES * TK];
            size_t n = 0;
            for (uint64_t i = 0; i < TD; i++) {
                if (n % 4 == 3)
                    docs[n++] = LDA_THETA_NO_ROW;
                docs[n] = (i * 17) % TD;
                heavy_row(docs[n], rows + n * TK);
                n++;
            }
            lda_theta_builder bld;
            lda_theta t;
            cr_assert_eq(lda_theta_build_begin(&bld, &t, &form, TD, TK, &err), 0, "%s", err.msg);
            for (size_t at = 0; at < n; at += block)
                cr_assert_eq(lda_theta_build_rows(&bld, pool, docs + at, rows + at * TK, 1,
                                                  n - at < block ? n - at : block, &err),
                             0, "%s", err.msg);
            cr_assert_eq(lda_theta_build_end(&bld, &err), 0, "%s", err.msg);
            cr_assert(theta_same(&t, &want), "%s, blocks of %zu: not the same θ", forms[f], block);
            lda_theta_free(&t);
        }
        lda_theta_free(&want);
    }
    lda_pool_destroy(pool);
}

/* ---- the planned host memory ---- */

Test(doc_topics, run_memory_plans_the_form_not_a_dense_theta)
{
    const uint32_t len[3] = {5, 3, 4}, w[5] = {0, 1, 2, 1, 0};
    const uint32_t *docs[3] = {w, w, w};
    corpus *c = test_corpus_from_docs(3, docs, len, 3);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    lda_params p;
    lda_params_default(&p);
    p.num_topics = 1000;
    const uint64_t D = 1000000; /* input documents: most of them empty, as far as memory goes */
    const lda_doc_topics dense = {LDA_DOC_TOPICS_DENSE, 0, 0.0}, top = {LDA_DOC_TOPICS_TOP, 10, 0.0},
                         sparse = {LDA_DOC_TOPICS_SPARSE, 0, 0.05}, none = {LDA_DOC_TOPICS_NONE, 0, 0.0};
    for (int on_cpu = 0; on_cpu < 2; on_cpu++) {
        const uint64_t b_dense = lda_run_host_bytes(L, &p, on_cpu, D, &dense, 0),
                       b_top = lda_run_host_bytes(L, &p, on_cpu, D, &top, 0),
                       b_sparse = lda_run_host_bytes(L, &p, on_cpu, D, &sparse, 0),
                       b_none = lda_run_host_bytes(L, &p, on_cpu, D, &none, 0);
        cr_assert_eq(b_dense - b_none, D * 1000 * 4, "dense: D x K float32");
        cr_assert_eq(b_top - b_none, D * 10 * 8, "top:10: D x 10 topics and weights");
        cr_assert_eq(b_sparse - b_none, D * 21 * 8 + (D + 1) * 8,
                     "sparse:0.05: at most 21 entries a row, and D + 1 pointers");
    }
    lda_layout_free(L);
    corpus_free(c);
}

/* ---- the real binary ---- */

static void run_ok(const char *args)
{
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    free(out);
}

/* mean-for-mode θ = (n + α)/(N + Kα): the topics a document has the same count of tie exactly,
 * which is what the order's tie rule is for; 10% held out have the uniform row (all ties). */
#define TRAIN "train '%s/data/wiki2k.txt.gz' -K 8 -n 3 -s 4 -m mean-for-mode --holdout 0.1 -j 2 -q --device cpu"

static char *train(const char *dir, const char *name, const char *form)
{
    char args[4096], *m = NULL;
    cr_assert(asprintf(&m, "%s/%s", dir, name) > 0);
    snprintf(args, sizeof args, TRAIN " --doc-topics %s -o '%s'", test_root(), form, m);
    run_ok(args);
    return m;
}

static void *load(const char *dir, const char *file, lda_matrix_type type, uint64_t *rows, uint64_t *cols)
{
    char path[4096];
    void *v = NULL;
    lda_error err = {0};
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cr_assert_eq(lda_matrix_read(path, type, rows, cols, &v, &err), 0, "%s", err.msg);
    return v;
}

static char *conf_line(const char *dir, const char *key)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.conf", dir);
    char *conf = test_read_file(path), *line = conf ? strstr(conf, key) : NULL;
    cr_assert(line, "%s: no %s", path, key);
    char *out = strndup(line, strcspn(line, "\n"));
    free(conf);
    return out;
}

/* top:3 and sparse:0.1 of the run that also wrote theta.npy with the same seed: exactly its
 * sorted rows (ties by topic id) and its entries of at least 0.1. */
static void check_against_dense(const char *dense_dir, const char *top_dir, const char *sparse_dir)
{
    uint64_t D_, K_, r, c;
    float *theta = load(dense_dir, "theta.npy", LDA_MATRIX_F32, &D_, &K_);
    uint32_t *idx = load(top_dir, "doc_topics_index.npy", LDA_MATRIX_U32, &r, &c);
    cr_assert(r == D_ && c == 3);
    float *w = load(top_dir, "doc_topics_weight.npy", LDA_MATRIX_F32, &r, &c);
    cr_assert(r == D_ && c == 3);
    uint64_t *ptr = load(sparse_dir, "theta_indptr.npy", LDA_MATRIX_U64, &r, &c);
    cr_assert(r == D_ + 1 && c == 1);
    uint32_t *ind = load(sparse_dir, "theta_indices.npy", LDA_MATRIX_U32, &r, &c);
    cr_assert_eq(r, ptr[D_]);
    float *data = load(sparse_dir, "theta_data.npy", LDA_MATRIX_F32, &r, &c);
    cr_assert_eq(r, ptr[D_]);
    int ties = 0;
    for (uint64_t d = 0; d < D_; d++) {
        entry all[8];
        const float *row = theta + d * K_;
        for (uint32_t k = 0; k < K_; k++)
            all[k] = (entry){k, row[k]};
        qsort(all, K_, sizeof *all, by_weight_then_topic);
        for (uint32_t i = 0; i < 3; i++) {
            cr_assert(idx[d * 3 + i] == all[i].k && w[d * 3 + i] == all[i].w, "document %llu, rank %u",
                      (unsigned long long)d, i);
            ties += all[i].w == all[i + 1].w;
        }
        float rebuilt[8] = {0};
        for (uint64_t e = ptr[d]; e < ptr[d + 1]; e++)
            rebuilt[ind[e]] = data[e];
        for (uint32_t k = 0; k < K_; k++)
            cr_assert_eq(rebuilt[k], row[k] >= 0.1f ? row[k] : 0.0f, "document %llu, topic %u", (unsigned long long)d,
                         k);
    }
    cr_assert_gt(ties, 200, "the run has ties for the order to break (%d)", ties);
    free(theta);
    free(idx);
    free(w);
    free(ptr);
    free(ind);
    free(data);
}

Test(doc_topics, top_and_sparse_files_are_the_dense_theta_of_the_same_run)
{
    char *dir = test_tmpdir(), *dense = train(dir, "dense", "dense"), *top = train(dir, "top", "top:3"),
         *sparse = train(dir, "sparse", "sparse:0.1"), *none = train(dir, "none", "none");
    check_against_dense(dense, top, sparse);
    char *line = conf_line(top, "doc_topics");
    cr_assert_str_eq(line, "doc_topics = top:3");
    free(line);
    line = conf_line(none, "doc_topics");
    cr_assert_str_eq(line, "doc_topics = none");
    free(line);
    cr_assert(!file_exists(top, "theta.npy") && !file_exists(sparse, "theta.npy") && !file_exists(none, "theta.npy") &&
                  !file_exists(none, "theta_indptr.npy") && !file_exists(none, "doc_topics_index.npy"),
              "one form's files a folder");
    /* The rest of the model does not depend on the form. */
    static const char *const same[] = {"phi.npy", "z.npy", "topic_tokens.npy", "topics.txt", "heldout.txt"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/%s", dense, same[i]);
        snprintf(b, sizeof b, "%s/%s", none, same[i]);
        cr_assert(test_same_bytes(a, b), "%s differs", same[i]);
    }
    /* NumPy reads them with no SciPy: the same checks, in NumPy's terms. */
    const char *python = test_python_with("numpy");
    if (python) {
        static const char script[] =
            "import sys, numpy as np\n"
            "d, t, s = sys.argv[1:4]\n"
            "theta = np.load(d + '/theta.npy')\n"
            "D, K = theta.shape\n"
            "idx, w = np.load(t + '/doc_topics_index.npy'), np.load(t + '/doc_topics_weight.npy')\n"
            "assert idx.dtype == np.uint32 and w.dtype == np.float32 and idx.shape == w.shape == (D, 3)\n"
            "order = np.lexsort((np.broadcast_to(np.arange(K), theta.shape), -theta), axis=1)[:, :3]\n"
            "assert (order == idx).all() and (np.take_along_axis(theta, order, 1) == w).all()\n"
            "ip, ii, dd = (np.load(s + '/theta_' + x + '.npy') for x in ('indptr', 'indices', 'data'))\n"
            "assert ip.dtype == np.uint64 and ii.dtype == np.uint32 and dd.dtype == np.float32\n"
            "assert ip.shape == (D + 1,) and ii.shape == dd.shape == (int(ip[-1]),)\n"
            "R = np.zeros_like(theta)\n"
            "R[np.repeat(np.arange(D), np.diff(ip.astype(np.int64))), ii] = dd\n"
            "assert (R == np.where(theta >= np.float32(0.1), theta, 0)).all()\n"
            "print('numpy ok')\n";
        char args[4096], *out = NULL;
        snprintf(args, sizeof args, "'%s' '%s' '%s'", dense, top, sparse);
        cr_assert_eq(test_run_python(python, script, args, &out), 0, "%s", out);
        cr_assert(strstr(out, "numpy ok"), "%s", out);
        free(out);
    }
    free(dense);
    free(top);
    free(sparse);
    free(none);
    test_rmdir(dir);
    free(dir);
}

/* θ is rebuilt exactly from z: --resume -n 0 --doc-topics FORM rewrites a model in another form
 * (the other form's files removed), equal to training with that form. */
Test(doc_topics, resume_with_no_iterations_rewrites_theta_in_another_form)
{
    char *dir = test_tmpdir(), *dense = train(dir, "dense", "dense"), *top = train(dir, "top", "top:3"), args[8192];
    snprintf(args, sizeof args, "train --resume '%s' -n 0 -j 1 -q --device cpu --doc-topics top:3 -o '%s/conv'", dense,
             dir);
    run_ok(args);
    char conv[1024];
    snprintf(conv, sizeof conv, "%s/conv", dir);
    static const char *const files[] = {"doc_topics_index.npy", "doc_topics_weight.npy", "phi.npy", "z.npy"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/%s", conv, files[i]);
        snprintf(b, sizeof b, "%s/%s", top, files[i]);
        cr_assert(test_same_bytes(a, b), "%s differs", files[i]);
    }
    /* in place, and back: theta.npy again as it was, the top files gone */
    snprintf(args, sizeof args, "train --resume '%s' -n 0 -q --device cpu --doc-topics dense", conv);
    run_ok(args);
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/theta.npy", conv);
    snprintf(b, sizeof b, "%s/theta.npy", dense);
    cr_assert(test_same_bytes(a, b), "theta.npy rebuilt from z differs");
    cr_assert(!file_exists(conv, "doc_topics_index.npy") && !file_exists(conv, "doc_topics_weight.npy"));
    char *line = conf_line(conv, "doc_topics");
    cr_assert_str_eq(line, "doc_topics = dense");
    free(line);
    free(dense);
    free(top);
    test_rmdir(dir);
    free(dir);
}

/* The setting is recorded: a resumed run keeps it (checkpoint included) and ends as the
 * uninterrupted run, byte for byte. */
Test(doc_topics, resume_keeps_the_form)
{
    char *dir = test_tmpdir(), args[8192];
    snprintf(args, sizeof args, TRAIN " --doc-topics sparse:0.2 -n 4 -o '%s/full'", test_root(), dir);
    run_ok(args);
    snprintf(args, sizeof args, TRAIN " --doc-topics sparse:0.2 -n 2 --checkpoint-every 1 -o '%s/part'", test_root(),
             dir);
    run_ok(args);
    char part[1024], full[1024];
    snprintf(part, sizeof part, "%s/part", dir);
    snprintf(full, sizeof full, "%s/full", dir);
    char ckpt[1200];
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint", part);
    char *line = conf_line(ckpt, "doc_topics");
    cr_assert_str_eq(line, "doc_topics = sparse:0.2", "the checkpoint records it");
    free(line);
    snprintf(args, sizeof args, "train --resume '%s' -n 2 -j 1 -q --device cpu", part);
    run_ok(args);
    line = conf_line(part, "doc_topics");
    cr_assert_str_eq(line, "doc_topics = sparse:0.2");
    free(line);
    static const char *const files[] = {"theta_indptr.npy", "theta_indices.npy", "theta_data.npy", "phi.npy", "z.npy"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/%s", part, files[i]);
        snprintf(b, sizeof b, "%s/%s", full, files[i]);
        cr_assert(test_same_bytes(a, b), "%s differs from the uninterrupted run's", files[i]);
    }
    cr_assert(!file_exists(part, "theta.npy"));
    test_rmdir(dir);
    free(dir);
}

/* ---- the consumers ---- */

static char *run_out(const char *args)
{
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    return out;
}

/* stdout only (stderr names the model folder, which differs). */
static char *stdout_of(const char *args)
{
    char cmd[8192];
    int status;
    snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", getenv("LDAGPU_BIN"), args);
    char *out = test_shell(cmd, &status);
    cr_assert_eq(status, 0, "ldagpu %s: exit %d", args, status);
    return out;
}

/* topics, eval, infer never read θ: the same output whatever the form. */
Test(doc_topics, topics_eval_and_infer_work_on_every_form)
{
    char *dir = test_tmpdir(), *dense = train(dir, "dense", "dense"), *top = train(dir, "top", "top:2"),
         *none = train(dir, "none", "none"), args[8192];
    const char *models[3] = {dense, top, none};
    char *want[3] = {NULL};
    for (int i = 0; i < 3; i++) {
        const char *m = models[i];
        char *got[3];
        snprintf(args, sizeof args, "topics '%s' --top 5 --coherence --format tsv", m);
        got[0] = stdout_of(args);
        snprintf(args, sizeof args, "eval '%s' '%s/data/wiki2k.txt.gz' --docs '%s/heldout.txt' --device cpu -j 1", m,
                 test_root(), m);
        got[1] = stdout_of(args);
        snprintf(args, sizeof args, "infer '%s' '%s/data/wiki2k.txt.gz' -n 3 --device cpu --doc-topics top:2", m,
                 test_root());
        got[2] = stdout_of(args);
        for (int j = 0; j < 3; j++) {
            cr_assert(strlen(got[j]) > 20, "%s", got[j]);
            if (i == 0)
                want[j] = got[j];
            else {
                cr_assert_str_eq(got[j], want[j], "output %d of %s differs from the dense model's", j, m);
                free(got[j]);
            }
        }
    }
    for (int j = 0; j < 3; j++)
        free(want[j]);
    free(dense);
    free(top);
    free(none);
    test_rmdir(dir);
    free(dir);
}

/* The <ol class="docs"> lists of a report page, concatenated (the documents shown). */
static char *doc_lists(const char *html_path)
{
    char *html = test_read_file(html_path), *out = calloc(1, strlen(html) + 1), *p = html;
    cr_assert(html && out);
    while ((p = strstr(p, "<ol class=\"docs\">"))) {
        char *end = strstr(p, "</ol>");
        cr_assert(end);
        strncat(out, p, (size_t)(end - p));
        p = end;
    }
    free(html);
    return out;
}

Test(doc_topics, report_ranks_documents_from_what_theta_keeps)
{
    char *dir = test_tmpdir(), *dense = train(dir, "dense", "dense"), *sparse = train(dir, "sparse", "sparse:0.001"),
         *top = train(dir, "top", "top:1"), *none = train(dir, "none", "none"), args[8192];
    const char *models[4] = {dense, sparse, top, none};
    char *lists[4], *pages[4];
    for (int i = 0; i < 4; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/page%d.html", dir, i);
        snprintf(args, sizeof args, "report '%s' -o '%s' -j 1", models[i], path);
        free(run_out(args));
        lists[i] = doc_lists(path);
        pages[i] = test_read_file(path);
    }
    cr_assert(strlen(lists[0]) > 1000, "the dense model's page lists documents");
    /* every document shown has more than 0.001 of its topic: the sparse θ gives the same lists */
    cr_assert_str_eq(lists[1], lists[0]);
    cr_assert(strstr(pages[1], "The model keeps the entries of θ of at least 0.001 only (doc_topics = sparse:0.001)"));
    cr_assert(strlen(lists[2]) > 0 && strstr(pages[2], "each document&#39;s 1 largest topics only"), "top:1 says so");
    cr_assert_str_eq(lists[3], "", "no θ, no documents");
    cr_assert(strstr(pages[3], "The model keeps no θ (doc_topics = none): no documents are listed."));
    cr_assert(!strstr(pages[0], "The model keeps"), "a dense θ needs no note");
    for (int i = 0; i < 4; i++) {
        free(lists[i]);
        free(pages[i]);
    }
    free(dense);
    free(sparse);
    free(top);
    free(none);
    test_rmdir(dir);
    free(dir);
}

/* Mallet's document topics: exact where the form holds them (byte for byte the dense model's
 * export), else refused with one line naming the option; pyLDAvis: rows rescaled, said. */
Test(doc_topics, export_is_exact_where_it_can_be_and_refuses_or_says_so_elsewhere)
{
    char *dir = test_tmpdir(), *dense = train(dir, "dense", "dense"), *top = train(dir, "top", "top:3"),
         *sparse = train(dir, "sparse", "sparse:0.1"), *none = train(dir, "none", "none"), args[16384], a[2048],
         b[2048];
    static const struct {
        int model; /* 1: top:3, 2: sparse:0.1 */
        const char *flags;
    } exact[] = {{1, "--doc-topics-max 3"}, {1, "--doc-topics-max 2 --doc-topics-threshold 0.2"},
                 {2, "--doc-topics-threshold 0.1"}, {2, "--doc-topics-threshold 0.3 --doc-topics-max 1"}};
    const char *models[3] = {dense, top, sparse};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        snprintf(a, sizeof a, "%s/from_dense.txt", dir);
        snprintf(b, sizeof b, "%s/from_form.txt", dir);
        snprintf(args, sizeof args, "export '%s' --output-doc-topics '%s' %s", dense, a, exact[i].flags);
        run_ok(args);
        snprintf(args, sizeof args, "export '%s' --output-doc-topics '%s' %s", models[exact[i].model], b,
                 exact[i].flags);
        run_ok(args);
        cr_assert(test_same_bytes(a, b), "%s from %s differs from the dense model's", exact[i].flags,
                  models[exact[i].model]);
    }
    static const struct {
        const char *model, *flags, *needle;
    } refused[] = {
        {"top", "", "keeps θ as top:3 (each document's 3 largest topics only); these document topics need "
                    "more (--doc-topics-max 3 or less exports exactly what it keeps): rewrite it with 'ldagpu "
                    "train --resume"},
        {"top", "--doc-topics-max 4", "--doc-topics-max 3 or less"},
        {"top", "--doc-topics-threshold 0.5", "--doc-topics-max 3 or less"},
        {"sparse", "--doc-topics-max 2", "keeps θ as sparse:0.1 (its entries of at least 0.1 only); these document "
                                         "topics need more (--doc-topics-threshold 0.1 or more"},
        {"sparse", "--doc-topics-threshold 0.05", "-n 0 --doc-topics dense' (θ is rebuilt exactly from z)"},
        {"none", "", "keeps θ as none (no θ at all); document topics need θ"},
        {"none", "--pyldavis x.json", "keeps θ as none (no θ at all); pyLDAvis needs θ"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(a, sizeof a, "%s/refused.txt", dir);
        if (strstr(refused[i].flags, "pyldavis"))
            snprintf(args, sizeof args, "export '%s/%s' --output-topic-keys '%s' %s", dir, refused[i].model, a,
                     refused[i].flags);
        else
            snprintf(args, sizeof args, "export '%s/%s' --output-topic-keys '%s' --output-doc-topics '%s' %s", dir,
                     refused[i].model, a, a, refused[i].flags);
        test_expect_failure(args, 2, refused[i].needle);
        cr_assert(!file_exists(dir, "refused.txt"), "refused before writing anything");
    }
    /* pyLDAvis from top:3: rows of the 3 kept entries rescaled to sum to 1, and a warning */
    snprintf(a, sizeof a, "%s/lv.json", dir);
    snprintf(args, sizeof args, "export '%s' --pyldavis '%s'", top, a);
    char *out = run_out(args);
    cr_assert(strstr(out, "keeps θ as top:3: pyLDAvis's doc_topic_dists are its kept entries, the others 0, each row "
                          "rescaled to sum to 1 (0 rows kept none and are uniform): an approximation"),
              "%s", out);
    free(out);
    const char *python = test_python_with("json");
    if (python) {
        static const char script[] =
            "import json, sys\n"
            "rows = json.load(open(sys.argv[1]))['doc_topic_dists']\n"
            "assert len(rows) > 1000 and all(abs(sum(r) - 1) < 1e-5 for r in rows)\n"
            "assert all(sum(1 for x in r if x > 0) <= 3 for r in rows)\n"
            "print('rows ok')\n";
        char *pout = NULL;
        char quoted[4200];
        snprintf(quoted, sizeof quoted, "'%s'", a);
        cr_assert_eq(test_run_python(python, script, quoted, &pout), 0, "%s", pout);
        free(pout);
    }
    free(dense);
    free(top);
    free(sparse);
    free(none);
    test_rmdir(dir);
    free(dir);
}

/* infer --doc-topics top:N: each row's N largest of the dense output, as printed. */
Test(doc_topics, infer_writes_the_top_topics_of_its_dense_output)
{
    char *dir = test_tmpdir(), *dense = train(dir, "dense", "dense"), args[8192];
    snprintf(args, sizeof args, "infer '%s' '%s/tests/data/v1-corpus.txt' -n 3 --device cpu", dense, test_root());
    char *full = stdout_of(args);
    snprintf(args, sizeof args, "infer '%s' '%s/tests/data/v1-corpus.txt' -n 3 --device cpu --doc-topics top:2", dense,
             test_root());
    char *top = stdout_of(args);
    cr_assert(strncmp(top, "document\ttop1_topic\ttop1_weight\ttop2_topic\ttop2_weight\n", 54) == 0, "%s", top);
    char *fs = NULL, *ts = NULL, *fl = strtok_r(full, "\n", &fs), *tl = strtok_r(top, "\n", &ts);
    int rows = 0;
    while ((fl = strtok_r(NULL, "\n", &fs)) && (tl = strtok_r(NULL, "\n", &ts))) {
        char *fields[9], *save = NULL;
        int n = 0;
        for (char *f = strtok_r(fl, "\t", &save); f && n < 9; f = strtok_r(NULL, "\t", &save))
            fields[n++] = f;
        cr_assert_eq(n, 9, "a document and 8 proportions");
        unsigned doc, k1, k2;
        char w1[32], w2[32];
        cr_assert_eq(sscanf(tl, "%u\t%u\t%31s\t%u\t%31s", &doc, &k1, w1, &k2, w2), 5, "%s", tl);
        cr_assert_eq(doc, (unsigned)rows);
        cr_assert(k1 < 8 && k2 < 8 && k1 != k2);
        cr_assert_str_eq(w1, fields[1 + k1]);
        cr_assert_str_eq(w2, fields[1 + k2]);
        cr_assert(strtod(w1, NULL) >= strtod(w2, NULL));
        for (unsigned k = 0; k < 8; k++)
            if (k != k1 && k != k2)
                cr_assert(strtod(fields[1 + k], NULL) <= strtod(w2, NULL), "topic %u beats the second", k);
        rows++;
    }
    cr_assert_gt(rows, 10);
    cr_assert(!fl && !strtok_r(NULL, "\n", &ts), "as many rows");
    test_expect_failure("infer x y --doc-topics sparse:0.1", 2,
                        "--doc-topics: infer writes dense or top:N, got 'sparse:0.1'");
    free(full);
    free(top);
    free(dense);
    test_rmdir(dir);
    free(dir);
}
