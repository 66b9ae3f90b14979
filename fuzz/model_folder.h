/* model_folder.h — a model folder for the fuzz targets that read one (model, report).
 *
 * Once per process, small consistent models are written with the real writer
 * (lda_model_write): K = 3, V = 6, 5 documents (one empty, so θ has a uniform row) over a
 * 14-token LDA-C corpus written beside them, log.csv too; one model a form of θ (dense,
 * top:2, sparse:0.2) and one with learned priors (alpha.npy). An input picks a base model
 * (byte 0) and one of its files (byte 1, any of FUZZ_MODEL_FILES, present in that base or
 * not) whose bytes become the rest of the input; every other file is the base's. So each
 * array file and model.conf is fuzzed against the others, and a valid input exists for every
 * reader path.
 *
 * The seeds in fuzz/corpus/model and fuzz/corpus/report are every base's every file as it is
 * (`LDAGPU_FUZZ_SEEDS=DIR build/fuzz/fuzz/fuzz_model -runs=0` writes them into DIR). */
#ifndef LDA_FUZZ_MODEL_FOLDER_H
#define LDA_FUZZ_MODEL_FOLDER_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

enum { FUZZ_MODEL_BASES = 4 };

/* The folder holding the model of an input (its files rewritten for it); NULL when the input
 * is too short to name a base and a file. */
const char *fuzz_model_folder(const uint8_t *data, size_t size);
/* The model of an input read as every command reads a model (lda_model_read with θ and z):
 * 1 and m when it was read; 0 when it was refused (the refusal checked, fuzz_input.h) or the
 * input names no file. *dir: its folder (NULL for no file). Sets up the memory budget. */
int fuzz_model_read(const uint8_t *data, size_t size, lda_model *m, const char **dir);
/* The base models' training corpus (their model.conf names it; the report target reads it
 * from here, so that a fuzzed path cannot name an endless device). */
const char *fuzz_model_corpus(void);

#endif
