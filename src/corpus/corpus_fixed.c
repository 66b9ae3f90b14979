/* corpus_fixed.c — expressing a corpus in a model's fixed vocabulary (inference on new
 * documents), so word ids mean what they meant in training. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_internal.h"

strmap *fixed_vocab_map(const corpus_options *opt, lda_error *err)
{
    strmap *m = strmap_new(opt->fixed_vocab_size, err);
    if (!m)
        return NULL;
    for (uint32_t i = 0; i < opt->fixed_vocab_size; i++) {
        const char *w = opt->fixed_vocab[i];
        uint32_t id;
        if (strmap_intern(m, w, strlen(w), &id, err) < 0) {
            strmap_free(m);
            return NULL;
        }
        /* A repeated word would make its two ids indistinguishable. */
        if (id != i) {
            lda_error_input(err, "the fixed vocabulary has '%s' twice (words %u and %u)", w,
                            (unsigned)id, (unsigned)i);
            strmap_free(m);
            return NULL;
        }
    }
    return m;
}

int corpus_adopt_fixed_vocab(corpus *c, const corpus_options *opt, lda_error *err)
{
    char **vocab = copy_strings(opt->fixed_vocab, opt->fixed_vocab_size, err);
    if (!vocab)
        return -1;
    free_strings(c->vocab, c->vocab_size);
    c->vocab = vocab;
    c->vocab_size = opt->fixed_vocab_size;
    return 0;
}

int corpus_map_to_fixed_vocab(corpus *c, const corpus_options *opt, char note[CORPUS_NOTE_MAX],
                              lda_error *err)
{
    strmap *fixed = fixed_vocab_map(opt, err);
    if (!fixed)
        return -1;
    uint32_t *map = lda_malloc_array(c->vocab_size, sizeof *map, "a vocabulary map", err);
    if (!map) {
        strmap_free(fixed);
        return -1;
    }
    uint32_t unknown_words = 0;
    for (uint32_t w = 0; w < c->vocab_size; w++) {
        if (!strmap_find(fixed, c->vocab[w], strlen(c->vocab[w]), &map[w])) {
            map[w] = CORPUS_NO_WORD;
            unknown_words++;
        }
    }
    strmap_free(fixed);
    free(c->input_unknown);
    c->input_unknown = lda_calloc(c->num_input_docs, sizeof *c->input_unknown, "unknown-token counts", err);
    size_t unknown_tokens = c->input_unknown ? corpus_remap_words(c, map, c->input_unknown) : 0;
    free(map);
    if (!c->input_unknown)
        return -1;
    c->num_unknown_tokens += unknown_tokens;
    snprintf(note, CORPUS_NOTE_MAX, "%zu tokens dropped: %u of its %u words are not in the "
             "fixed vocabulary", unknown_tokens, (unsigned)unknown_words, (unsigned)c->vocab_size);
    return corpus_adopt_fixed_vocab(c, opt, err);
}
