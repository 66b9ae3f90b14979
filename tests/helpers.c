/* helpers.c — see helpers.h. */
#include "helpers.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/rng.h"
#include "model/topwords.h"

corpus *test_corpus_from_docs(size_t num_docs, const uint32_t *const *docs, const uint32_t *lengths,
                              uint32_t vocab_size)
{
    corpus *c = calloc(1, sizeof *c);
    cr_assert(c);
    size_t tokens = 0;
    for (size_t d = 0; d < num_docs; d++)
        tokens += lengths[d];
    c->num_docs = c->num_input_docs = num_docs;
    c->num_tokens = tokens;
    c->vocab_size = vocab_size;
    c->doc_offsets = malloc((num_docs + 1) * sizeof *c->doc_offsets);
    c->words = malloc((tokens ? tokens : 1) * sizeof *c->words);
    c->input_index = malloc((num_docs ? num_docs : 1) * sizeof *c->input_index);
    c->vocab = malloc(vocab_size * sizeof *c->vocab);
    cr_assert(c->doc_offsets && c->words && c->input_index && c->vocab);
    c->doc_offsets[0] = 0;
    for (size_t d = 0; d < num_docs; d++) {
        memcpy(c->words + c->doc_offsets[d], docs[d], lengths[d] * sizeof(uint32_t));
        c->doc_offsets[d + 1] = c->doc_offsets[d] + lengths[d];
        c->input_index[d] = d;
    }
    for (uint32_t w = 0; w < vocab_size; w++) {
        char buf[32];
        snprintf(buf, sizeof buf, "w%u", w);
        c->vocab[w] = strdup(buf);
    }
    c->format = CORPUS_FORMAT_TEXT;
    return c;
}

corpus *test_repeated_word_corpus(uint32_t num_docs, uint32_t len, uint32_t V, uint32_t word)
{
    uint32_t *words = malloc(len * sizeof *words), *lengths = malloc(num_docs * sizeof *lengths);
    const uint32_t **docs = malloc(num_docs * sizeof *docs);
    cr_assert(words && lengths && docs);
    for (uint32_t i = 0; i < len; i++)
        words[i] = word;
    for (uint32_t d = 0; d < num_docs; d++) {
        docs[d] = words;
        lengths[d] = len;
    }
    corpus *c = test_corpus_from_docs(num_docs, docs, lengths, V);
    free(words);
    free(lengths);
    free(docs);
    return c;
}

corpus *test_word_runs_corpus(uint32_t num_docs, uint32_t V, uint32_t max_len)
{
    uint32_t *lengths = calloc(num_docs, sizeof *lengths), **docs = calloc(num_docs, sizeof *docs);
    cr_assert(lengths && docs);
    for (uint32_t d = 0; d < num_docs; d++) {
        lengths[d] = 1 + lda_rng_once(9, LDA_RNG_TEST, 1, d) % max_len;
        docs[d] = malloc(lengths[d] * sizeof *docs[d]);
        cr_assert(docs[d]);
        for (uint32_t i = 0; i < lengths[d]; i++) {
            const uint32_t bits = lda_rng_once(9, LDA_RNG_TEST, 2, d * 1000 + i);
            docs[d][i] = i > 0 && (bits >> 16) % 3 == 0 ? docs[d][i - 1] : bits % V;
        }
    }
    corpus *c = test_corpus_from_docs(num_docs, (const uint32_t *const *)docs, lengths, V);
    for (uint32_t d = 0; d < num_docs; d++)
        free(docs[d]);
    free(docs);
    free(lengths);
    return c;
}

/* Uniform double in [0,1) from the test stream. */
static double test_uniform(lda_rng *r)
{
    return lda_uniform_double(lda_rng_next(r));
}

lda_params test_params(lda_model_kind model, lda_sampler sampler, uint32_t K)
{
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, model);
    p.sampler = sampler;
    p.num_topics = K;
    return p;
}

