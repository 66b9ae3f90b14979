/* corpus.h — a bag-of-words corpus in memory: the type every reader builds (corpus_read.h
 * is the front door that reads one).
 *
 * Every reader produces the same thing: documents in the user's order, each a run of word
 * ids into one token array, plus the vocabulary strings. Documents left empty (blank lines,
 * or everything removed by the tokenizer or pruning) are skipped and counted; input_index
 * remembers where each kept document stood in the input, so every output can be written in
 * the user's order. */
#ifndef LDA_CORPUS_H
#define LDA_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/params.h"
#include "util/string_list.h"

/* Tokens are counted and indexed in 64 bits on the host (offsets, the layout's positions, a
 * model's z), and a token's index in the corpus keys its random numbers in 56 bits
 * (core/rng.h), so a corpus has fewer than 2^56 tokens. The counts n[k], n[w,k] and N[m] are
 * 32-bit: a document has fewer than 2^32 / 32 tokens (they are interleaved 32 to a row of
 * 32-bit positions, layout.h), a word fewer than 2^32 (lda_word_index_build checks), and a
 * topic may hold at most 2^32 - 1 (the CPU backend checks at every count, the GPU's sparse draw
 * after every pass; other GPU runs take at most 2^32 - 1 tokens: zplan.h, lda_gpu_max_tokens).
 * Readers check the corpus's limits, and the memory the tokens take, from what a file declares
 * before expanding it. */
#define CORPUS_MAX_TOKENS (((uint64_t)1 << 56) - 1)
#define CORPUS_MAX_DOC_TOKENS ((uint64_t)UINT32_MAX / 32)

typedef enum {
    CORPUS_FORMAT_AUTO = 0,
    CORPUS_FORMAT_TEXT,
    CORPUS_FORMAT_UCI,
    CORPUS_FORMAT_LDAC,
    CORPUS_FORMAT_BINARY, /* ldagpu's own (corpus_binary.h); values are stored in files: only append */
    CORPUS_FORMAT_MALLET, /* text lines NAME<tab>LABEL<tab>TEXT (text_fields.h) */
    CORPUS_FORMAT_NAMED,  /* text lines NAME<tab>TEXT */
    CORPUS_FORMAT_COUNT /* not a format: how many there are */
} corpus_format;

/* Whether the format is text read by the tokenizer (text, mallet, named), whose reader options
 * (stop words, word length, pruning) apply. */
int corpus_format_is_text(corpus_format f);

typedef struct {
    corpus_format format;
    /* UCI and LDA-C: the vocabulary file. NULL: derived from the corpus path
     * (UCI: docword.NAME.txt[.gz] -> vocab.NAME.txt[.gz] in the same folder; LDA-C:
     * NAME.vocab, NAME.vocab.gz or vocab.txt in the same folder). */
    const char *vocab_path;
    /* Raw text only. */
    const char *stopwords_path; /* NULL: the built-in English list; "none": no stop words */
    const char *extra_stopwords_path; /* more stop words, added to that list; NULL: none */
    /* What a word is (corpus_text.c): the built-in tokenizer (runs of letters), or the matches
     * of a PCRE2 pattern (token_pattern.h), or, pretokenized, whatever whitespace separates. */
    const char *token_pattern;  /* NULL: not a pattern */
    int pretokenized;           /* whitespace alone separates words (not with token_pattern) */
    int lowercase;              /* words are lowercased (stop words match whatever the case) */
    int min_word_len;           /* shorter words are dropped (>= 1) */
    size_t min_df;              /* words in fewer documents are dropped (>= 1) */
    double max_df;              /* words in more than this fraction of documents are dropped (0,1] */
    size_t max_vocab;           /* keep only this many most frequent words; 0: no limit */
    int force_text;             /* read as raw text even what does not look like text (a PDF, NUL
                                 * bytes: util/text_sniff.h), which is otherwise refused */
    /* When set (inference on new documents), word ids refer to this vocabulary instead of
     * one built from the corpus: words it lacks are counted in num_unknown_tokens and skipped,
     * and pruning options are ignored. */
    char *const *fixed_vocab;
    uint32_t fixed_vocab_size;
} corpus_options;

/* Defaults: auto format, built-in stop words, the built-in tokenizer, lowercase, min_word_len 3,
 * min_df 2, max_df 0.5, no size cap. */
void corpus_options_default(corpus_options *opt);

typedef struct {
    size_t num_docs;           /* kept (non-empty) documents */
    size_t num_input_docs;     /* documents in the input, empty ones included */
    size_t num_empty_docs;     /* num_input_docs - num_docs */
    size_t num_tokens;         /* total tokens in kept documents */
    size_t num_unknown_tokens; /* tokens dropped because fixed_vocab lacks the word */
    size_t *input_unknown;     /* with fixed_vocab: those of each input document (num_input_docs);
                                * NULL otherwise */
    uint32_t vocab_size;
    size_t *doc_offsets;       /* num_docs + 1; doc d is words[doc_offsets[d] .. doc_offsets[d+1]) */
    uint32_t *words;           /* num_tokens word ids, each < vocab_size */
    size_t *input_index;       /* num_docs; position of kept doc d among the input documents */
    char **vocab;              /* vocab_size NUL-terminated strings (owned) */
    corpus_format format;      /* the format actually read */
    /* The named text formats (text_fields.h): each input document's name, and label (mallet);
     * num_input_docs strings each, empty documents' included. NULL: none (row numbers name
     * the documents). */
    lda_string_list *names, *labels;
} corpus;

void corpus_free(corpus *c);

/* Copies n strings (a vocabulary); NULL with err on failure. free_strings frees such an array. */
char **copy_strings(char *const *words, size_t n, lda_error *err);
void free_strings(char **words, size_t n);

/* The formats by name ("auto", "text", "uci", "ldac", "binary", "mallet", "named"), for options
 * and model.conf;
 * parse returns -1 for an unknown name. */
extern const lda_choice corpus_format_choices[];
const char *corpus_format_name(corpus_format f);
int corpus_format_parse(const char *name, corpus_format *out);

#endif
