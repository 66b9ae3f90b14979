/* atomic_file.h — writing a file so that it is either complete or absent.
 *
 * Data goes to "PATH.tmp-PID" in the same folder, is flushed and fsync'ed, and is renamed
 * over PATH only when everything was written. A crash or a full disk leaves the previous
 * PATH (or none) and at worst a stray .tmp file (lda_atomic_clean removes those of processes
 * that are gone), never a half-written model.
 *
 * What is not ours to replace is never replaced: a PATH that is a device, a FIFO or a socket
 * (-o /dev/stdout, a named pipe) is written directly, in place; a symbolic link is followed
 * deliberately, its target replaced and the link kept (one to a missing file is refused). */
#ifndef LDA_ATOMIC_FILE_H
#define LDA_ATOMIC_FILE_H

#include <stdio.h>

#include "core/error.h"

typedef struct {
    FILE *f;
    char *path;     /* where the data ends up (a symbolic link's target) */
    char *tmp_path; /* NULL when written directly */
} lda_atomic_file;

int lda_atomic_open(lda_atomic_file *af, const char *path, lda_error *err);
/* Flushes, syncs, closes and renames; on failure removes the temporary file. */
int lda_atomic_commit(lda_atomic_file *af, lda_error *err);
/* Closes and removes the temporary file (after an error elsewhere). */
void lda_atomic_abort(lda_atomic_file *af);

/* Removes from dir the temporary files ("NAME.tmp-PID") that writes cut short by a kill left:
 * those of this process and of processes no longer running. A missing dir is fine. */
int lda_atomic_clean(const char *dir, lda_error *err);

/* "DIR/NAME" in a new string; NULL with err on allocation failure. */
char *lda_path_join(const char *dir, const char *name, lda_error *err);
/* mkdir -p. */
int lda_make_dirs(const char *path, lda_error *err);

#endif
