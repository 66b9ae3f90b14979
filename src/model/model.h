/* model.h — a trained model as users see it, and its folder on disk.
 *
 * In memory and on disk everything is in the user's terms: θ has one row per *input*
 * document in input order (documents skipped as empty get the uniform row 1/K), φ has one
 * row per topic (a distribution over the vocabulary), z lists the topic of every token in
 * corpus order. The model folder (format version 1):
 *   model.conf        settings and sizes, "key = value" (config_file.h)
 *   vocab.txt         one word a line; line i is word id i
 *   phi.npy           K × V float32, row k = p(word | topic k)       (matrix_file.h)
 *   θ                 row d = p(topic | document d), in the form model.conf's doc_topics names
 *                     (doc_topics.h): theta.npy (dense, D × K float32), doc_topics_index.npy
 *                     + doc_topics_weight.npy (top:N), theta_indptr.npy + theta_indices.npy
 *                     + theta_data.npy (sparse:EPS, CSR), or none
 *   topic_tokens.npy  K uint32, tokens assigned to each topic
 *   z.npy             N uint32, the topic of every token, corpus order (for resuming)
 * (folders of ldagpu before 0.2: NAME.bin instead of NAME.npy, read all the same)
 *   stopwords.txt     the stop words new text is read with (model_stopwords.h)
 *   topics.txt        the top words of every topic, as text
 *   doc_names.txt     a corpus with names (--format mallet, named): one line an input document,
 *   doc_labels.txt    its name, its label (doc_names.h)
 *   log.csv           one row per iteration (written by the trainer)
 *   heldout.txt       input indices of the held-out documents (with --holdout; the trainer)
 *   manifest.txt      every file above with its size and checksum, written last (manifest.h)
 *   checkpoint/       the newest resumable state of a run (checkpoint.h)
 * A run writes all of them into a new folder that then takes the old one's place in one
 * step (model_folder.h); readers check the files they read against the manifest. */
#ifndef LDA_MODEL_H
#define LDA_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/layout.h"
#include "core/error.h"
#include "core/params.h"
#include "core/priors.h"
#include "model/settings.h"
#include "model/theta.h"
#include "corpus/corpus.h"
#include "corpus/stopwords.h"

#define LDA_MODEL_FORMAT_VERSION 1u

typedef struct {
    uint32_t num_topics;
    uint32_t vocab_size;
    uint64_t num_docs;   /* input documents: rows of θ */
    uint64_t num_tokens; /* tokens trained on */
    /* The run's settings (settings.h; alpha resolved; paths owned): model.conf's table.
     * Keys added within format version 1 are absent from older folders, which read as the
     * defaults (lda_settings_default). */
    lda_settings settings;
    uint32_t iterations; /* completed */
    char *corpus_path;
    char **vocab;
    float *phi;            /* K × V */
    lda_theta theta;       /* in the form settings.doc_topics names (form none if not loaded) */
    uint32_t *topic_tokens; /* K */
    /* With --optimize-interval, the priors learned by the end of the run (alpha.npy, and
     * learned_beta in model.conf): they are part of a resumable state. NULL / 0: not learned,
     * the symmetric alpha and beta of the settings hold. */
    float *alpha_learned;   /* K */
    double beta_learned;
    uint32_t *z;           /* num_tokens (NULL if not loaded) */
    int owns_vocab;
    /* A corpus with names (doc_names.h): num_docs names, labels; NULL: none, or not loaded.
     * has_doc_*: what model.conf says the folder holds. */
    lda_string_list *doc_names, *doc_labels;
    int has_doc_names, has_doc_labels;
    /* The stop-word list written as stopwords.txt when settings name it (model_stopwords.h);
     * borrowed (the trainer's), NULL in a model read from a folder. */
    const stopword_list *stopwords;

    /* What was held out; checksums that tell a resumable state from a stale or different one
     * (0 = unknown, as in folders that predate them). */
    uint64_t heldout_docs;       /* documents held out */
    uint64_t corpus_checksum;    /* lda_corpus_checksum of the corpus as read; 0: unknown */
    uint64_t z_checksum;         /* lda_u32_checksum of z; 0: unknown */
    /* The run that wrote this model or checkpoint (model_folder.h's lda_run_id_new; a resumed
     * run keeps its state's): --resume tells a checkpoint of another run from the model's.
     * 0: unknown (written before run ids). */
    uint64_t run_id;
} lda_model;

/* Builds the user-facing model from backend state in layout order: φ V × K, z at layout
 * positions, n_k; θ is left to the caller (m->theta, built in the model's form: the trainer's
 * theta_fetch.h). The vocabulary is borrowed from the corpus; its documents' names copied. */
int lda_model_from_state(lda_model *m, const corpus *c, const lda_layout *L, const lda_params *params,
                         uint32_t iterations, const char *corpus_path, const float *phi_vk,
                         const uint32_t *z_positions, const uint32_t *n_k, lda_error *err);

/* Every file ldagpu writes in a model folder or a checkpoint, NULL-terminated, but θ's (in any
 * form: lda_doc_topics_all_files); older ldagpus' .bin arrays included. The
 * one list naming them: what a run replaces, what it may delete, what it refuses to follow as
 * a link, what no output may overwrite (model_folder.h). A new model file is a row here. */
extern const char *const lda_model_files[];

/* Writes every file but log.csv into dir (created if missing); m->theta must be in the form
 * settings.doc_topics resolves to. θ files of other forms (a model rewritten with another
 * --doc-topics) are removed once model.conf is written. top_words: for topics.txt. A run
 * writes a model folder as a whole through model_folder.h, which calls this. */
int lda_model_write(const lda_model *m, const char *dir, uint32_t top_words, lda_error *err);

/* Reads model.conf, vocab.txt, phi, topic_tokens; θ (in whatever form model.conf names; none
 * reads as a θ of form none) and z too when asked (.npy, or .bin of an older ldagpu). */
int lda_model_read(lda_model *m, const char *dir, int with_theta, int with_z, lda_error *err);

/* Writes model.conf alone (atomically) to path: a checkpoint's settings. */
int lda_model_write_conf(const lda_model *m, const char *path, lda_error *err);
/* Reads dir/model.conf alone: settings and sizes, no arrays. */
int lda_model_read_conf(lda_model *m, const char *dir, lda_error *err);

/* The priors the model was trained with at its end: the learned ones, or the symmetric
 * alpha and beta of its settings. */
int lda_model_priors(const lda_model *m, lda_priors *out, lda_error *err);
/* The learned priors of a state: alpha.npy into dir (nothing when not learned), and read back
 * (model.conf read first: its learned_beta says whether there is one). */
int lda_model_write_priors(const lda_model *m, const char *dir, lda_error *err);
int lda_model_read_priors(lda_model *m, const char *dir, lda_error *err);

/* Prints "topic K  SHARE%  word word ..." lines, top_words per topic. */
int lda_model_print_topics(const lda_model *m, FILE *out, uint32_t top_words, lda_error *err);

void lda_model_free(lda_model *m);

#endif
