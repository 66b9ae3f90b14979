/* test_api.c — the library's C API (include/ldagpu.h) against the command line: the same
 * documents and settings give the same model byte for byte, infer and score give what `infer`
 * and `eval` print, a saved model is a folder the commands read; bad arrays and settings come
 * back as errors with their message; the progress and message callbacks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "ldagpu.h"

/* Strings made by S, freed together by release() at the end of a test. */
static char *kept[64];
static int num_kept;

static char *keep(char *p)
{
    cr_assert(p && num_kept < 64);
    return kept[num_kept++] = p;
}

static char *S(const char *format, ...) __attribute__((format(printf, 1, 2)));
static char *S(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *p = NULL;
    cr_assert(vasprintf(&p, format, args) > 0);
    va_end(args);
    return keep(p);
}

static void release(void)
{
    while (num_kept)
        free(kept[--num_kept]);
}

/* A small bag of words: 40 documents over 12 words in two groups, CSR. */
enum { DOCS = 40, WORDS = 12, PER_DOC = 4 };
static const char *const vocab12[WORDS] = {"apple", "banana", "cherry", "grape",  "lemon", "mango",
                                           "engine", "piston", "rotor", "valve", "wheel", "gear"};

typedef struct {
    int64_t offsets[DOCS + 1];
    int64_t words[DOCS * PER_DOC];
    double counts[DOCS * PER_DOC];
} csr;

static void make_csr(csr *a)
{
    a->offsets[0] = 0;
    for (int d = 0; d < DOCS; d++) {
        const int base = d % 2 ? 6 : 0;
        for (int j = 0; j < PER_DOC; j++) {
            a->words[d * PER_DOC + j] = base + (d + j) % 6;
            a->counts[d * PER_DOC + j] = 1 + (d + 2 * j) % 3;
        }
        a->offsets[d + 1] = (d + 1) * PER_DOC;
    }
}

/* The same corpus as a UCI docword file with its vocabulary, in dir; its path. */
static char *write_uci(const char *dir, const csr *a)
{
    char *path = NULL, *vpath = NULL;
    cr_assert((path = S("%s/docword.t.txt", dir)) != NULL && (vpath = S("%s/vocab.t.txt", dir)) != NULL);
    FILE *f = fopen(path, "w"), *v = fopen(vpath, "w");
    cr_assert(f && v);
    fprintf(f, "%d\n%d\n%d\n", DOCS, WORDS, DOCS * PER_DOC);
    for (int d = 0; d < DOCS; d++)
        for (int64_t i = a->offsets[d]; i < a->offsets[d + 1]; i++)
            fprintf(f, "%d %lld %d\n", d + 1, (long long)a->words[i] + 1, (int)a->counts[i]);
    for (int w = 0; w < WORDS; w++)
        fprintf(v, "%s\n", vocab12[w]);
    fclose(f);
    fclose(v);
    return path;
}

static ldagpu_settings *settings(const char *const *pairs)
{
    ldagpu_error e;
    ldagpu_settings *s = ldagpu_settings_new(&e);
    cr_assert(s);
    for (; *pairs; pairs += 2)
        cr_assert_eq(ldagpu_settings_set(s, pairs[0], pairs[1], &e), 0, "%s: %s", pairs[0], e.message);
    return s;
}

static const char *const train_pairs[] = {"topics", "3", "iterations", "15", "model", "collapsed", "seed", "7",
                                          "threads", "2", "device", "cpu", NULL};
#define TRAIN_ARGS "-K 3 -n 15 -m collapsed -s 7 -j 2 --device cpu -q --force"

static ldagpu_model *train_arrays(const csr *a, const ldagpu_settings *s)
{
    ldagpu_error e;
    ldagpu_corpus *c = ldagpu_corpus_from_arrays(DOCS, a->offsets, DOCS * PER_DOC, a->words, DOCS * PER_DOC,
                                                 a->counts, WORDS, vocab12, NULL, &e);
    cr_assert(c, "%s", e.message);
    ldagpu_model *m = ldagpu_train(c, s, NULL, NULL, NULL, &e);
    cr_assert(m, "%s", e.message);
    ldagpu_corpus_free(c);
    return m;
}

