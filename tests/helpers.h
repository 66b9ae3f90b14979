/* helpers.h — shared pieces of the test suite: synthetic corpora with planted topics,
 * statistics (chi-squared), temporary folders, and running the real binary. */
#ifndef LDA_TEST_HELPERS_H
#define LDA_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/params.h"
#include "core/priors.h"
#include "corpus/corpus.h"

/* Runs ldagpu ARGS and asserts it exits 0 and, where needle is not NULL, prints needle. */
void test_run_ok(const char *args, const char *needle);

/* How many of the planted topics of test_planted_corpus (`planted` of them, words_per_topic
 * words each) own a topic of the φ that tokens' topics z make (n tokens of words `words`, V
 * words, K topics) whose top 10 words are all theirs. */
int test_planted_topics_found(const uint32_t *words, const uint32_t *z, size_t n, uint32_t V, uint32_t K,
                              uint32_t planted, uint32_t words_per_topic);

/* A corpus built in memory: doc d has lengths[d] tokens drawn from word ids given by fill(). */
corpus *test_corpus_from_docs(size_t num_docs, const uint32_t *const *docs, const uint32_t *lengths,
                              uint32_t vocab_size);

/* num_docs documents each of `len` copies of word `word` (vocabulary V): every token then
 * has the same topic distribution, so its draws are independent samples of it. */
corpus *test_repeated_word_corpus(uint32_t num_docs, uint32_t len, uint32_t V, uint32_t word);

/* num_docs documents of 1 to max_len tokens over V words, a third of the tokens repeating the
 * word before them (runs of one word, as a bag-of-words corpus lists them). Deterministic. */
corpus *test_word_runs_corpus(uint32_t num_docs, uint32_t V, uint32_t max_len);

/* Planted topics: num_topics topics over disjoint blocks of words_per_topic words (word
 * "tKwJ"); each document mixes two topics (one dominant); lengths vary between min_len
 * and max_len. planted_mix (optional, num_docs × num_topics) gets each document's true
 * proportions. Deterministic in seed. */
corpus *test_planted_corpus(uint32_t num_topics, uint32_t words_per_topic, size_t num_docs, uint32_t min_len,
                            uint32_t max_len, uint64_t seed, double *planted_mix);

/* K topics' priors with α differing by topic, as learned priors give (0.1 to 0.4), and β 0.02. */
lda_priors test_varied_priors(uint32_t K);

/* The default parameters of `model` with `sampler` and K topics. */
lda_params test_params(lda_model_kind model, lda_sampler sampler, uint32_t K);

/* Asserts that two corpora hold the same documents: counts, offsets, word ids, input indexes,
 * unknown-token counts, vocabulary, names and labels (the format field aside: it says where they
 * came from). */
void test_expect_same_corpus(const corpus *a, const corpus *b);

/* Upper tail probability of the chi-squared distribution: P(X >= x), dof degrees. */
double test_chi2_sf(double x, double dof);

/* Chi-squared statistic of observed counts against expected probabilities (bins with
 * expected count < 5 are pooled into one), degrees of freedom in *dof. */
double test_chi2_stat(const uint64_t *observed, const double *prob, size_t n, uint64_t total, double *dof);

/* A new empty folder under /tmp (freed with test_rmdir). */
char *test_tmpdir(void);
void test_rmdir(const char *dir);

/* Runs the ldagpu binary ($LDAGPU_BIN) with a shell-quoted argument string; returns its
 * exit status and, when out is not NULL, its stdout+stderr (malloc'ed). */
int test_run_ldagpu(const char *args, char **out);

/* test_run_ldagpu, killed after `seconds` (then the status is 137): for a command that must
 * be refused at once, and that without the refusal would take minutes. */
int test_run_ldagpu_within(const char *args, int seconds, char **out);

/* Starts the ldagpu binary in the background with a shell-quoted argument string, its
 * stdout and stderr going to log_path; returns its pid. */
pid_t test_spawn_ldagpu(const char *args, const char *log_path);
/* Waits for a spawned ldagpu: its exit status, or 128 + the number of the signal that
 * killed it. */
int test_wait_ldagpu(pid_t pid);
/* Polls until path exists; fails the test if the process pid ends first (showing
 * log_path) or after timeout_s seconds. */
void test_wait_for_file(const char *path, pid_t pid, const char *log_path, double timeout_s);
/* A whole file as a string (malloc'ed), or NULL. */
char *test_read_file(const char *path);

/* Runs ldagpu with args and asserts: exit status `status`, output one line containing needle. */
void test_expect_failure(const char *args, int status, const char *needle);

/* The repository root ($LDAGPU_ROOT, else "."), for data/ and configs/. */
const char *test_root(void);

/* Writes text to DIR/NAME; returns the malloc'ed path. */
char *test_write_file(const char *dir, const char *name, const char *text);

/* How many entries of dir (hidden ones too) have a name containing one of the
 * NULL-terminated words: leftovers such as "tmp" files. */
int test_count_entries(const char *dir, ...);
/* A Python interpreter that can import `module` ("numpy"): "python3" from the PATH, else
 * /usr/bin/python3 (Debian's packages install there, whatever the PATH's python3 is); NULL
 * when neither can, so the test can skip. */
const char *test_python_with(const char *module);

/* Runs a shell command; returns its stdout (malloc'ed), its exit status in *status. */
char *test_shell(const char *cmd, int *status);

/* Runs the Python program `script` (its text) with the arguments given (shell-quoted by the
 * caller); returns its exit status and its stdout+stderr in *out (malloc'ed). */
int test_run_python(const char *python, const char *script, const char *args, char **out);

/* model.conf's "KEY = NUMBER" in dir, as a number; -1 when absent. */
long test_conf_number(const char *dir, const char *key);
/* The PID of a process that has ended (for files named after one). */
pid_t test_gone_pid(void);

/* 1 when both files exist and have identical bytes. */
int test_same_bytes(const char *a, const char *b);

/* `mpirun -np N ldagpu ARGS` (the binary of LDAGPU_BIN), asserted to succeed; its output. Skips the
 * test where there is no mpirun or this ldagpu was built without MPI. */
char *test_mpirun_ldagpu(unsigned processes, const char *args);
/* Two model folders hold the same model: phi, theta, z, topic_tokens (.npy), topics.txt and a
 * learned alpha.npy byte for byte, and their log.csv the same figures (not the same times). */
void test_assert_same_models(const char *a, const char *b);
/* The runs DIR/PREFIX<n>, n = first + 1 .. last, each hold the model of DIR/PREFIX<first>. */
void test_assert_runs_same_model(const char *dir, const char *prefix, unsigned first, unsigned last);

#endif

/* A small LDA-C corpus (DIR/tiny.ldac and DIR/tiny.vocab: 64 documents over 12 words in
 * two clear topics) for runs of the real binary that take a fraction of a second. Returns the
 * corpus path (malloc'ed). */
char *test_tiny_corpus(const char *dir);