corpus *test_planted_corpus(uint32_t num_topics, uint32_t words_per_topic, size_t num_docs, uint32_t min_len,
                            uint32_t max_len, uint64_t seed, double *planted_mix)
{
    const uint32_t V = num_topics * words_per_topic;
    uint32_t **docs = calloc(num_docs, sizeof *docs), *lengths = calloc(num_docs, sizeof *lengths);
    cr_assert(docs && lengths);
    lda_rng r;
    lda_rng_init(&r, seed, LDA_RNG_TEST, 7, 0);
    for (size_t d = 0; d < num_docs; d++) {
        uint32_t major = (uint32_t)(d % num_topics);
        uint32_t minor = (uint32_t)(lda_rng_next(&r) % num_topics); /* any topic may co-occur */
        double share = 0.7 + 0.3 * test_uniform(&r); /* dominant topic's share */
        lengths[d] = min_len + (uint32_t)(test_uniform(&r) * (max_len - min_len + 1));
        docs[d] = malloc(lengths[d] * sizeof(uint32_t));
        for (uint32_t i = 0; i < lengths[d]; i++) {
            uint32_t topic = test_uniform(&r) < share ? major : minor;
            /* Zipf-like within a topic: word j with weight 1/(j+1). */
            double u = test_uniform(&r), acc = 0, norm = 0;
            for (uint32_t j = 0; j < words_per_topic; j++)
                norm += 1.0 / (j + 1);
            uint32_t j = 0;
            for (; j + 1 < words_per_topic; j++) {
                acc += 1.0 / (j + 1) / norm;
                if (u < acc)
                    break;
            }
            docs[d][i] = topic * words_per_topic + j;
        }
        if (planted_mix) {
            for (uint32_t k = 0; k < num_topics; k++)
                planted_mix[d * num_topics + k] = 0;
            planted_mix[d * num_topics + major] += major == minor ? 1.0 : share;
            if (major != minor)
                planted_mix[d * num_topics + minor] += 1.0 - share;
        }
    }
    corpus *c = test_corpus_from_docs(num_docs, (const uint32_t *const *)docs, lengths, V);
    for (uint32_t w = 0; w < V; w++) {
        char buf[32];
        snprintf(buf, sizeof buf, "t%uw%u", w / words_per_topic, w % words_per_topic);
        free(c->vocab[w]);
        c->vocab[w] = strdup(buf);
    }
    for (size_t d = 0; d < num_docs; d++)
        free(docs[d]);
    free(docs);
    free(lengths);
    return c;
}

/* Regularised upper incomplete gamma Q(a, x), by series or continued fraction
 * (Numerical Recipes' gser/gcf). */
static double gamma_q(double a, double x)
{
    if (x <= 0)
        return 1.0;
    double gln = lgamma(a);
    if (x < a + 1) {
        double ap = a, sum = 1.0 / a, del = sum;
        for (int n = 0; n < 10000; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * 1e-15)
                break;
        }
        return 1.0 - sum * exp(-x + a * log(x) - gln);
    }
    double b = x + 1 - a, c = 1.0 / 1e-300, d = 1.0 / b, h = d;
    for (int i = 1; i < 10000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < 1e-300)
            d = 1e-300;
        c = b + an / c;
        if (fabs(c) < 1e-300)
            c = 1e-300;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-15)
            break;
    }
    return exp(-x + a * log(x) - gln) * h;
}

double test_chi2_sf(double x, double dof)
{
    return gamma_q(dof / 2.0, x / 2.0);
}