Test(api, version_is_the_header_s)
{
    cr_assert_eq(ldagpu_api_version(), LDAGPU_API_VERSION);
    cr_assert(ldagpu_version()[0]);
}

Test(api, arrays_train_the_model_the_cli_trains_from_the_same_uci_file)
{
    char *dir = keep(test_tmpdir()), *uci, *cmd = NULL, *out = NULL, *py = NULL, *cli = NULL;
    csr a;
    make_csr(&a);
    uci = write_uci(dir, &a);
    ldagpu_settings *s = settings(train_pairs);
    ldagpu_model *m = train_arrays(&a, s);
    cr_assert((py = S("%s/py", dir)) != NULL && (cli = S("%s/cli", dir)) != NULL);
    ldagpu_error e;
    cr_assert_eq(ldagpu_model_save(m, py, 0, &e), 0, "%s", e.message);
    cr_assert((cmd = S("train %s " TRAIN_ARGS " -o %s", uci, cli)) != NULL);
    cr_assert_eq(test_run_ldagpu(cmd, &out), 0, "%s", out);
    char *a_phi = NULL, *b_phi = NULL, *a_theta = NULL, *b_theta = NULL;
    cr_assert((a_phi = S("%s/phi.npy", py)) != NULL && (b_phi = S("%s/phi.npy", cli)) != NULL);
    cr_assert((a_theta = S("%s/theta.npy", py)) != NULL && (b_theta = S("%s/theta.npy", cli)) != NULL);
    cr_assert(test_same_bytes(a_phi, b_phi), "φ differs between the library and the command line");
    cr_assert(test_same_bytes(a_theta, b_theta), "θ differs between the library and the command line");
    /* The arrays read back are the file's. */
    cr_assert_eq(ldagpu_model_num_topics(m), 3);
    cr_assert_eq(ldagpu_model_vocab_size(m), WORDS);
    cr_assert_eq(ldagpu_model_num_docs(m), DOCS);
    cr_assert_str_eq(ldagpu_model_word(m, 6), "engine");
    uint32_t n_k[3], total = 0;
    ldagpu_model_topic_tokens(m, n_k);
    for (int k = 0; k < 3; k++)
        total += n_k[k];
    double tokens = 0;
    for (int i = 0; i < DOCS * PER_DOC; i++)
        tokens += a.counts[i];
    cr_assert_eq(total, (uint32_t)tokens);
    double alpha[3];
    ldagpu_model_alpha(m, alpha);
    cr_assert_float_eq(alpha[0], 20.0 / 3, 1e-12); /* collapsed: 20/K */
    cr_assert_float_eq(ldagpu_model_beta(m), 0.01, 1e-12);
    ldagpu_model_free(m);
    ldagpu_settings_free(s);
    free(out);
    out = NULL;
    cr_assert((cmd = S("topics %s", py)) != NULL);
    cr_assert_eq(test_run_ldagpu(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "topic    0"), "%s", out);
    free(out);
    test_rmdir(dir);
    release();
}

