/* dir_lock.h — one process at a time in a folder: an exclusive flock(2) on the folder itself,
 * taken without waiting and released when the process ends however it ends (a killed run
 * leaves no stale lock and no lock file). */
#ifndef LDA_DIR_LOCK_H
#define LDA_DIR_LOCK_H

#include "core/error.h"

/* Locks the folder at path; *fd holds the lock (close it to release). Another process's
 * lock is refused at once (exit status 2) with a message naming shown, the folder as the
 * user gave it. A file system without locks (some network ones) gives *fd = -1 and
 * success: nothing can be locked there. */
int lda_dir_lock(const char *path, const char *shown, int *fd, lda_error *err);
void lda_dir_unlock(int *fd);

#endif
