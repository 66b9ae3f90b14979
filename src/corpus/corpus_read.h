/* corpus_read.h — the front door: reading a corpus in any format (corpus.h has the type).
 *
 * Formats (corpus_format): raw text, one document per line; UCI bag-of-words (docword file
 * with a D/W/NNZ header, plus a vocabulary file); LDA-C (Blei's "N id:count ..." lines plus
 * a vocabulary file). Any file may be gzip-compressed. CORPUS_FORMAT_AUTO looks at the
 * first lines. Errors name the file and line ("FILE:LINE: ...") and carry status
 * LDA_EXIT_BAD_INPUT. */
#ifndef LDA_CORPUS_READ_H
#define LDA_CORPUS_READ_H

#include "corpus/corpus.h"

/* Reads a corpus; NULL on failure with err filled. */
corpus *corpus_read(const char *path, const corpus_options *opt, lda_error *err);

#endif
