/* model_run_options.c — see model_run_options.h. */
#include "cli/model_run_options.h"

#include "cli/cli_options.h"
#include "cli/cli_parse.h"

int lda_apply_model_run_option(lda_model_run_options *o, int offset, const char *value, const char *where,
                               lda_error *err)
{
    enum { LDA_MODEL_RUN_OPTION_IDS };
    switch (offset) {
    case OPT_DEVICE:
        return lda_parse_device(where, value, &o->device, err);
    case OPT_THREADS:
        return lda_parse_threads(where, value, &o->threads, err);
    case OPT_FORMAT:
        return lda_parse_corpus_format(where, value, &o->format, err);
    case OPT_VOCAB:
        o->vocab = value;
        return 0;
    case OPT_FORCE_TEXT:
        return lda_parse_flag_value(where, value, &o->force_text, err);
    default:
        lda_error_fail(err, "internal error: model-run option %d has no handler", offset);
        return -1;
    }
}
