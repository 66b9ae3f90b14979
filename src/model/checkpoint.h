/* checkpoint.h — the resumable state of a training run, written and found again.
 *
 * A state is a folder holding model.conf (the run's settings, iterations done, the corpus
 * and z checksums), z.npy (every token's topic, corpus order; z.bin from ldagpu before 0.2), log.csv and, with --holdout,
 * heldout.txt; stopwords.txt, the stop words the corpus is read with (model_stopwords.h). Because every random number is keyed on (seed, purpose, iteration, index)
 * (rng.h), z and the iteration count are the whole state: backend start(z, t) rebuilds θ and
 * φ exactly as they were, and the run goes on with the same random stream.
 *
 * Two states may exist for a model folder MODEL: MODEL itself (a finished or interrupted
 * run writes the full model, model.conf last) and MODEL/checkpoint (written every
 * --checkpoint-every iterations). A checkpoint is written into a temporary folder which
 * then takes the place of the old one in one step (renameat2 RENAME_EXCHANGE; where the
 * file system lacks it, the old one is first renamed to checkpoint.old), so at every
 * moment some complete checkpoint exists. Each carries a manifest (manifest.h) and the run
 * id of its run (model.conf's run_id), as a model does.
 *
 * lda_resume_load takes the newest valid state of the folder's current run: the run of its
 * checkpoint when that differs from the model's (a run into a folder holding an older model
 * checkpoints there long before it replaces the model; a run's final write keeps only its
 * own checkpoint), else the model's. So a new run killed at its first checkpoint resumes
 * as itself, never as the older model beside it.
 *
 * A checkpoint folder is ldagpu's own only when it holds nothing but a state's files
 * (model_folder.h, lda_state_folder_is_ours): a link named checkpoint, or a folder of the
 * user's, is never emptied. */
#ifndef LDA_CHECKPOINT_H
#define LDA_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "model/model.h"
#include "model/train_log.h"

/* Writes log.csv and heldout.txt (input indices, one a line, 0-based; when m->holdout > 0,
 * otherwise a stale heldout.txt is removed) into dir: the parts of a state that are not the
 * model's own files. */
int lda_state_write_extras(const char *dir, const lda_model *m, const lda_train_log *log, const size_t *heldout,
                           size_t num_heldout, lda_error *err);

/* Writes {model.conf of m, z.npy = m->z, log.csv, heldout.txt} as model_dir/checkpoint,
 * replacing the previous checkpoint atomically. m needs its settings and z, nothing else. */
int lda_checkpoint_write(const char *model_dir, const lda_model *m, const lda_train_log *log,
                         const size_t *heldout, size_t num_heldout, lda_error *err);

/* The checkpoint's folder in a model folder. */
#define LDA_CHECKPOINT_DIR "checkpoint"

/* 1 for the names of a model folder's checkpoint folders: checkpoint, checkpoint.old and the
 * temporary checkpoint.tmp-PID. */
int lda_checkpoint_entry(const char *name);

/* Removes the temporary checkpoint folders that writes cut short by a kill left in model_dir
 * (processes that are gone), when they are ldagpu's own. */
int lda_checkpoint_tidy(const char *model_dir, lda_error *err);

typedef struct {
    lda_model m;       /* model.conf's settings and sizes; m.z loaded (corpus order) */
    char *dir;         /* the folder the state came from: MODEL or MODEL/checkpoint */
    lda_train_log log; /* the rows of its log.csv */
} lda_resume_state;

/* lda_model_read for the commands that use a finished model (topics, infer, eval): a folder
 * holding only a checkpoint (a run stopped before it wrote its model) is told how to finish it. */
int lda_model_read_finished(lda_model *m, const char *dir, int with_theta, int with_z, lda_error *err);

/* Finds the newest valid state of model_dir (itself, its checkpoint) and loads it. */
int lda_resume_load(const char *model_dir, lda_resume_state *st, lda_error *err);
void lda_resume_free(lda_resume_state *st);

#endif
