/* fuzz_model.c — a model folder (model_folder.h: one file of a consistent model replaced by
 * the input) through the real readers: lda_model_read with θ and z, as every command reads a
 * model, and lda_resume_load, as --resume does. What they accept must hold what model_check.h
 * promises, and is then used as topics and export use it; a refusal is one line with a status. */
#include "fuzz_input.h"
#include "model_folder.h"

#include <math.h>
#include <stdio.h>

#include "model/checkpoint.h"
#include "model/export.h"
#include "model/model.h"
#include "model/model_check.h"

/* What model_check.h promises of a model it let through. */
static void check_model(const lda_model *m)
{
    const uint32_t K = m->num_topics, V = m->vocab_size;
    uint64_t tokens = 0;
    for (uint32_t k = 0; k < K; k++) {
        tokens += m->topic_tokens[k];
        double sum = 0.0;
        for (uint32_t w = 0; w < V; w++) {
            const float p = m->phi[(size_t)k * V + w];
            if (!(p >= 0.0f && p <= 1.0f))
                __builtin_trap();
            sum += p;
        }
        if (fabs(sum - 1.0) > LDA_MODEL_SUM_TOLERANCE)
            __builtin_trap();
    }
    if (tokens != m->num_tokens)
        __builtin_trap();
    for (uint64_t i = 0; m->z && i < m->num_tokens; i++)
        if (m->z[i] >= K)
            __builtin_trap();
    for (uint32_t k = 0; m->alpha_learned && k < K; k++)
        if (!(m->alpha_learned[k] > 0.0f))
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lda_model m;
    lda_error err = {0};
    const char *dir;
    if (fuzz_model_read(data, size, &m, &dir)) {
        check_model(&m);
        FILE *null = fopen("/dev/null", "w");
        if (!null)
            __builtin_trap();
        if (lda_model_print_topics(&m, null, 3, &err) || lda_export_topic_keys(&m, 3, null, &err))
            fuzz_check_refusal(&err);
        for (int sparse = 0; sparse < 2; sparse++)
            if (lda_export_doc_topics_check(&m, dir, sparse, 0.1, sparse ? 2 : 0, &err) == 0 &&
                lda_export_doc_topics(&m, sparse, 0.1, sparse ? 2 : 0, null, &err))
                fuzz_check_refusal(&err);
        fclose(null);
        lda_model_free(&m);
    }
    if (!dir)
        return 0;
    lda_resume_state st;
    err = (lda_error){0};
    if (lda_resume_load(dir, &st, &err) == 0) {
        for (uint64_t i = 0; i < st.m.num_tokens; i++)
            if (st.m.z[i] >= st.m.num_topics)
                __builtin_trap();
        for (uint32_t k = 0; st.m.alpha_learned && k < st.m.num_topics; k++)
            if (!(st.m.alpha_learned[k] > 0.0f))
                __builtin_trap();
        lda_resume_free(&st);
    } else {
        fuzz_check_refusal(&err);
    }
    return 0;
}