Test(api, texts_are_read_by_the_cli_s_tokenizer)
{
    static const char *texts[] = {
        "Apples and bananas, cherries: the fruit of summer.", "Engines turn pistons; pistons turn the rotor.",
        "Bananas and apples again, with cherries.",           "The rotor drives the wheel and the gear.",
        "Summer fruit: apples, cherries and bananas.",        "Pistons, rotor, gear and wheel in the engine.",
    };
    enum { N = sizeof texts / sizeof texts[0] };
    char *dir = keep(test_tmpdir()), *path = NULL, *cmd = NULL, *out = NULL, *py = NULL, *cli = NULL;
    cr_assert((path = S("%s/texts.txt", dir)) != NULL);
    FILE *f = fopen(path, "w");
    for (int d = 0; d < N; d++)
        fprintf(f, "%s\n", texts[d]);
    fclose(f);
    static const char *const pairs[] = {"topics", "2", "iterations", "10", "min-df", "1", "max-df", "1", "seed",
                                        "3", "device", "cpu", NULL};
    ldagpu_settings *s = settings(pairs);
    ldagpu_error e;
    ldagpu_corpus *c = ldagpu_corpus_from_texts(texts, N, NULL, s, &e);
    cr_assert(c, "%s", e.message);
    ldagpu_model *m = ldagpu_train(c, s, NULL, NULL, NULL, &e);
    cr_assert(m, "%s", e.message);
    cr_assert((py = S("%s/py", dir)) != NULL && (cli = S("%s/cli", dir)) != NULL);
    cr_assert_eq(ldagpu_model_save(m, py, 0, &e), 0, "%s", e.message);
    cr_assert((cmd = S("train %s -K 2 -n 10 --min-df 1 --max-df 1 -s 3 --device cpu -q -o %s", path, cli)) != NULL);
    cr_assert_eq(test_run_ldagpu(cmd, &out), 0, "%s", out);
    char *a = NULL, *b = NULL, *va = NULL, *vb = NULL;
    cr_assert((a = S("%s/phi.npy", py)) != NULL && (b = S("%s/phi.npy", cli)) != NULL);
    cr_assert((va = S("%s/vocab.txt", py)) != NULL && (vb = S("%s/vocab.txt", cli)) != NULL);
    cr_assert(test_same_bytes(va, vb), "the vocabularies differ");
    cr_assert(test_same_bytes(a, b), "φ differs between texts given and the same text file");
    /* New texts in the model's vocabulary: unknown words counted, as infer reads them. */
    static const char *fresh[] = {"apples and zebras", "gear wheel rotor"};
    ldagpu_corpus *n = ldagpu_model_texts(m, fresh, 2, NULL, &e);
    cr_assert(n, "%s", e.message);
    cr_assert_eq(ldagpu_corpus_num_docs(n), 2);
    cr_assert_eq(ldagpu_corpus_num_unknown_tokens(n), 1, "zebras is not a word of the model");
    ldagpu_corpus_free(n);
    ldagpu_corpus_free(c);
    ldagpu_model_free(m);
    ldagpu_settings_free(s);
    free(out);
    test_rmdir(dir);
    release();
}

/* What `ldagpu infer` prints (dense TSV at %.6g) for the model at dir and the corpus at path
 * is what ldagpu_infer gives. */
Test(api, infer_and_score_are_infer_s_and_eval_s)
{
    char *dir = keep(test_tmpdir()), *uci, *cmd = NULL, *out = NULL, *folder = NULL;
    csr a;
    make_csr(&a);
    uci = write_uci(dir, &a);
    cr_assert((folder = S("%s/m", dir)) != NULL);
    cr_assert((cmd = S("train %s " TRAIN_ARGS " -o %s", uci, folder)) != NULL);
    cr_assert_eq(test_run_ldagpu(cmd, &out), 0, "%s", out);
    ldagpu_error e;
    ldagpu_model *m = ldagpu_model_load(folder, &e);
    cr_assert(m, "%s", e.message);
    ldagpu_corpus *c = ldagpu_model_read_corpus(m, uci, &e);
    cr_assert(c, "%s", e.message);
    float theta[DOCS * 3];
    cr_assert_eq(ldagpu_infer(m, c, 30, 5, "cpu", 2, theta, &e), 0, "%s", e.message);
    free(out);
    cr_assert((cmd = S("infer %s %s -n 30 -s 5 --device cpu -j 2", folder, uci)) != NULL);
    cr_assert_eq(test_run_ldagpu(cmd, &out), 0, "%s", out);
    const char *line = strstr(out, "document\t");
    cr_assert(line);
    for (int d = 0; d < DOCS; d++) {
        line = strchr(line, '\n') + 1;
        char *end;
        cr_assert_eq(strtol(line, &end, 10), d);
        for (int k = 0; k < 3; k++) {
            const double v = strtod(end, &end);
            cr_assert(fabs(v - theta[d * 3 + k]) <= 1e-5 * fabs(v) + 1e-7, "θ[%d,%d]: infer %g, library %g", d, k, v,
                      theta[d * 3 + k]);
        }
    }
    double ll;
    uint64_t scored;
    cr_assert_eq(ldagpu_score(m, c, 20, 9, "cpu", 2, &ll, &scored, &e), 0, "%s", e.message);
    free(out);
    cr_assert((cmd = S("eval %s %s -n 20 -s 9 --device cpu -j 2", folder, uci)) != NULL);
    cr_assert_eq(test_run_ldagpu(cmd, &out), 0, "%s", out);
    const char *at = strstr(out, "loglik_per_token ");
    cr_assert(at, "%s", out);
    cr_assert_float_eq(strtod(at + strlen("loglik_per_token "), NULL), ll, 1e-6, "eval: %s; library %.6f", out, ll);
    cr_assert(scored > 0);
    /* A corpus in its own vocabulary is mapped to the model's by the words: the same θ. */
    ldagpu_corpus *own = ldagpu_corpus_from_arrays(DOCS, a.offsets, DOCS * PER_DOC, a.words, DOCS * PER_DOC, a.counts,
                                                   WORDS, vocab12, NULL, &e);
    float theta2[DOCS * 3];
    cr_assert_eq(ldagpu_infer(m, own, 30, 5, "cpu", 2, theta2, &e), 0, "%s", e.message);
    cr_assert_eq(memcmp(theta, theta2, sizeof theta), 0);
    ldagpu_corpus_free(own);
    ldagpu_corpus_free(c);
    ldagpu_model_free(m);
    free(out);
    test_rmdir(dir);
    release();
}

