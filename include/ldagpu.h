/* ldagpu.h — ldagpu as a library (libldagpu.so): corpora from arrays, texts or files, training
 * with the settings train takes, the model's arrays, inference, held-out scores, model folders.
 *
 * The same code as the command line: `ldagpu train` runs the trainer this library runs, with
 * the same settings parsed by the same function, so the same seed, documents and settings give
 * the same model byte for byte, and a model saved here is a folder every command reads.
 *
 * Conventions:
 *   - Handles are opaque; each *_free takes NULL.
 *   - A function that can fail takes an ldagpu_error * last (NULL: not wanted) and returns NULL or
 *     a non-zero status: LDAGPU_BAD_INPUT (the input or a setting is wrong) or LDAGPU_FAILURE (out
 *     of memory, a device or a file that fails). The library never prints and never exits.
 *   - Nothing here keeps a pointer it is given: arrays and strings are copied.
 *   - Handles may be used from any thread, one call at a time each; calls on different handles
 *     may run at once. Training runs on the calling thread (and the threads it starts).
 * docs/python.md describes the API and the Python package built on it. */
#ifndef LDAGPU_H
#define LDAGPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a declaration here changes in a way a caller compiled against the old one would
 * misread; additions keep it. */
#define LDAGPU_API_VERSION 1

#if defined(__GNUC__)
#define LDAGPU_EXPORT __attribute__((visibility("default")))
#else
#define LDAGPU_EXPORT
#endif

enum { LDAGPU_OK = 0, LDAGPU_FAILURE = 1, LDAGPU_BAD_INPUT = 2 };

typedef struct {
    int status;         /* LDAGPU_OK, LDAGPU_FAILURE or LDAGPU_BAD_INPUT */
    char message[1024]; /* one line, "FILE:LINE: what" where a file is involved */
} ldagpu_error;

typedef struct ldagpu_settings ldagpu_settings;
typedef struct ldagpu_corpus ldagpu_corpus;
typedef struct ldagpu_model ldagpu_model;

/* LDAGPU_API_VERSION of the library loaded (a caller checks it against its header's). */
LDAGPU_EXPORT int ldagpu_api_version(void);
/* The program's version, e.g. "0.4". */
LDAGPU_EXPORT const char *ldagpu_version(void);

/* ---- settings: train's options by their long names ---- */

/* train's defaults (K 100, 100 iterations, seed 1, model uncollapsed, ...; `ldagpu train --help`). */
LDAGPU_EXPORT ldagpu_settings *ldagpu_settings_new(ldagpu_error *err);
LDAGPU_EXPORT void ldagpu_settings_free(ldagpu_settings *s);
/* Sets one setting as `ldagpu train --NAME VALUE` (or the config line NAME = VALUE) would: any
 * option of train that is a setting of the run (topics, iterations, alpha, beta, seed, model,
 * sampler, device, threads, holdout, optimize-interval, doc-topics, the reader options: format,
 * stopwords, token-pattern, min-df, ...). A flag takes "yes" or "no". Unknown names and bad
 * values are refused (LDAGPU_BAD_INPUT). */
LDAGPU_EXPORT int ldagpu_settings_set(ldagpu_settings *s, const char *name, const char *value, ldagpu_error *err);
/* The name of setting i, for i = 0, 1, ... until NULL. */
LDAGPU_EXPORT const char *ldagpu_settings_name(size_t i);

/* ---- corpora ---- */

/* A corpus file in any format train reads, with the reader settings of s (format, vocab,
 * stopwords, token-pattern, pretokenized, lowercase, min-word-length, min-df, max-df, max-vocab,
 * force-text); s NULL: the defaults. The model records path as its corpus. */
LDAGPU_EXPORT ldagpu_corpus *ldagpu_corpus_read(const char *path, const ldagpu_settings *s, ldagpu_error *err);

/* n documents of raw text, read by the tokenizer train uses on a text file with s's reader
 * settings (stop words, pruning, ...); a line break inside a text is a space. names: NULL, or n
 * document names (no tab or line break; the corpus is then the `named` format). */
