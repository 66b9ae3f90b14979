/* folder_tidy.h — what in and beside a model folder is ldagpu's own, and tidying what killed
 * runs left there (model_folder.h says why such things exist).
 *
 * ldagpu's own: the files of lda_model_file_name's names; in a folder ldagpu made itself (a
 * checkpoint, a new model folder while it fills), also the cut-short writes of those files
 * ("phi.npy.tmp-PID", atomic_file.h) and the mark of a filling folder. Nothing else is
 * deleted, whatever its name: the user's files are moved back into the model folder. */
#ifndef LDA_FOLDER_TIDY_H
#define LDA_FOLDER_TIDY_H

#include <dirent.h>

#include "core/error.h"

/* The folders beside MODEL: PARENT/.NAME.ldagpu-new-PID (a model being written, and after the
 * swap the old one) and PARENT/.NAME.ldagpu-old-PID (the old one set aside where the file
 * system has no RENAME_EXCHANGE). */
#define LDA_SIBLING_NEW "new"
#define LDA_SIBLING_OLD "old"
/* The mark of a new folder while it fills (removed just before it is put in place). */
#define LDA_STAGING_MARK ".ldagpu-staging"

/* 1 when name is a file ldagpu writes in a model folder or a checkpoint (model.h's list, θ's
 * files in any form). */
int lda_model_file_name(const char *name);
/* ... or, in a folder ldagpu made itself, one of its cut-short writes or the staging mark. */
int lda_written_by_ldagpu(const char *name);

/* A folder of ldagpu's resumable state (a checkpoint, or a temporary one): a real folder,
 * not a link, holding nothing but files lda_written_by_ldagpu names. */
int lda_state_folder_is_ours(const char *path);
/* Removes such a folder; anything else in it is left, and the folder with it (an error). */
int lda_state_folder_remove(const char *path, lda_error *err);

/* PARENT/.NAME.ldagpu-KIND-PID (a long NAME shortened with a hash, within NAME_MAX). */
char *lda_sibling_path(const char *parent, const char *name, const char *kind, long pid, lda_error *err);

/* Empties from, a folder beside the model folder model, into model: model files and
 * ldagpu's checkpoints are deleted, hard links of what model holds dropped, anything else
 * moved into model where its name is free; from is removed once empty. */
int lda_tidy_into(const char *from, const char *model, lda_error *err);
/* lda_tidy_into for every folder that a run now gone left beside PARENT/NAME (= model). */
int lda_tidy_siblings(const char *parent, const char *name, const char *model, lda_error *err);
/* PARENT/NAME is absent: a run killed between the two renames of a swap without
 * RENAME_EXCHANGE left the old model aside; it goes back. */
void lda_restore_aside(const char *parent, const char *name);

/* 1 when process pid has ended (a leftover of it may be tidied). */
int lda_process_gone(long pid);
/* A folder opened without following a link (NULL with errno, ELOOP/ENOTDIR for a link). */
DIR *lda_open_folder(const char *path);
void lda_sync_folder(const char *path);

/* The test switch: sleeps LDAGPU_RENAME_PAUSE_MS ms (before each rename, link and exchange of
 * a model or checkpoint write) when it is set. */
void lda_model_folder_pause(void);

#endif