void test_expect_same_corpus(const corpus *a, const corpus *b)
{
    cr_assert_eq(a->num_docs, b->num_docs);
    cr_assert_eq(a->num_input_docs, b->num_input_docs);
    cr_assert_eq(a->num_empty_docs, b->num_empty_docs);
    cr_assert_eq(a->num_tokens, b->num_tokens);
    cr_assert_eq(a->num_unknown_tokens, b->num_unknown_tokens);
    cr_assert_eq(a->vocab_size, b->vocab_size);
    cr_assert_eq(memcmp(a->doc_offsets, b->doc_offsets, (a->num_docs + 1) * sizeof *a->doc_offsets), 0);
    cr_assert_eq(memcmp(a->input_index, b->input_index, a->num_docs * sizeof *a->input_index), 0);
    cr_assert_eq(memcmp(a->words, b->words, a->num_tokens * sizeof *a->words), 0);
    cr_assert_eq(!a->input_unknown, !b->input_unknown);
    for (size_t d = 0; a->input_unknown && d < a->num_input_docs; d++)
        cr_assert_eq(a->input_unknown[d], b->input_unknown[d], "unknown tokens of input document %zu", d);
    for (uint32_t w = 0; w < a->vocab_size; w++)
        cr_assert_str_eq(a->vocab[w], b->vocab[w], "word %u", w);
    const lda_string_list *lists[2][2] = {{a->names, b->names}, {a->labels, b->labels}};
    for (int i = 0; i < 2; i++) {
        const lda_string_list *x = lists[i][0], *y = lists[i][1];
        cr_assert_eq(!x, !y, "%s on one side only", i ? "labels" : "names");
        cr_assert(!x || (x->count == y->count && x->size == y->size && memcmp(x->bytes, y->bytes, x->size) == 0),
                  "the same %s", i ? "labels" : "names");
    }
}

double test_chi2_stat(const uint64_t *observed, const double *prob, size_t n, uint64_t total, double *dof)
{
    double stat = 0, pooled_obs = 0, pooled_exp = 0;
    size_t bins = 0;
    for (size_t i = 0; i < n; i++) {
        double e = prob[i] * (double)total;
        if (e < 5) {
            pooled_obs += (double)observed[i];
            pooled_exp += e;
            continue;
        }
        stat += ((double)observed[i] - e) * ((double)observed[i] - e) / e;
        bins++;
    }
    if (pooled_exp > 0) {
        stat += (pooled_obs - pooled_exp) * (pooled_obs - pooled_exp) / (pooled_exp > 1e-12 ? pooled_exp : 1e-12);
        bins++;
    }
    *dof = (double)bins - 1;
    return stat;
}

char *test_tmpdir(void)
{
    char *dir = strdup("/tmp/ldagpu-test-XXXXXX");
    cr_assert(dir && mkdtemp(dir), "mkdtemp failed");
    return dir;
}

void test_rmdir(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(system(cmd) == 0);
}

const char *test_root(void)
{
    const char *root = getenv("LDAGPU_ROOT");
    return root ? root : ".";
}

static int run_ldagpu(const char *prefix, const char *args, char **out)
{
    const char *bin = getenv("LDAGPU_BIN");
    char *cmd = NULL;
    cr_assert(asprintf(&cmd, "%s'%s' %s 2>&1", prefix, bin ? bin : "./ldagpu", args) > 0);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run %s", cmd);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (size_t n; (n = fread(buf + len, 1, cap - len - 1, p)) > 0;) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[len] = '\0';
    int status = pclose(p);
    free(cmd);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

int test_run_ldagpu(const char *args, char **out)
{
    return run_ldagpu("", args, out);
}

int test_run_ldagpu_within(const char *args, int seconds, char **out)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "exec timeout -s KILL %d ", seconds);
    return run_ldagpu(prefix, args, out);
}

char *test_write_file(const char *dir, const char *name, const char *text)
{
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
    return path;
}

int test_count_entries(const char *dir, ...)
{
    DIR *d = opendir(dir);
    cr_assert(d, "no folder %s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        va_list ap;
        va_start(ap, dir);
        for (const char *word; (word = va_arg(ap, const char *));)
            if (strstr(e->d_name, word)) {
                n++;
                break;
            }
        va_end(ap);
    }
    closedir(d);
    return n;
}

const char *test_python_with(const char *module)
{
    static const char *const pythons[] = {"python3", "/usr/bin/python3"};
    for (size_t i = 0; i < sizeof pythons / sizeof *pythons; i++) {
        char *cmd = NULL;
        cr_assert(asprintf(&cmd, "%s -c 'import %s' >/dev/null 2>&1", pythons[i], module) > 0);
        int rc = system(cmd);
        free(cmd);
        if (rc == 0)
            return pythons[i];
    }
    return NULL;
}

