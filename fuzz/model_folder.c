/* model_folder.c — see model_folder.h. */
#include "model_folder.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "model/checksum.h"
#include "model/model.h"
#include "model/model_corpus.h"
#include "model/train_log.h"

/* Every file a base model may hold; an input's byte 1 picks one. */
static const char *const files[] = {"model.conf",        "vocab.txt",         "phi.npy",
                                    "topic_tokens.npy",  "z.npy",             "theta.npy",
                                    "doc_topics_index.npy", "doc_topics_weight.npy", "theta_indptr.npy",
                                    "theta_indices.npy", "theta_data.npy",    "alpha.npy",
                                    "log.csv"};
enum { FILES = sizeof files / sizeof files[0] };

typedef struct {
    char *bytes; /* NULL: not in this base */
    size_t size;
} file_bytes;

static file_bytes base[FUZZ_MODEL_BASES][FILES];
static char root[64], work[128], corpus_path[128];
/* What each file of the work folder holds now: the base it came from, or -1 (an input's, or
 * none yet), so that an input rewrites only what differs (creating files is most of the time
 * of a run on a disk; the folder is in memory, /dev/shm, where there is one). */
static int holds[FILES];

/* The corpus (LDA-C, c.ldac and c.vocab): documents of 4, 3, 0, 5 and 2 tokens. */
enum { K = 3, V = 6, D = 5, N = 14 };
static const char *const words[V] = {"apple", "banana", "cherry", "engine", "piston", "rotor"};
static const char corpus_text[] = "3 0:2 1:1 2:1\n3 3:1 4:1 5:1\n0\n4 1:1 3:2 4:1 5:1\n2 0:1 2:1\n";
static const uint32_t doc_of[N] = {0, 0, 0, 0, 1, 1, 1, 3, 3, 3, 3, 3, 4, 4};
static const uint32_t word_of[N] = {0, 0, 1, 2, 3, 4, 5, 1, 3, 3, 4, 5, 0, 2};
static const uint32_t z[N] = {0, 0, 1, 0, 1, 1, 2, 1, 1, 2, 2, 0, 0, 0};
static float alpha_learned[K] = {0.3f, 0.5f, 0.7f};

static void fail(const char *what, const lda_error *err)
{
    fprintf(stderr, "fuzz model folder: %s: %s\n", what, err ? err->msg : "");
    abort();
}

static void write_file(const char *dir, const char *name, const void *bytes, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path); /* a new file: ext4 flushes one truncated and rewritten as it is closed */
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(bytes, 1, size, f) != size) || fclose(f) != 0)
        fail(path, NULL);
}

static void read_file(const char *dir, const char *name, file_bytes *out)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return; /* not in this base */
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !(out->bytes = malloc((size_t)sb.st_size + 1)) ||
        fread(out->bytes, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size)
        fail(path, NULL);
    out->size = (size_t)sb.st_size;
    fclose(f);
}

static int theta_rows(void *ctx, lda_theta_row_fn fn, void *fn_ctx, lda_error *err)
{
    const float *theta = ctx;
    for (uint64_t d = 0; d < D; d++)
        if (fn(fn_ctx, d, theta + d * K, err))
            return -1;
    return 0;
}

/* Base b: θ dense, top:2, sparse:0.2, or dense with learned priors; the means of z's counts. */
static void write_base(int b, const char *dir, const char *corpus_file)
{
    static const char *const forms[FUZZ_MODEL_BASES] = {"dense", "top:2", "sparse:0.2", "dense"};
    const double alpha = 0.5, beta = 0.1;
    uint32_t n_k[K] = {0}, n_dk[D][K] = {{0}}, n_kw[K][V] = {{0}}, len[D] = {0};
    for (int i = 0; i < N; i++) {
        n_k[z[i]]++;
        n_dk[doc_of[i]][z[i]]++;
        n_kw[z[i]][word_of[i]]++;
        len[doc_of[i]]++;
    }
    float phi[K * V], theta[D * K];
    for (int k = 0; k < K; k++)
        for (int w = 0; w < V; w++)
            phi[k * V + w] = (float)((n_kw[k][w] + beta) / (n_k[k] + V * beta));
    for (int d = 0; d < D; d++)
        for (int k = 0; k < K; k++)
            theta[d * K + k] = len[d] ? (float)((n_dk[d][k] + alpha) / (len[d] + K * alpha)) : 1.0f / K;

    lda_model m;
    lda_error err = {0};
    memset(&m, 0, sizeof m);
    lda_settings_default(&m.settings);
    m.settings.params.num_topics = K;
    m.settings.params.alpha = alpha;
    m.settings.params.beta = beta;
    m.settings.corpus.format = CORPUS_FORMAT_LDAC;
    if (lda_doc_topics_parse("fuzz", forms[b], &m.settings.doc_topics, &err))
        fail("doc_topics", &err);
    m.settings.doc_topics = lda_doc_topics_resolve(&m.settings.doc_topics, D, K, NULL, 0);
    m.num_topics = K;
    m.vocab_size = V;
    m.num_docs = D;
    m.num_tokens = N;
    m.iterations = 2;
    m.corpus_path = (char *)corpus_file;
    m.vocab = (char **)words;
    m.phi = phi;
    m.topic_tokens = n_k;
    m.z = (uint32_t *)z;
    m.z_checksum = lda_u32_checksum(z, N);
    if (b == 3) {
        m.settings.params.optimize_interval = 1;
        m.alpha_learned = alpha_learned;
        m.beta_learned = 0.05;
    }
    corpus *c = lda_model_read_corpus(&m, corpus_file, CORPUS_FORMAT_LDAC, NULL, &err);
    if (!c)
        fail("the corpus", &err);
    m.corpus_checksum = lda_corpus_checksum(c);
    corpus_free(c);
    if (lda_theta_build(&m.theta, &m.settings.doc_topics, D, K, theta_rows, theta, &err) ||
        lda_model_write(&m, dir, 4, &err))
        fail(dir, &err);
    lda_theta_free(&m.theta);

    lda_train_log log;
    lda_train_log_init(&log, NULL, 0, 2);
    for (uint32_t i = 0; i <= 2; i++) {
        lda_log_row row = {.iteration = i, .seconds = 0.01, .train_seconds = 0.01 * i, .tokens_per_second = 1400,
                           .evaluated = i != 1, .eval = {.loglik_pred = -2.0 + 0.1 * i, .loglik_joint = -3.0}};
        if (lda_train_log_add(&log, &row, &err))
            fail("log", &err);
    }
    char csv[256];
    snprintf(csv, sizeof csv, "%s/log.csv", dir);
    if (lda_train_log_write_csv(&log, csv, &err))
        fail(csv, &err);
    lda_train_log_free(&log);
    for (int i = 0; i < FILES; i++)
        read_file(dir, files[i], &base[b][i]);
}

