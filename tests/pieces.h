/* pieces.h — documents cut into pieces (backend/layout.h), checked end to end on a backend;
 * shared by the CPU and GPU tests. */
#ifndef LDA_TEST_PIECES_H
#define LDA_TEST_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "core/params.h"

/* With θ given (uncollapsed, mean-for-mode) cutting documents changes nothing: after three
 * iterations z (corpus order) of a run on the uncut layout and of one with pieces of 37
 * tokens differ in at most `allowed` of the tokens, and every piece of a document has its θ
 * row. With allowed = 0 (the CPU reference) θ (per document), φ and the word counts must be
 * byte-identical too. On the GPU the butterfly search forms its midpoints as low + y or
 * high − y by the document's lane, so a draw within a few ulps of a boundary may go the
 * other way when a document changes lanes (a handful in 10^6; exactly equal on integer
 * weights: test_gpu.c). num_docs documents of 3 to 150 tokens. (With --refresh R > 1 the
 * parts are groups of the layout, so cutting changes which tokens share a part: another
 * scan order, not the same chain.) */
void pieces_change_nothing_with_theta_given(lda_device device, lda_model_kind model, size_t num_docs, uint32_t K,
                                            double allowed);

/* The counts a backend keeps up to date (incrementally, on the GPU) after several iterations
 * equal a recount of its own z, for any model: n[m,k] of each slot is the counts of its whole
 * document (the join of a recount: with pieces of piece_length tokens, 0 for none), n[w,k] and
 * n[k] too. 300 documents of 3 to 400 tokens. */
void counts_equal_a_recount(lda_device device, lda_model_kind model, uint32_t refresh, uint32_t piece_length);
/* The same with another z sampler than the butterfly. */
void counts_equal_a_recount_drawn_by(lda_device device, lda_model_kind model, lda_sampler sampler, uint32_t refresh,
                                     uint32_t piece_length);
/* The same at K topics. */
void counts_equal_a_recount_at(lda_device device, lda_model_kind model, lda_sampler sampler, uint32_t refresh,
                               uint32_t piece_length, uint32_t K);

#endif
