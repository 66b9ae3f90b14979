/* memory.h — how much memory a run may plan on, so that what a file declares (billions of
 * tokens on one line) or what the options ask for (K = 200,000) is refused before it is
 * allocated, with one clear line, instead of paging or failing half way.
 *
 * Available = MemAvailable + SwapFree from /proc/meminfo, at most the process's soft
 * RLIMIT_AS and RLIMIT_DATA; the environment variable LDAGPU_MEMORY_LIMIT (bytes, or a
 * number with a K, M or G suffix, powers of 1024) lowers it further: for a shared machine,
 * and for the tests of these plans. */
#ifndef LDA_MEMORY_H
#define LDA_MEMORY_H

#include <stdint.h>

#include "core/error.h"

#define LDA_MEMORY_LIMIT_ENV "LDAGPU_MEMORY_LIMIT"

/* *bytes = the memory available (UINT64_MAX when nothing says); -1 with err for a malformed
 * LDAGPU_MEMORY_LIMIT. */
int lda_memory_available(uint64_t *bytes, lda_error *err);

/* The one refusal of what an input declares (tokens, documents, a vocabulary of ids): 0 when
 * `need` bytes are within the memory available; otherwise -1 with err "WHERE: not enough
 * memory: WHAT, NEED to hold them, and AVAILABLE are available" (status 1: the input may be
 * fine for a bigger machine). lda_memory_refuse writes that refusal for a caller that knows
 * what is available. */
int lda_memory_check(const char *where, const char *what, uint64_t need, lda_error *err);
void lda_memory_refuse(const char *where, const char *what, uint64_t need, uint64_t available, lda_error *err);

/* bytes for a message: "114 MiB", "12.3 GiB". Returns buf. */
const char *lda_size_text(uint64_t bytes, char buf[32]);

#endif