/* LDAGPU_FUZZ_SEEDS=DIR: every base's every file as an input, DIR/b<BASE>-<FILE>. */
static void write_seeds(const char *dir)
{
    for (int b = 0; b < FUZZ_MODEL_BASES; b++)
        for (int i = 0; i < FILES; i++) {
            const file_bytes *f = &base[b][i];
            if (!f->bytes)
                continue;
            char name[128];
            snprintf(name, sizeof name, "b%d-%s", b, files[i]);
            unsigned char *input = malloc(f->size + 2);
            if (!input)
                fail("seeds", NULL);
            input[0] = (unsigned char)b;
            input[1] = (unsigned char)i;
            memcpy(input + 2, f->bytes, f->size);
            write_file(dir, name, input, f->size + 2);
            free(input);
        }
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(path);
}

/* At exit: the folder is in memory where /dev/shm is, and a run of `make fuzz` makes one a target. */
static void remove_root(void)
{
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
    struct stat sb;
    snprintf(root, sizeof root, "%s/ldagpu-fuzz-model-XXXXXX",
             stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(root))
        fail("mkdtemp", NULL);
    atexit(remove_root);
    char dir[128];
    write_file(root, "c.ldac", corpus_text, sizeof corpus_text - 1);
    char vocab[64] = "";
    for (int w = 0; w < V; w++)
        strcat(strcat(vocab, words[w]), "\n");
    write_file(root, "c.vocab", vocab, strlen(vocab));
    snprintf(corpus_path, sizeof corpus_path, "%s/c.ldac", root);
    for (int b = 0; b < FUZZ_MODEL_BASES; b++) {
        snprintf(dir, sizeof dir, "%s/base%d", root, b);
        write_base(b, dir, corpus_path);
    }
    snprintf(work, sizeof work, "%s/m", root);
    if (mkdir(work, 0777) != 0)
        fail(work, NULL);
    for (int i = 0; i < FILES; i++)
        holds[i] = -1;
    const char *seeds = getenv("LDAGPU_FUZZ_SEEDS");
    if (seeds)
        write_seeds(seeds);
}

const char *fuzz_model_folder(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready++)
        setup();
    if (size < 2)
        return NULL;
    const int b = data[0] % FUZZ_MODEL_BASES, chosen = data[1] % FILES;
    for (int i = 0; i < FILES; i++) {
        const file_bytes *f = &base[b][i];
        if (i == chosen) {
            write_file(work, files[i], data + 2, size - 2);
            holds[i] = -1;
        } else if (holds[i] != b) {
            if (f->bytes) {
                write_file(work, files[i], f->bytes, f->size);
            } else {
                char path[256];
                snprintf(path, sizeof path, "%s/%s", work, files[i]);
                unlink(path);
            }
            holds[i] = b;
        }
    }
    return work;
}

int fuzz_model_read(const uint8_t *data, size_t size, lda_model *m, const char **dir)
{
    static int ready;
    if (!ready++)
        fuzz_setup();
    lda_error err = {0};
    if (!(*dir = fuzz_model_folder(data, size)))
        return 0;
    if (lda_model_read(m, *dir, 1, 1, &err) == 0)
        return 1;
    fuzz_check_refusal(&err);
    return 0;
}

const char *fuzz_model_corpus(void)
{
    return corpus_path;
}
