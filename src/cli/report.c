/* report.c — how every command prints a failure: one line, "ldagpu COMMAND: message". */
#include <stdio.h>

#include "cli/commands.h"
#include "util/ranks.h"

static FILE *failures; /* NULL: stderr */

void lda_report_to(FILE *out)
{
    failures = out;
}

int lda_report(const char *command, const lda_error *err)
{
    FILE *out = failures ? failures : stderr;
    if (lda_ranks_size() > 1) /* under mpirun: which process */
        fprintf(out, "ldagpu %s (rank %d of %d): %s\n", command, lda_ranks_rank(), lda_ranks_size(),
                err->msg[0] ? err->msg : "failed");
    else
        fprintf(out, "ldagpu %s: %s\n", command, err->msg[0] ? err->msg : "failed");
    fflush(out);
    return err->status ? err->status : LDA_EXIT_FAILURE;
}
