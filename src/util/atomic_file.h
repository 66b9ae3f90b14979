/* atomic_file.h — writing a file so that it is either complete or absent.
 *
 * Data goes to "PATH.tmp-PID" in the same folder, is flushed and fsync'ed, and is renamed
 * over PATH only when everything was written. A crash or a full disk leaves the previous
 * PATH (or none) and at worst a stray .tmp file, never a half-written one. Stray temporary
 * files are never removed by name: a file called so may be the user's. (A model folder is
 * written as a whole in a folder of its own, model/model_folder.h, so none is left in it.)
 *
 * What is not ours to replace is never replaced: a PATH that is a device, a FIFO or a socket
 * (-o /dev/stdout, a named pipe) is written directly, in place; a symbolic link is followed
 * deliberately, its target replaced and the link kept (one to a missing file is refused); and
 * a file this process reads (lda_atomic_protect: its corpus, its model's files) is refused
 * as an output, whatever name reaches it: every command's outputs pass here, so this is the
 * one place that keeps `infer m c.txt -o c.txt` from replacing the corpus. */
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

/* Marks the file at path (when there is one) as an input of this process: lda_atomic_open and
 * lda_atomic_commit then refuse (exit status 2) to replace it, compared by device and inode,
 * so a link or another spelling of the name is caught too. what says what it is in that
 * message ("the corpus", "a file of the model folder m"). The readers mark what they read;
 * nothing is recorded until the command layer turns the guard on (main.c, once), so library
 * code (and its tests) may rewrite a file it has read. */
int lda_atomic_protect(const char *path, const char *what, lda_error *err);
void lda_atomic_guard_inputs(void);

/* "DIR/NAME" in a new string; NULL with err on allocation failure. */
char *lda_path_join(const char *dir, const char *name, lda_error *err);
/* mkdir -p. */
int lda_make_dirs(const char *path, lda_error *err);

#endif
