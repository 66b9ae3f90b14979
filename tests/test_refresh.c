/* test_refresh.c — --refresh R: an iteration's z drawn in R parts, φ brought up to date
 * after each (params.h). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "backend/layout.h"
#include "helpers.h"

static lda_backend *cpu_backend(const lda_layout *L, lda_model_kind model, uint32_t refresh)
{
    lda_error err = {0};
    lda_params p;
    lda_params_default(&p);
    lda_params_set_model(&p, model);
    p.num_topics = 10;
    p.device = LDA_DEVICE_CPU;
    p.threads = 2;
    p.refresh = refresh;
    lda_backend *b = lda_backend_create(L, &p, &err);
    cr_assert(b, "%s", err.msg);
    cr_assert_eq(b->ops->start(b, NULL, 0, &err), 0, "%s", err.msg);
    return b;
}

/* With two parts the first part draws from the same θ and φ as one whole iteration, so its
 * tokens get the same topics; the second part sees φ updated by the first part's draws,
 * so some of its tokens do not. Per model: φ drawn and φ from the counts. */
static void parts_see_earlier_parts(lda_model_kind model)
{
    corpus *c = test_planted_corpus(5, 12, 640, 20, 60, 3, NULL);
    lda_error err = {0};
    lda_layout *L = lda_layout_build(c, 0, &err);
    cr_assert(L, "%s", err.msg);
    cr_assert_geq(L->num_warps, 4);
    lda_backend *whole = cpu_backend(L, model, 1), *halves = cpu_backend(L, model, 2);
    uint32_t *z[2] = {malloc(L->num_positions * 4), malloc(L->num_positions * 4)};
    for (int i = 0; i < 2; i++) {
        lda_backend *b = i ? halves : whole;
        cr_assert_eq(b->ops->iterate(b, 1, NULL, &err), 0, "%s", err.msg);
        cr_assert_eq(b->ops->fetch(b, NULL, NULL, z[i], &err), 0, "%s", err.msg);
    }
    size_t differ[2] = {0, 0}, tokens[2] = {0, 0};
    for (size_t s = 0; s < L->num_slots; s++)
        for (uint32_t i = 0; i < L->slot_len[s]; i++) {
            size_t pos = lda_layout_pos(L, s, i), part = (s / LDA_WARP) % 2;
            tokens[part]++;
            differ[part] += z[0][pos] != z[1][pos];
        }
    cr_assert_eq(differ[0], 0, "%zu of %zu first-part tokens differ", differ[0], tokens[0]);
    cr_assert_gt(differ[1], tokens[1] / 100, "only %zu of %zu second-part tokens saw the update", differ[1],
                 tokens[1]);
    free(z[0]);
    free(z[1]);
    lda_backend_destroy(whole);
    lda_backend_destroy(halves);
    lda_layout_free(L);
    corpus_free(c);
}

Test(refresh, parts_see_earlier_parts_uncollapsed) { parts_see_earlier_parts(LDA_MODEL_UNCOLLAPSED); }
Test(refresh, parts_see_earlier_parts_collapsed) { parts_see_earlier_parts(LDA_MODEL_COLLAPSED); }
