/* fuzz_report.c — report and export building on a fuzzed model folder (model_folder.h): the
 * training corpus read again and checked against the model (lda_trained_documents), the
 * report's data and page, pyLDAvis and the count matrices, as `report` and `export` make them.
 * The corpus is read from the base models' own file, not model.conf's (fuzzed) path. */
#include "fuzz_input.h"
#include "model_folder.h"

#include <stdio.h>
#include <unistd.h>

#include "model/export.h"
#include "model/model.h"
#include "model/report.h"
#include "model/train_log.h"
#include "train/heldout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lda_model m;
    lda_error err = {0};
    const char *dir;
    if (!fuzz_model_read(data, size, &m, &dir))
        return 0;
    char csv[256], counts[256];
    snprintf(csv, sizeof csv, "%s/log.csv", dir);
    snprintf(counts, sizeof counts, "%s/counts", dir);
    lda_train_log log;
    lda_train_log_init(&log, NULL, 0, 0);
    if (access(csv, F_OK) == 0 && lda_train_log_read_csv(&log, csv, &err))
        fuzz_check_refusal(&err);
    int mismatch;
    corpus *docs = lda_trained_documents(&m, dir, fuzz_model_corpus(), &mismatch, &err);
    if (!docs)
        fuzz_check_refusal(&err);
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        __builtin_trap();
    lda_html_report r = {0};
    r.m = &m;
    r.log = &log;
    r.title = dir;
    r.top_words = 4;
    r.top_docs = 2;
    if (lda_report_gather(&r, docs, fuzz_model_corpus(), "no corpus", 1, &err) == 0) {
        if (lda_report_write_html(&r, null, &err))
            fuzz_check_refusal(&err);
        lda_report_free(&r);
    } else {
        fuzz_check_refusal(&err);
    }
    uint64_t empty_rows;
    if (docs && m.theta.form.form != LDA_DOC_TOPICS_NONE && lda_export_pyldavis(&m, docs, null, &empty_rows, &err))
        fuzz_check_refusal(&err);
    if (docs && lda_export_counts(&m, docs, counts, &err))
        fuzz_check_refusal(&err);
    fclose(null);
    corpus_free(docs);
    lda_train_log_free(&log);
    lda_model_free(&m);
    return 0;
}
