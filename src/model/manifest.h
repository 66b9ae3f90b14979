/* manifest.h — manifest.txt, the list of a model folder's files (and of a checkpoint's): one
 * line a file, "CRC SIZE NAME" as POSIX `cksum` prints it (util/cksum.h), under a comment line.
 * It is written after every other file of the write, into the folder that is then put in
 * place as a whole (model_folder.h), so it lists exactly the files of that write; a reader
 * checks the files it reads against it and refuses a folder whose files come from different
 * writes (a file copied in by hand, a folder of an older ldagpu cut short). By hand, in MODEL:
 *     tail -n +2 manifest.txt | while read -r c s n; do cksum "$n"; done | cmp - <(tail -n +2 manifest.txt)
 * Folders written before the manifest existed have none and are read as before. */
#ifndef LDA_MANIFEST_H
#define LDA_MANIFEST_H

#include "core/error.h"

#define LDA_MANIFEST_NAME "manifest.txt"

/* Writes dir/manifest.txt listing every regular file of dir (but itself and hidden files). */
int lda_manifest_write(const char *dir, lda_error *err);

/* Checks every file dir's manifest lists, but those named in skip (NULL-terminated, may be
 * NULL: the files the caller does not read), for its size and checksum: a missing or
 * different one is refused (exit status 2). A folder without a manifest passes. */
int lda_manifest_verify(const char *dir, const char *const *skip, lda_error *err);

#endif
