/* corpus_internal.h — what the corpus readers share and corpus.c dispatches to; not part
 * of the public interface (corpus.h). */
#ifndef LDA_CORPUS_INTERNAL_H
#define LDA_CORPUS_INTERNAL_H

#include "corpus/corpus_read.h"
#include "util/gzlines.h"
#include "util/strmap.h"

/* A word id meaning "no word": dropped by corpus_remap_words. */
#define CORPUS_NO_WORD UINT32_MAX

/* Room for a reader's explanation of why a corpus came out empty. */
enum { CORPUS_NOTE_MAX = 512 };

/* ---- corpus_build.c: assembling a corpus document by document ---- */

/* Tokens are appended to the current input document; corpus_builder_end_doc closes it,
 * keeping it (with its input_index) when it has tokens and counting it as empty when not. */
typedef struct {
    corpus *c;
    size_t words_cap, docs_cap;
    size_t doc_start; /* first token of the current input document */
    /* Where tokens come from: when set, every append is checked first (corpus_check_tokens)
     * and a refusal names its file and line. */
    const gzlines *src;
    uint64_t max_tokens; /* the memory budget in tokens (corpus_token_budget) */
} corpus_builder;

/* How many tokens the memory available can hold as a corpus (memory.h). */
int corpus_token_budget(uint64_t *max_tokens, lda_error *err);
/* Before expanding tokens declared at src's current line: that the document would then
 * have doc_tokens, and the corpus total, within CORPUS_MAX_DOC_TOKENS, CORPUS_MAX_TOKENS
 * (status 2) and max_tokens (memory: status 1). */
int corpus_check_tokens(const gzlines *src, uint64_t doc_tokens, uint64_t total, uint64_t max_tokens,
                        lda_error *err);
/* The memory part alone, for a total known at once (line 0: none to name). */
int corpus_check_memory(const char *path, size_t line, uint64_t total, uint64_t max_tokens, lda_error *err);

int corpus_builder_init(corpus_builder *b, corpus_format format, lda_error *err);
/* Makes room for n more tokens at once (optional; appending grows as needed). */
int corpus_builder_reserve(corpus_builder *b, size_t n, lda_error *err);
/* Appends `count` copies of word w to the current document. */
int corpus_builder_add(corpus_builder *b, uint32_t w, size_t count, lda_error *err);
int corpus_builder_end_doc(corpus_builder *b, lda_error *err);
/* Counts n input documents that have no tokens (gaps between UCI document ids). */
void corpus_builder_skip_empty_docs(corpus_builder *b, size_t n);
/* The corpus built so far (the builder is spent); its vocabulary is still unset. */
corpus *corpus_builder_finish(corpus_builder *b);
void corpus_builder_discard(corpus_builder *b);

/* Rewrites every token w as map[w], dropping tokens mapped to CORPUS_NO_WORD; documents left
 * without tokens are dropped and counted as empty. Returns the number of tokens dropped;
 * dropped_by_input (optional, num_input_docs) gets them by input document too. */
size_t corpus_remap_words(corpus *c, const uint32_t *map, size_t *dropped_by_input);


/* ---- corpus_fixed.c: a model's fixed vocabulary (corpus_options.fixed_vocab) ---- */

/* A map holding fixed_vocab[i] with id i; fails on a duplicated word. */
strmap *fixed_vocab_map(const corpus_options *opt, lda_error *err);
/* Gives c a copy of the fixed vocabulary (its word ids must already refer to it). */
int corpus_adopt_fixed_vocab(corpus *c, const corpus_options *opt, lda_error *err);
/* Re-expresses a corpus read with its own vocabulary (UCI, LDA-C) in the fixed one: words the
 * fixed vocabulary lacks are counted in num_unknown_tokens and dropped. Writes a note for
 * the empty-corpus message. */
int corpus_map_to_fixed_vocab(corpus *c, const corpus_options *opt, char note[CORPUS_NOTE_MAX],
                              lda_error *err);

/* ---- the readers: each returns the corpus read (possibly empty), or NULL with err. UCI
 * and LDA-C without a vocabulary file (vocab_path NULL, --vocab none) name each word by its
 * id as the file writes it. ---- */

/* Raw text; handles fixed_vocab itself. May write a note explaining an empty result. */
corpus *corpus_read_text(const char *path, const corpus_options *opt,
                         char note[CORPUS_NOTE_MAX], lda_error *err);
corpus *corpus_read_uci(const char *path, const char *vocab_path, lda_error *err);
corpus *corpus_read_ldac(const char *path, const char *vocab_path, lda_error *err);

#endif
