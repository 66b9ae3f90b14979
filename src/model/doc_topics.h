/* doc_topics.h — how a model keeps its document–topic proportions θ: the setting
 * `--doc-topics` (model.conf's doc_topics) and the files each form writes.
 *
 * A dense θ is D × K floats: 5.7 GB at 1.4 M documents and K = 1024, too much to write, read
 * or hold at 10^7 documents, while users mostly want each document's main topics. So:
 *   dense        theta.npy, D × K float32 (every entry; the default for small corpora)
 *   top:N        doc_topics_index.npy (uint32) and doc_topics_weight.npy (float32), D × N:
 *                each document's N largest proportions, largest first, ties by topic id
 *   sparse:EPS   CSR: theta_indptr.npy (uint64, D + 1), theta_indices.npy (uint32) and
 *                theta_data.npy (float32): the entries ≥ EPS, topics ascending in a row
 *   none         no θ file
 *   auto         dense when it takes at most LDA_DOC_TOPICS_AUTO_DENSE_BYTES, else
 *                sparse:LDA_DOC_TOPICS_DEFAULT_EPS (what a run resolves to is recorded)
 * Rows are input documents in input order; documents not trained on (empty, held out) have
 * the uniform row 1/K, in whatever form. top:N and sparse:EPS are lossy: an entry they leave
 * out reads as 0 (theta.h says what each consumer does with that). */
#ifndef LDA_DOC_TOPICS_H
#define LDA_DOC_TOPICS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/params.h"

typedef enum {
    LDA_DOC_TOPICS_AUTO = 0,
    LDA_DOC_TOPICS_DENSE,
    LDA_DOC_TOPICS_TOP,
    LDA_DOC_TOPICS_SPARSE,
    LDA_DOC_TOPICS_NONE,
} lda_doc_topics_form;

typedef struct {
    lda_doc_topics_form form;
    uint32_t top;     /* top:N */
    double threshold; /* sparse:EPS, in (0, 1]; entries are kept when θ ≥ (float)EPS */
} lda_doc_topics;

/* auto: dense up to 1 GiB (about 260,000 documents at K = 1024), sparse above. */
#define LDA_DOC_TOPICS_AUTO_DENSE_BYTES (1ull << 30)
/* sparse without EPS, and auto above the limit: at most 100 entries a row (Σθ = 1). */
#define LDA_DOC_TOPICS_DEFAULT_EPS 0.01
/* top:N, at most (N above K keeps K). */
#define LDA_DOC_TOPICS_MAX_TOP (1u << 20)

/* The forms for --help and completion (top:N and sparse:EPS named with their parameter). */
extern const lda_choice lda_doc_topics_choices[];

/* The run's default: auto. */
lda_doc_topics lda_doc_topics_default(void);

/* "auto", "dense", "none", "top:N", "sparse" or "sparse:EPS"; `where` names the source. */
int lda_doc_topics_parse(const char *where, const char *text, lda_doc_topics *out, lda_error *err);
/* As model.conf writes it and parse reads it back ("top:10", "sparse:0.01"), into buf. */
const char *lda_doc_topics_format(const lda_doc_topics *d, char *buf, size_t size);
int lda_doc_topics_same(const lda_doc_topics *a, const lda_doc_topics *b);

/* The form a model of D documents and K topics keeps: auto resolved, top:N clamped to K. When
 * why is not NULL, auto's reason is written there ("" when the form was not auto). */
lda_doc_topics lda_doc_topics_resolve(const lda_doc_topics *d, uint64_t num_docs, uint32_t K, char *why,
                                      size_t why_size);

/* The files of a resolved form, NULL-terminated (none: no file). */
const char *const *lda_doc_topics_files(lda_doc_topics_form form);
/* Every file of every form (and theta.bin of folders before 0.2), NULL-terminated: what a
 * model folder may hold for θ. */
extern const char *const lda_doc_topics_all_files[];

/* Entries a row of a resolved form holds at most: K, N, or for sparse:EPS the most entries
 * of at least EPS that sum to 1 (⌊1/EPS⌋ + 1 for rounding), at most K. */
uint32_t lda_doc_topics_row_bound(const lda_doc_topics *d, uint32_t K);
/* Host bytes of a resolved form's θ of D rows (for sparse, the bound above: 8 bytes an entry
 * and 8 a row pointer). */
uint64_t lda_doc_topics_bytes(const lda_doc_topics *d, uint64_t num_docs, uint32_t K);

#endif