static void expect_arrays_refused(size_t docs, const int64_t *off, size_t n, const int64_t *w, size_t nc,
                                  const double *c, const char *needle)
{
    ldagpu_error e;
    ldagpu_corpus *corp = ldagpu_corpus_from_arrays(docs, off, n, w, nc, c, 3, NULL, NULL, &e);
    cr_assert_null(corp, "accepted; expected '%s'", needle);
    cr_assert_eq(e.status, LDAGPU_BAD_INPUT);
    cr_assert(strstr(e.message, needle), "'%s' lacks '%s'", e.message, needle);
}

Test(api, bad_arrays_are_refused_with_their_reason)
{
    const int64_t off[] = {0, 2, 3}, w[] = {0, 1, 2}, bad_w[] = {0, 3, 1}, neg_w[] = {0, -1, 1};
    const int64_t bad_off[] = {0, 3, 2}, short_off[] = {0, 1, 2}, first_off[] = {1, 2, 3};
    const double c[] = {1, 2, 3}, neg[] = {1, -2, 3}, nan_c[] = {1, NAN, 3}, half[] = {1, 0.5, 3};
    expect_arrays_refused(2, off, 3, w, 2, c, "3 word ids but 2 counts");
    expect_arrays_refused(2, off, 3, w, 3, neg, "count -2 of entry 1 (document 0) is not a whole number");
    expect_arrays_refused(2, off, 3, w, 3, nan_c, "count nan of entry 1");
    expect_arrays_refused(2, off, 3, w, 3, half, "count 0.5 of entry 1");
    expect_arrays_refused(2, off, 3, bad_w, 3, c, "word id 3 of entry 1 (document 0) is not within the vocabulary");
    expect_arrays_refused(2, off, 3, neg_w, 3, c, "word id -1 of entry 1");
    expect_arrays_refused(2, bad_off, 3, w, 3, c, "offset 2 (2) is less than offset 1 (3)");
    expect_arrays_refused(2, short_off, 3, w, 3, c, "the last is 2, but there are 3 word ids");
    expect_arrays_refused(2, first_off, 3, w, 3, c, "the first is 1, not 0");
    ldagpu_error e;
    const char *const dup[] = {"a", "b", "a"};
    cr_assert_null(ldagpu_corpus_from_arrays(2, off, 3, w, 3, c, 3, dup, NULL, &e));
    cr_assert(strstr(e.message, "the vocabulary"), "%s", e.message);
    const char *const names[] = {"one", "two\tthree"};
    cr_assert_null(ldagpu_corpus_from_arrays(2, off, 3, w, 3, c, 3, NULL, names, &e));
    cr_assert(strstr(e.message, "document 1's name"), "%s", e.message);
    /* Empty documents stay rows, with the uniform θ. */
    const int64_t gap[] = {0, 2, 2, 3};
    ldagpu_corpus *ok = ldagpu_corpus_from_arrays(3, gap, 3, w, 3, c, 3, NULL, NULL, &e);
    cr_assert(ok, "%s", e.message);
    cr_assert_eq(ldagpu_corpus_num_docs(ok), 3);
    cr_assert_eq(ldagpu_corpus_num_tokens(ok), 6);
    uint64_t len[3];
    ldagpu_corpus_doc_lengths(ok, len);
    cr_assert(len[0] == 3 && len[1] == 0 && len[2] == 3);
    ldagpu_corpus_free(ok);
}

