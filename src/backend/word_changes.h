/* word_changes.h — the GPU count update by word (zplan.h, counts_by_word): where φ's mean is
 * written an iteration, φ's V × K words are dead from the end of the draw to the mean's pass, so
 * the count update files each changed token's (old topic, new topic) there, in its word's room,
 * and a second kernel adds each word's changes up in shared memory and adds them to its row of
 * n[w,k] (cuda/word_changes.cu). Here: the rooms and the blocks' chunks, on the host, so that the
 * arithmetic is tested without a GPU.
 *
 * Word w's room is its tokens on the device, all of them changing at most; where the tokens are
 * more than the space (φ's V × K words), each word's room shrinks by the same share, and a change
 * past a full room goes to n[w,k] by atomics, as without the rooms. The counts are integers, so
 * n[w,k] is the same whatever the order of the changes: the same model byte for byte. */
#ifndef LDA_BACKEND_WORD_CHANGES_H
#define LDA_BACKEND_WORD_CHANGES_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Developers' and tests' switch: "off" (the atomics on n[w,k]), or "ROOM:CHUNK" (at most ROOM
 * changes a word, and CHUNK a block, so that small runs overflow rooms and split words). */
#define LDA_WORD_CHANGES_ENV "LDAGPU_WORD_CHANGES"
/* The changes one block adds up: a word with more is split over blocks (their sums reach the row
 * by atomics), so that one frequent word does not keep one block busy after the others end. */
#define LDA_WORD_CHANGES_CHUNK 65536u

typedef struct {
    int off;        /* the atomics on n[w,k] (the switch's "off") */
    uint32_t room;  /* at most this many changes a word (UINT32_MAX: as the tokens give) */
    uint32_t chunk; /* changes a block adds up */
} lda_word_changes_settings;

/* The switch's settings (defaults where it is unset); -1 with err (bad input) for a value that is
 * neither "off" nor two positive whole numbers "ROOM:CHUNK". */
int lda_word_changes_settings_get(lda_word_changes_settings *out, lda_error *err);

/* One block's changes: word `word`'s from its room's `first`-th, at most the chunk's number. */
typedef struct {
    uint32_t word, first;
} lda_word_chunk;

/* Each word's room from its tokens (V of them) in `space` words: offsets[w] .. offsets[w + 1]
 * (V + 1 offsets, offsets[V] <= space), each room min(tokens[w], room_most), every one scaled by
 * space / (all tokens) where the tokens are more; the chunks written to `chunks` when not NULL.
 * Returns the number of chunks (at most V + offsets[V] / chunk). space is below 2^32 (V × K is). */
size_t lda_word_changes_plan(const uint32_t *tokens, uint32_t V, uint64_t space, const lda_word_changes_settings *s,
                             uint32_t *offsets, lda_word_chunk *chunks);

/* The most chunks lda_word_changes_plan can give for V words in `space` (the device's memory plan). */
size_t lda_word_changes_most_chunks(uint32_t V, uint64_t space, uint32_t chunk);

#ifdef __cplusplus
}
#endif

#endif