char *test_shell(const char *cmd, int *status)
{
    fflush(NULL);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "%s", cmd);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (size_t n; (n = fread(buf + len, 1, cap - len - 1, p)) > 0;) {
        len += n;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

int test_run_python(const char *python, const char *script, const char *args, char **out)
{
    char dir_template[] = "/tmp/ldagpu-py-XXXXXX";
    char *dir = mkdtemp(dir_template);
    cr_assert(dir);
    char *path = test_write_file(dir, "script.py", script), *cmd = NULL;
    cr_assert(asprintf(&cmd, "%s '%s' %s 2>&1", python, path, args) > 0);
    int status;
    *out = test_shell(cmd, &status);
    unlink(path);
    rmdir(dir);
    free(path);
    free(cmd);
    return status;
}

int test_same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

pid_t test_spawn_ldagpu(const char *args, const char *log_path)
{
    const char *bin = getenv("LDAGPU_BIN");
    char *cmd = NULL;
    cr_assert(asprintf(&cmd, "exec '%s' %s > '%s' 2>&1", bin ? bin : "./ldagpu", args, log_path) > 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork failed");
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    free(cmd);
    return pid;
}

int test_wait_ldagpu(pid_t pid)
{
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (size_t n; (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[len] = '\0';
    fclose(f);
    return buf;
}

void test_wait_for_file(const char *path, pid_t pid, const char *log_path, double timeout_s)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    for (double waited = 0; waited < timeout_s; waited += 0.02) {
        struct stat sb;
        if (stat(path, &sb) == 0)
            return;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            char *log = test_read_file(log_path);
            cr_assert_fail("ldagpu ended (status %d) before %s appeared: %s", status, path, log ? log : "");
        }
        nanosleep(&pause, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    cr_assert_fail("%s did not appear within %.0f s", path, timeout_s);
}

void test_expect_failure(const char *args, int status, const char *needle)
{
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, status, "ldagpu %s: exit %d (expected %d), output: %s", args, rc, status, out);
    cr_assert(strstr(out, needle), "ldagpu %s: '%s' not in: %s", args, needle, out);
    cr_assert(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", out);
    free(out);
}

char *test_tiny_corpus(const char *dir)
{
    char *path = NULL, *vocab = NULL;
    cr_assert(asprintf(&path, "%s/tiny.ldac", dir) > 0 && asprintf(&vocab, "%s/tiny.vocab", dir) > 0);
    FILE *f = fopen(path, "w"), *v = fopen(vocab, "w");
    cr_assert(f && v);
    for (int d = 0; d < 64; d++) {
        int base = d % 2 ? 6 : 0; /* odd documents use words 6..11, even ones 0..5 */
        fprintf(f, "3 %d:%d %d:2 %d:1\n", base + d % 6, 1 + d % 4, base + (d + 1) % 6, base + (d + 3) % 6);
    }
    static const char *words[] = {"apple", "banana", "cherry", "grape", "lemon", "mango",
                                  "engine", "piston", "rotor", "valve", "wheel", "gear"};
    for (int w = 0; w < 12; w++)
        fprintf(v, "%s\n", words[w]);
    fclose(f);
    fclose(v);
    free(vocab);
    return path;
}

/* test_assert_same_models: see helpers.h. */
void test_assert_same_models(const char *a, const char *b)
{
    static const char *const files[] = {"phi.npy", "theta.npy", "z.npy", "topic_tokens.npy", "topics.txt"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char pa[4096], pb[4096];
        snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
        cr_assert(test_same_bytes(pa, pb), "%s differs between %s and %s", files[i], a, b);
    }
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s/alpha.npy", a);
    snprintf(pb, sizeof pb, "%s/alpha.npy", b);
    FILE *fa = fopen(pa, "rb");
    if (fa) {
        fclose(fa);
        cr_assert(test_same_bytes(pa, pb), "the learned α differs between %s and %s", a, b);
    }
    char cmd[8192];
    int status;
    snprintf(cmd, sizeof cmd, "cut -d, -f1,7-9 '%s/log.csv' > '%s/figures.txt'; cut -d, -f1,7-9 '%s/log.csv' > '%s/figures.txt'",
             a, a, b, b);
    free(test_shell(cmd, &status));
    cr_assert_eq(status, 0);
    snprintf(pa, sizeof pa, "%s/figures.txt", a);
    snprintf(pb, sizeof pb, "%s/figures.txt", b);
    cr_assert(test_same_bytes(pa, pb), "the log's figures differ between %s and %s", a, b);
}


char *test_mpirun_ldagpu(unsigned processes, const char *args)
{
    int status = 0;
    free(test_shell("command -v mpirun >/dev/null", &status));
    if (status != 0)
        cr_skip_test("no mpirun here");
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np %u '%s' %s 2>&1",
             processes, getenv("LDAGPU_BIN"), args);
    char *out = test_shell(cmd, &status);
    if (status != 0 && strstr(out, "built without MPI")) {
        free(out);
        cr_skip_test("this ldagpu was built without MPI");
    }
    cr_assert_eq(status, 0, "mpirun -np %u ldagpu %s: exit %d: %s", processes, args, status, out);
    return out;
}

/* test_assert_runs_same_model: see helpers.h. */
void test_assert_runs_same_model(const char *dir, const char *prefix, unsigned first, unsigned last)
{
    char one[4096], other[4096];
    snprintf(one, sizeof one, "%s/%s%u", dir, prefix, first);
    for (unsigned n = first + 1; n <= last; n++) {
        snprintf(other, sizeof other, "%s/%s%u", dir, prefix, n);
        test_assert_same_models(one, other);
    }
}

long test_conf_number(const char *dir, const char *key)
{
    char path[2048], line[1024], fmt[128];
    snprintf(path, sizeof path, "%s/model.conf", dir);
    snprintf(fmt, sizeof fmt, "%s = %%ld", key);
    FILE *f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, fmt, &v) == 1)
            break;
    fclose(f);
    return v;
}

pid_t test_gone_pid(void)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return pid;
}

