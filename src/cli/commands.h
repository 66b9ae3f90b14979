/* commands.h — the subcommands of ldagpu, each in its own cmd_*.c file. Each returns the
 * process exit status (error.h). */
#ifndef LDA_COMMANDS_H
#define LDA_COMMANDS_H

#include <stdio.h>

#include "core/error.h"

int lda_cmd_train(int argc, char **argv);
int lda_cmd_topics(int argc, char **argv);
int lda_cmd_bench(int argc, char **argv);
int lda_cmd_infer(int argc, char **argv);
int lda_cmd_eval(int argc, char **argv);
int lda_cmd_export(int argc, char **argv);
int lda_cmd_report(int argc, char **argv);
int lda_cmd_format(int argc, char **argv);
int lda_cmd_generate(int argc, char **argv);

/* Prints "ldagpu COMMAND: message" to stderr and returns the error's exit status. */
int lda_report(const char *command, const lda_error *err);
/* Where lda_report prints from now on (NULL: stderr): an MPI rank other than 0, whose other
 * messages are silenced (main.c), still reports its failure. */
void lda_report_to(FILE *out);

#endif
