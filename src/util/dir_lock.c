/* dir_lock.c — see dir_lock.h. */
#include "util/dir_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int lda_dir_lock(const char *path, const char *shown, int *fd, lda_error *err)
{
    *fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0) {
        lda_error_fail(err, "cannot open folder %s: %s", shown, strerror(errno));
        return -1;
    }
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    const int e = errno;
    close(*fd);
    *fd = -1;
    if (e == EWOULDBLOCK) {
        lda_error_input(err, "%s is being written by another ldagpu run; wait for it to end or write elsewhere",
                        shown);
        return -1;
    }
    if (e == ENOLCK || e == EINVAL || e == EOPNOTSUPP || e == EBADF)
        return 0; /* no locks on this file system */
    lda_error_fail(err, "cannot lock folder %s: %s", shown, strerror(e));
    return -1;
}

void lda_dir_unlock(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}