lda_priors test_varied_priors(uint32_t K)
{
    lda_priors pr;
    lda_error err = {0};
    cr_assert_eq(lda_priors_init(&pr, K, 0.3, 0.02, &err), 0, "%s", err.msg);
    for (uint32_t k = 0; k < K; k++)
        pr.alpha[k] = 0.1 + 0.05 * (k % 7);
    return pr;
}

int test_planted_topics_found(const uint32_t *words, const uint32_t *z, size_t n, uint32_t V, uint32_t K,
                              uint32_t planted, uint32_t words_per_topic)
{
    uint32_t *count = calloc((size_t)V * K, sizeof *count), *n_k = calloc(K, sizeof *n_k), top[10];
    for (size_t i = 0; i < n; i++) {
        count[(size_t)words[i] * K + z[i]]++;
        n_k[z[i]]++;
    }
    float *column = malloc(V * sizeof *column);
    int *found = calloc(planted, sizeof *found), total = 0;
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t w = 0; w < V; w++)
            column[w] = (float)((count[(size_t)w * K + k] + 0.01) / (n_k[k] + V * 0.01));
        lda_top_indices(column, V, 10, top);
        int all = 1;
        for (int i = 1; i < 10; i++)
            all &= top[i] / words_per_topic == top[0] / words_per_topic;
        const uint32_t t = top[0] / words_per_topic;
        if (all && t < planted && !found[t]) {
            found[t] = 1;
            total++;
        }
    }
    free(found);
    free(column);
    free(count);
    free(n_k);
    return total;
}

void test_run_ok(const char *args, const char *needle)
{
    char *out = NULL;
    const int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d\n%s", args, rc, out ? out : "");
    cr_assert(!needle || (out && strstr(out, needle)), "ldagpu %s: no '%s' in\n%s", args, needle, out ? out : "");
    free(out);
}