Test(api, bad_settings_are_refused_with_their_reason)
{
    ldagpu_error e;
    ldagpu_settings *s = ldagpu_settings_new(&e);
    cr_assert_eq(ldagpu_settings_set(s, "topiks", "3", &e), LDAGPU_BAD_INPUT);
    cr_assert(strstr(e.message, "unknown setting 'topiks'"), "%s", e.message);
    cr_assert_eq(ldagpu_settings_set(s, "topics", "-3", &e), LDAGPU_BAD_INPUT);
    cr_assert(strstr(e.message, "topics"), "%s", e.message);
    cr_assert_eq(ldagpu_settings_set(s, "model", "colapsed", &e), LDAGPU_BAD_INPUT);
    cr_assert(strstr(e.message, "colapsed"), "%s", e.message);
    cr_assert_eq(ldagpu_settings_set(s, "output", "x", &e), LDAGPU_BAD_INPUT, "-o is the command line's");
    /* --model and --update name one pair, as on the command line. */
    cr_assert_eq(ldagpu_settings_set(s, "model", "collapsed", &e), 0, "%s", e.message);
    cr_assert_eq(ldagpu_settings_set(s, "update", "draw", &e), 0, "%s", e.message);
    csr a;
    make_csr(&a);
    ldagpu_corpus *c = ldagpu_corpus_from_arrays(DOCS, a.offsets, DOCS * PER_DOC, a.words, DOCS * PER_DOC, a.counts,
                                                 WORDS, vocab12, NULL, &e);
    cr_assert_null(ldagpu_train(c, s, NULL, NULL, NULL, &e));
    cr_assert(strstr(e.message, "contradicts"), "%s", e.message);
    ldagpu_corpus_free(c);
    ldagpu_settings_free(s);
    cr_assert_null(ldagpu_model_load("/nonexistent/folder", &e));
    cr_assert_eq(e.status, LDAGPU_BAD_INPUT);
    cr_assert(strstr(e.message, "/nonexistent/folder"), "%s", e.message);
    cr_assert_null(ldagpu_corpus_read("/nonexistent/corpus.txt", NULL, &e));
    cr_assert(strstr(e.message, "/nonexistent/corpus.txt"), "%s", e.message);
}

typedef struct {
    uint32_t calls, last_iteration, stop_at, warnings;
    int evaluated_last;
} seen;

static int on_progress(void *ctx, const ldagpu_progress *p)
{
    seen *s = ctx;
    s->calls++;
    s->last_iteration = p->iteration;
    s->evaluated_last = p->evaluated && isfinite(p->loglik_per_token) && p->loglik_per_token < 0;
    return s->stop_at && p->iteration == s->stop_at;
}

static void on_message(void *ctx, const char *line)
{
    seen *s = ctx;
    s->warnings += strstr(line, "warning:") != NULL;
}

