/* commands.h — the subcommands of ldagpu, each in its own cmd_*.c file. Each returns the
 * process exit status (error.h). */
#ifndef LDA_COMMANDS_H
#define LDA_COMMANDS_H

#include <stdio.h>

#include "core/error.h"
#include "model/doc_topics.h"

int lda_cmd_train(int argc, char **argv);
int lda_cmd_topics(int argc, char **argv);
int lda_cmd_bench(int argc, char **argv);
int lda_cmd_infer(int argc, char **argv);
int lda_cmd_eval(int argc, char **argv);
int lda_cmd_export(int argc, char **argv);
int lda_cmd_report(int argc, char **argv);
int lda_cmd_format(int argc, char **argv);
int lda_cmd_generate(int argc, char **argv);

/* export's Mallet files of the model folder dir, which train --output-topic-keys and
 * --output-doc-topics write too: the topic keys (top_words a topic) and the document topics
 * (dense, or from a θ kept as top:N or sparse:EPS exactly what it keeps, in Mallet's sparse
 * form); a NULL path is not written. *written (may be NULL): the θ form they came from. */
int lda_export_mallet_files(const char *dir, const char *topic_keys, const char *doc_topics, uint32_t top_words,
                            lda_doc_topics *written, lda_error *err);

/* Prints "ldagpu COMMAND: message" to stderr and returns the error's exit status. */
int lda_report(const char *command, const lda_error *err);
/* Where lda_report prints from now on (NULL: stderr): an MPI rank other than 0, whose other
 * messages are silenced (main.c), still reports its failure. */
void lda_report_to(FILE *out);

#endif
