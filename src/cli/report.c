/* report.c — how every command prints a failure: one line, "ldagpu COMMAND: message". */
#include <stdio.h>

#include "cli/commands.h"

int lda_report(const char *command, const lda_error *err)
{
    fprintf(stderr, "ldagpu %s: %s\n", command, err->msg[0] ? err->msg : "failed");
    return err->status ? err->status : LDA_EXIT_FAILURE;
}