LDAGPU_EXPORT ldagpu_corpus *ldagpu_corpus_from_texts(const char *const *texts, size_t n, const char *const *names,
                                                      const ldagpu_settings *s, ldagpu_error *err);

/* A bag of words in CSR form: document d's entries are entries doc_offsets[d] ..
 * doc_offsets[d + 1] - 1 (num_docs + 1 offsets, the first 0, never decreasing, the last
 * num_entries); entry i is word word_ids[i] (0 <= id < vocab_size) counts[i] times (counts:
 * num_counts finite non-negative whole numbers, which must be num_entries of them; NULL: once
 * each, so word_ids are the documents' tokens in order). vocab: vocab_size words (NULL: words
 * named by their ids, "0", "1", ...). names: NULL or num_docs document names. Documents left
 * without tokens are kept as rows (θ uniform) but not trained on. No stop words, no pruning:
 * the words are taken as given. */
LDAGPU_EXPORT ldagpu_corpus *ldagpu_corpus_from_arrays(size_t num_docs, const int64_t *doc_offsets,
                                                       size_t num_entries, const int64_t *word_ids,
                                                       size_t num_counts, const double *counts, size_t vocab_size,
                                                       const char *const *vocab, const char *const *names,
                                                       ldagpu_error *err);
LDAGPU_EXPORT void ldagpu_corpus_free(ldagpu_corpus *c);

/* Sizes: documents (input rows, empty ones included), tokens, vocabulary. */
LDAGPU_EXPORT size_t ldagpu_corpus_num_docs(const ldagpu_corpus *c);
LDAGPU_EXPORT size_t ldagpu_corpus_num_tokens(const ldagpu_corpus *c);
LDAGPU_EXPORT size_t ldagpu_corpus_vocab_size(const ldagpu_corpus *c);
/* Tokens of words a model did not know (a corpus read in a model's vocabulary), else 0. */
LDAGPU_EXPORT size_t ldagpu_corpus_num_unknown_tokens(const ldagpu_corpus *c);
/* Word w (w < vocab size); the name of input document d, or NULL when the corpus has no names. */
LDAGPU_EXPORT const char *ldagpu_corpus_word(const ldagpu_corpus *c, size_t w);
LDAGPU_EXPORT const char *ldagpu_corpus_doc_name(const ldagpu_corpus *c, size_t d);
/* Tokens of every input document (num_docs), and of every word (vocab size). */
LDAGPU_EXPORT void ldagpu_corpus_doc_lengths(const ldagpu_corpus *c, uint64_t *out);
LDAGPU_EXPORT void ldagpu_corpus_word_counts(const ldagpu_corpus *c, uint64_t *out);

/* ---- training ---- */

typedef struct {
    uint32_t iteration, last_iteration;
    double seconds;            /* this iteration */
    double tokens_per_second;
    int evaluated;             /* on evaluated iterations (eval-every, the last): */
    double loglik_per_token;   /* mean log Σ_k θ[m,k] φ[w,k] over the training tokens */
    double loglik_joint;       /* log p(w, z) / N */
    int heldout_evaluated;     /* with holdout > 0 */
    double heldout_loglik_per_token;
} ldagpu_progress;

/* Called after every iteration; a non-zero return stops training after it (the model of the
 * iterations done is returned). Called on the thread that called ldagpu_train. */
typedef int (*ldagpu_progress_fn)(void *ctx, const ldagpu_progress *p);
/* A line train would print on stderr (warnings; what `-q` silences too when s sets quiet = no). */
typedef void (*ldagpu_message_fn)(void *ctx, const char *line);

/* Trains on c with s (NULL: the defaults). progress, message: NULL or callbacks given ctx. */
LDAGPU_EXPORT ldagpu_model *ldagpu_train(const ldagpu_corpus *c, const ldagpu_settings *s,
                                         ldagpu_progress_fn progress, ldagpu_message_fn message, void *ctx,
                                         ldagpu_error *err);

/* ---- models ---- */

/* A model folder written by train or ldagpu_model_save (θ, the log, the held-out list too). */
LDAGPU_EXPORT ldagpu_model *ldagpu_model_load(const char *dir, ldagpu_error *err);
/* Writes the model folder train writes, at dir, under train's rules for -o: a folder holding a
 * model is replaced only with force, a folder of other files never. */
