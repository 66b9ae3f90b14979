/* model_check.h — a model's files checked against its model.conf and against each other as
 * they are read, so that no command indexes past an array or prints a number that is not a
 * probability because a file was damaged, mixed up or edited (hostile until checked).
 *
 *   model.conf    sizes in range (model.c parses them within LDA_MODEL_MAX_*), held-out
 *                 documents no more than documents
 *   vocab.txt     V words, none empty, none twice, none with a control character
 *                 (corpus/vocab_check.h: the rule train applies to every vocabulary it reads)
 *   phi           K × V; every value in [0, 1]; each row sums to 1 within LDA_MODEL_SUM_TOLERANCE
 *   topic_tokens  K counts summing to the tokens model.conf records
 *   θ             dense: rows as φ's; top:N and sparse:EPS: weights in [0, 1], no topic twice
 *                 in a row (theta.c checks each is below K and a CSR's shape), each row summing
 *                 to at most 1 + tolerance (to 1 within it where top:N keeps all K)
 *   z             every topic below K; its checksum, where model.conf records one
 *                 (z_checksum); its tokens per topic equal to topic_tokens, where that is read
 *   alpha (learned) every value positive (finite: matrix_file.h)
 * A failure is one line naming the file (and row, column or token), status 2. */
#ifndef LDA_MODEL_CHECK_H
#define LDA_MODEL_CHECK_H

#include <stdint.h>

#include "core/error.h"
#include "model/model.h"
#include "model/theta.h"

/* φ and θ are float32 values formed from double sums, each within a few units in the last
 * place of its quotient, so a row's sum is within about 1e-6 of 1 at any V or K. The
 * tolerance leaves room for that and still refuses what is not a distribution (a negative
 * value, one above 1, a row of other counts' scale); it does not detect a small edit. */
#define LDA_MODEL_SUM_TOLERANCE 1e-3

/* The most input documents (θ rows) a model.conf may declare: far beyond any corpus (its
 * tokens are fewer than 2^32), and small enough that D × K and D + 1 cannot overflow. */
#define LDA_MODEL_MAX_DOCS (UINT64_C(1) << 40)

/* model.conf's values against each other (after it is read). */
int lda_model_check_conf(const lda_model *m, const char *conf_path, lda_error *err);
/* m->vocab (read from path, word w on line w + 1). */
int lda_model_check_vocab(const lda_model *m, const char *path, lda_error *err);
/* m->phi (K × V, read from path). */
int lda_model_check_phi(const lda_model *m, const char *path, lda_error *err);
/* m->topic_tokens (read from path) against m->num_tokens. */
int lda_model_check_topic_tokens(const lda_model *m, const char *path, lda_error *err);
/* m->z (num_tokens values, read from path): topics below K, the recorded checksum, and,
 * when m->topic_tokens is loaded, the tokens of each topic. */
int lda_model_check_z(const lda_model *m, const char *path, lda_error *err);
/* m->alpha_learned (K values, read from path). */
int lda_model_check_alpha(const lda_model *m, const char *path, lda_error *err);
/* θ's values (its shape and topics are theta.c's): weights_path names the file of its
 * weights, index_path that of its topics (top:N, sparse:EPS). */
int lda_model_check_theta(const lda_theta *t, const char *weights_path, const char *index_path, lda_error *err);

#endif
