/* model_stopwords.h — the stop words a model reads text with, kept in its folder.
 *
 * A model folder holds the stop-word list its corpus was read with (stopwords.h: the built-in
 * list, a file, none, and the extra words, as one list) in stopwords.txt, and model.conf says
 * `stopwords = stopwords.txt`, a name in the folder itself; with no stop words, `stopwords =
 * none` and no file. So infer, eval, topics --coherence and --resume read new text as training
 * did after the original files are gone. Folders from before keep the path of the user's file
 * (or nothing: the built-in list), read as before. */
#ifndef LDA_MODEL_STOPWORDS_H
#define LDA_MODEL_STOPWORDS_H

#include "core/error.h"
#include "corpus/stopwords.h"
#include "model/model.h"

#define LDA_MODEL_STOPWORDS_FILE "stopwords.txt"

/* Makes m's settings record `list` as the model's own (the folder's file, or none when it is
 * empty; no extra file), to be written with the model; m->stopwords borrows list. */
int lda_model_keep_stopwords(lda_model *m, const stopword_list *list, lda_error *err);

/* Writes dir/stopwords.txt (atomically) when m's settings name it. */
int lda_model_write_stopwords(const lda_model *m, const char *dir, lda_error *err);

/* After dir/model.conf is read: `stopwords = stopwords.txt` becomes that file in dir, the
 * path the readers open. */
int lda_model_find_stopwords(lda_model *m, const char *dir, lda_error *err);

#endif