Test(api, progress_is_called_every_iteration_and_may_stop_the_run)
{
    csr a;
    make_csr(&a);
    ldagpu_settings *s = settings(train_pairs);
    ldagpu_error e;
    ldagpu_corpus *c = ldagpu_corpus_from_arrays(DOCS, a.offsets, DOCS * PER_DOC, a.words, DOCS * PER_DOC, a.counts,
                                                 WORDS, vocab12, NULL, &e);
    seen all = {0};
    ldagpu_model *m = ldagpu_train(c, s, on_progress, on_message, &all, &e);
    cr_assert(m, "%s", e.message);
    cr_assert_eq(all.calls, 15);
    cr_assert_eq(all.last_iteration, 15);
    cr_assert(all.evaluated_last, "the last iteration is evaluated");
    cr_assert_eq(ldagpu_model_iterations(m), 15);
    ldagpu_model_free(m);
    seen stop = {.stop_at = 4};
    m = ldagpu_train(c, s, on_progress, on_message, &stop, &e);
    cr_assert(m, "%s", e.message);
    cr_assert_eq(stop.calls, 4);
    cr_assert_eq(ldagpu_model_iterations(m), 4, "the model of the iterations done");
    ldagpu_model_free(m);
    /* A warning train prints goes to the message callback, not to stderr. */
    static const char *const warn_pairs[] = {"topics", "1024", "iterations", "1", "optimize-interval", "1",
                                             "optimize-burn-in", "0", "device", "cpu", NULL};
    ldagpu_settings *w = settings(warn_pairs);
    seen msgs = {0};
    m = ldagpu_train(c, w, NULL, on_message, &msgs, &e);
    cr_assert(m, "%s", e.message);
    cr_assert_eq(msgs.warnings, 1);
    ldagpu_model_free(m);
    ldagpu_settings_free(w);
    ldagpu_corpus_free(c);
    ldagpu_settings_free(s);
}

Test(api, save_follows_train_s_rules_and_load_reads_it_back)
{
    char *dir = keep(test_tmpdir()), *folder = NULL;
    cr_assert((folder = S("%s/m", dir)) != NULL);
    csr a;
    make_csr(&a);
    ldagpu_settings *s = settings(train_pairs);
    ldagpu_model *m = train_arrays(&a, s);
    ldagpu_error e;
    cr_assert_eq(ldagpu_model_save(m, folder, 0, &e), 0, "%s", e.message);
    cr_assert_eq(ldagpu_model_save(m, folder, 0, &e), LDAGPU_BAD_INPUT, "a model is replaced only with force");
    cr_assert(strstr(e.message, "--force") || strstr(e.message, "force"), "%s", e.message);
    cr_assert_eq(ldagpu_model_save(m, folder, 1, &e), 0, "%s", e.message);
    ldagpu_model *back = ldagpu_model_load(folder, &e);
    cr_assert(back, "%s", e.message);
    float phi[3 * WORDS], phi2[3 * WORDS], theta[DOCS * 3], theta2[DOCS * 3];
    ldagpu_model_phi(m, phi);
    ldagpu_model_phi(back, phi2);
    cr_assert_eq(memcmp(phi, phi2, sizeof phi), 0);
    cr_assert_eq(ldagpu_model_theta(m, theta, &e), 0, "%s", e.message);
    cr_assert_eq(ldagpu_model_theta(back, theta2, &e), 0, "%s", e.message);
    cr_assert_eq(memcmp(theta, theta2, sizeof theta), 0);
    char buf[64];
    cr_assert_eq(ldagpu_model_setting(back, "model", buf, sizeof buf, &e), 0, "%s", e.message);
    cr_assert_str_eq(buf, "collapsed");
    cr_assert_eq(ldagpu_model_setting(back, "nonsense", buf, sizeof buf, &e), LDAGPU_BAD_INPUT);
    /* A loaded model saved again is the same folder, resumable by train. */
    char *again = NULL, *cmd = NULL, *out = NULL;
    cr_assert((again = S("%s/again", dir)) != NULL);
    cr_assert_eq(ldagpu_model_save(back, again, 0, &e), 0, "%s", e.message);
    cr_assert((cmd = S("topics %s", again)) != NULL);
    cr_assert_eq(test_run_ldagpu(cmd, &out), 0, "%s", out);
    ldagpu_model_free(back);
    ldagpu_model_free(m);
    ldagpu_settings_free(s);
    free(out);
    test_rmdir(dir);
    release();
}