LDAGPU_EXPORT int ldagpu_model_save(const ldagpu_model *m, const char *dir, int force, ldagpu_error *err);
LDAGPU_EXPORT void ldagpu_model_free(ldagpu_model *m);

LDAGPU_EXPORT uint32_t ldagpu_model_num_topics(const ldagpu_model *m);
LDAGPU_EXPORT uint32_t ldagpu_model_vocab_size(const ldagpu_model *m);
LDAGPU_EXPORT uint64_t ldagpu_model_num_docs(const ldagpu_model *m); /* θ's rows: input documents */
LDAGPU_EXPORT uint32_t ldagpu_model_iterations(const ldagpu_model *m);
LDAGPU_EXPORT const char *ldagpu_model_word(const ldagpu_model *m, uint32_t w);
LDAGPU_EXPORT const char *ldagpu_model_doc_name(const ldagpu_model *m, uint64_t d); /* NULL: no names */
/* A recorded setting as model.conf writes it (its key, e.g. "model", "alpha", "seed"), into buf;
 * LDAGPU_BAD_INPUT for a key that is not one. */
LDAGPU_EXPORT int ldagpu_model_setting(const ldagpu_model *m, const char *key, char *buf, size_t size,
                                       ldagpu_error *err);

/* φ: K × V floats, row k = p(word | topic k). */
LDAGPU_EXPORT void ldagpu_model_phi(const ldagpu_model *m, float *out);
/* θ: D × K floats, row d = p(topic | document d), in input order (empty documents: uniform). A
 * model that keeps θ in a lossy form (doc-topics top:N, sparse:EPS) gives its kept entries, the
 * rest 0; LDAGPU_BAD_INPUT for one that keeps none. */
LDAGPU_EXPORT int ldagpu_model_theta(const ldagpu_model *m, float *out, ldagpu_error *err);
/* Tokens assigned to each topic (K): n[k] = Σ_w n[w,k]. */
LDAGPU_EXPORT void ldagpu_model_topic_tokens(const ldagpu_model *m, uint32_t *out);
/* The priors at the end of training: α per topic (K; learned, or the symmetric one), and β. */
LDAGPU_EXPORT void ldagpu_model_alpha(const ldagpu_model *m, double *out);
LDAGPU_EXPORT double ldagpu_model_beta(const ldagpu_model *m);

/* New documents in the model's vocabulary, read as `ldagpu infer` reads them (the model's
 * tokenizer settings; unknown words counted and skipped; no pruning). */
LDAGPU_EXPORT ldagpu_corpus *ldagpu_model_read_corpus(const ldagpu_model *m, const char *path, ldagpu_error *err);
LDAGPU_EXPORT ldagpu_corpus *ldagpu_model_texts(const ldagpu_model *m, const char *const *texts, size_t n,
                                                const char *const *names, ldagpu_error *err);

/* Inference as `ldagpu infer`: θ of c's documents (D × K into out, D = ldagpu_corpus_num_docs,
 * input order; a document without a known word gets the uniform row) with φ fixed, `iterations`
 * sweeps keyed on seed. A corpus in another vocabulary is mapped to the model's by the words
 * (unknown words skipped). device: "auto", "cpu" or "cuda"; threads 0: all cores. */
LDAGPU_EXPORT int ldagpu_infer(const ldagpu_model *m, const ldagpu_corpus *c, uint32_t iterations, uint64_t seed,
                               const char *device, int threads, float *out, ldagpu_error *err);

/* Held-out score as `ldagpu eval`: document completion of c's documents (each of 2 tokens or
 * more: θ from its first half, the second half scored), `iterations` sweeps keyed on seed;
 * *loglik_per_token the mean log-likelihood of the scored tokens, *tokens_scored their number. */
LDAGPU_EXPORT int ldagpu_score(const ldagpu_model *m, const ldagpu_corpus *c, uint32_t iterations, uint64_t seed,
                               const char *device, int threads, double *loglik_per_token, uint64_t *tokens_scored,
                               ldagpu_error *err);

#ifdef __cplusplus
}
#endif

#endif
