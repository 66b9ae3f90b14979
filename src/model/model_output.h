/* model_output.h — checking, before any work, that a model folder can be written: a run
 * must not find out after hours of training that -o names a file or a folder it may not
 * write in. Nothing is created. */
#ifndef LDA_MODEL_OUTPUT_H
#define LDA_MODEL_OUTPUT_H

#include "core/error.h"

/* 0 when dir is a writable folder, or can be created as one (its nearest existing ancestor
 * is a writable folder), and none of the model's files in it is a folder. */
int lda_model_check_output(const char *dir, lda_error *err);

#endif
