/* model_folder.h — a model folder as one unit, and a run that owns only what it created.
 *
 * A model is written into a fresh folder beside the old one (PARENT/.NAME.ldagpu-new-PID) and
 * put in its place by one rename (renameat2 RENAME_EXCHANGE), so at every moment, whatever
 * kills the run and whenever the disk fills, MODEL holds the old model or the new one, each
 * complete: never the new φ with the old model.conf. Files plus a manifest written last were
 * the other choice; a manifest can only *detect* a mixed folder (the old model would be lost
 * after a kill between two renames), where the swap never makes one. The new folder also
 * gets a manifest (manifest.h), which readers check, for folders mixed by other means.
 *
 * Where MODEL holds no model yet (a new or empty folder, or the run's checkpoint alone)
 * nothing needs keeping whole: the files move in one by one, model.conf last, and MODEL
 * itself stays (`cd out && ldagpu train ../c -o .` leaves the shell in its folder); until
 * model.conf arrives the folder holds no model, as before.
 *
 * The rules of a run's -o folder (lda_model_folder_open, before any work):
 *   absent or empty        written;
 *   holds a model          refused, unless --force (replace it) or it is the folder the run
 *   (or its checkpoint)    resumes;
 *   anything else          refused: files that are not a model's are never replaced, so
 *                          `-o .` never overwrites a vocab.txt or log.csv of the user's.
 * A folder holding a model whose files are symbolic links, or whose `checkpoint` is a link or
 * a folder of other files, is refused: their targets are not the run's to replace or empty.
 * The folder is locked (dir_lock.h) for the whole run: a second run into it fails at once.
 *
 * What else the old folder holds (a report.html the user put there, a folder of exports) is
 * carried into the new one: files as hard links before the swap, folders moved just after.
 * The old model's files and ldagpu's own state go. A run killed in the middle leaves its
 * sibling folder, which the next run into MODEL tidies: it deletes only model files and
 * copies of what MODEL holds, and moves anything else back into MODEL. Nothing named like a
 * temporary file is ever deleted by its name (folder_tidy.h).
 *
 * Limits: MODEL's parent must be writable, MODEL may not be a mount point (renames do not
 * cross file systems), and when a model is replaced, a shell whose current folder is MODEL
 * stays in the old, removed one (replaced_cwd: train says so). Where the file system has no
 * RENAME_EXCHANGE, the old folder is renamed aside and the new one into place: two renames,
 * between which MODEL is absent (never mixed); the next run puts the old one back if the
 * second never happened.
 *
 * Test switch: LDAGPU_RENAME_PAUSE_MS=N sleeps N ms before each rename, link and exchange of
 * a model or checkpoint write (scripts/kill-test.sh kills runs inside those windows).
 * model_folder.c: the rules and the lock; folder_write.c: writing; folder_tidy.c: what is
 * ldagpu's own, and tidying. */
#ifndef LDA_MODEL_FOLDER_H
#define LDA_MODEL_FOLDER_H

#include <stdint.h>

#include "core/error.h"
#include "model/settings.h"

typedef struct {
    char *shown;  /* the folder as given (-o) */
    char *path;   /* absolute, links resolved */
    char *parent; /* the folder holding it */
    char *name;   /* its last component */
    int lock_fd;  /* its lock (-1: none) */
    int created;  /* it did not exist: made (empty) for the lock, removed if the run leaves it so */
    char *created_top; /* the highest folder made for it (its missing parents too) */
    int replaced_cwd;  /* the last write swapped out the process's current folder (a shell's, too?) */
} lda_model_folder;

/* Checks that dir may receive this run's model (the rules above; force: --force; resumed:
 * the state a --resume run continues, NULL for a new run), creates it if absent, locks it,
 * and tidies what killed runs left beside it and in it. */
int lda_model_folder_open(lda_model_folder *f, const char *dir, int force, const char *resumed, lda_error *err);

/* Writes a model: fill writes its files into a new folder (which it is given), then its
 * manifest is written and it takes the place of f's folder in one step (or, where f's folder
 * holds no model, its files move in, model.conf last); what is not the model's is carried
 * over, and the checkpoint too when it belongs to run_id (it is the same run's; another
 * run's is superseded). On failure before the swap the new folder is removed and f's folder
 * is as it was. */
typedef int (*lda_model_folder_fill)(const char *dir, void *ctx, lda_error *err);
int lda_model_folder_replace(lda_model_folder *f, lda_model_folder_fill fill, void *ctx, uint64_t run_id,
                             lda_error *err);

/* Releases the lock; a folder the run created and left empty is removed again, so a run
 * stopped before its first iteration leaves no trace. */
void lda_model_folder_close(lda_model_folder *f);

/* The id of a run (model.conf's run_id, never 0): a hash of its corpus (the checksum of the
 * corpus as read) and of every recorded setting --resume may not change. Random numbers are
 * keyed on the settings (rng.h), so two runs alike in these are one computation, and share
 * an id; a run with another corpus, K, seed, ... has another. Resuming keeps the id. */
uint64_t lda_run_id(const lda_settings *s, uint64_t corpus_checksum);

/* Marks every file of the model in dir as an input of this process (atomic_file.h): no
 * output of the command reading it may replace one. */
int lda_model_folder_protect(const char *dir, lda_error *err);

#endif
