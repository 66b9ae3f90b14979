/* corpus_option_rows.h — the option rows saying how a corpus is read, written once for every
 * command whose option table has them (train, format, bench, infer, eval). The values are
 * parsed by the settings table (model/settings.c: lda_setting_by_option), which also records
 * them in model.conf; --cache is train's own (corpus/corpus_cache.h).
 *
 * A command that takes all the reader options (train, format) puts LDA_READER_OPTION_IDS in its
 * option enum and LDA_READER_OPTION_ROWS in its table: a new reader option is then a row here
 * (and its setting). */
#ifndef LDA_CORPUS_OPTION_ROWS_H
#define LDA_CORPUS_OPTION_ROWS_H

#include "corpus/corpus.h"

#define LDA_ROW_FORMAT {"format", 'f', "FORMAT", "corpus format", "auto", corpus_format_choices}
#define LDA_ROW_VOCAB                                                                                           \
    {"vocab", 0, "FILE|none", "vocabulary file of a UCI or LDA-C corpus (none: words named by their ids)",     \
     "derived from the corpus name"}
#define LDA_ROW_STOPWORDS {"stopwords", 0, "FILE|none", "stop-word list for raw text", "built-in English list"}
#define LDA_ROW_EXTRA_STOPWORDS                                                                                  \
    {"extra-stopwords", 0, "FILE", "raw text: more stop words, added to the list in use", NULL}
#define LDA_ROW_TOKEN_PATTERN                                                                                    \
    {"token-pattern", 0, "REGEX", "raw text: the words are the matches of this PCRE2 pattern (UTF-8, Unicode "  \
     "properties: '[\\p{L}\\p{N}_+-]+' keeps new_york, C++, e-mail)", "runs of letters", NULL, "token-regex"}
#define LDA_ROW_PRETOKENIZED                                                                                     \
    {"pretokenized", 0, NULL, "raw text: the words are what whitespace separates, taken as they are", NULL}
#define LDA_ROW_LOWERCASE                                                                                        \
    {"lowercase", 0, NULL, "raw text: lowercase the words (--no-lowercase keeps their case; stop words match "  \
     "either way)", "on"}
#define LDA_ROW_MIN_WORD_LEN {"min-word-length", 0, "N", "raw text: drop shorter words", "3"}
#define LDA_ROW_MIN_DF {"min-df", 0, "N", "raw text: drop words in fewer documents", "2"}
#define LDA_ROW_MAX_DF {"max-df", 0, "F", "raw text: drop words in more than this fraction of documents", "0.5"}
#define LDA_ROW_MAX_VOCAB {"max-vocab", 0, "N", "raw text: keep the N most frequent words (0: all)", "0"}
#define LDA_READER_OPTION_IDS                                                                                 \
    OPT_FORMAT, OPT_VOCAB, OPT_STOPWORDS, OPT_EXTRA_STOPWORDS, OPT_TOKEN_PATTERN, OPT_PRETOKENIZED, OPT_LOWERCASE, \
        OPT_MIN_WORD_LEN, OPT_MIN_DF, OPT_MAX_DF, OPT_MAX_VOCAB
#define LDA_READER_OPTION_ROWS                                                                                \
    [OPT_FORMAT] = LDA_ROW_FORMAT, [OPT_VOCAB] = LDA_ROW_VOCAB, [OPT_STOPWORDS] = LDA_ROW_STOPWORDS,          \
    [OPT_EXTRA_STOPWORDS] = LDA_ROW_EXTRA_STOPWORDS, [OPT_TOKEN_PATTERN] = LDA_ROW_TOKEN_PATTERN,             \
    [OPT_PRETOKENIZED] = LDA_ROW_PRETOKENIZED, [OPT_LOWERCASE] = LDA_ROW_LOWERCASE,                           \
    [OPT_MIN_WORD_LEN] = LDA_ROW_MIN_WORD_LEN, [OPT_MIN_DF] = LDA_ROW_MIN_DF, [OPT_MAX_DF] = LDA_ROW_MAX_DF,   \
    [OPT_MAX_VOCAB] = LDA_ROW_MAX_VOCAB

#define LDA_ROW_CACHE                                                                                           \
    {"cache", 0, "off|auto|FILE", "keep the parsed corpus in binary form in FILE (auto: CORPUS.cache.ldab "    \
     "beside it) and read that instead while it matches the corpus (size, time) and the reader options", "off"}

#endif
