/* test_settings.c — the table of recorded settings (model/settings.h): every row round-trips
 * through model.conf, every row's option is train's, and --resume refuses a different value
 * of every setting the model fixes while taking the changeable ones. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/settings.h"
#include "util/config_file.h"

/* A value of every setting unlike the defaults (paths point at files that exist). */
static void unusual_settings(lda_settings *s)
{
    lda_settings_default(s);
    s->params.num_topics = 77;
    s->params.alpha = 0.3;
    s->params.beta = 0.07;
    s->params.seed = 18446744073709551615ull;
    lda_params_set_model(&s->params, LDA_MODEL_COLLAPSED);
    s->params.precision = LDA_PRECISION_DOUBLE;
    s->params.sampler = LDA_SAMPLER_NAIVE;
    s->params.refresh = 5;
    s->params.phi_estimate = LDA_PHI_ESTIMATE_EXPECTED;
    s->params.phi_passes = 7;
    s->params.piece_length = 100;
    s->params.start_topics = 3;
    s->params.sample_start = 6;
    s->params.cvb_start = 4; /* beside sample_start only in a written file: a run refuses both */
    s->params.optimize_interval = 7;
    s->params.optimize_burn_in = 13;
    s->params.optimize_mode = LDA_OPTIMIZE_EVERY;
    s->corpus.format = CORPUS_FORMAT_LDAC;
    s->corpus.vocab_path = "/etc/hostname";
    s->corpus.stopwords_path = "/etc/passwd";
    s->corpus.extra_stopwords_path = "/etc/hostname";
    s->corpus.token_pattern = "[\\p{L}\\p{N}_+-]+";
    s->corpus.pretokenized = 1;
    s->corpus.lowercase = 0;
    s->corpus.min_word_len = 4;
    s->corpus.min_df = 9;
    s->corpus.max_df = 0.25;
    s->corpus.max_vocab = 1234;
    s->corpus.force_text = 1;
    s->holdout = 0.125;
    s->holdout_iterations = 33;
    s->doc_topics = (lda_doc_topics){LDA_DOC_TOPICS_SPARSE, 0, 0.125};
}

typedef struct {
    lda_settings *s;
    int rows;
} read_back;

static int parse_row(void *vctx, const char *key, const char *value, const char *path, size_t line, lda_error *err)
{
    read_back *r = vctx;
    const lda_setting *row = lda_setting_by_key(key);
    cr_assert(row, "%s:%zu: model.conf key %s has no row", path, line, key);
    r->rows++;
    return lda_setting_parse(row, key, value, r->s, 1, err);
}

Test(settings, every_row_round_trips_through_model_conf)
{
    lda_settings a, b;
    unusual_settings(&a);
    lda_settings_default(&b);
    char *dir = test_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/model.conf", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    lda_settings_write(f, &a);
    fclose(f);
    read_back r = {&b, 0};
    lda_error err = {0};
    cr_assert_eq(lda_config_read(path, parse_row, &r, NULL, &err), 0, "%s", err.msg);
    const int rows = r.rows;
    test_rmdir(dir);
    free(dir);
    for (const lda_setting *row = lda_settings_table; row->key; row++) {
        cr_assert(lda_setting_same(row, &a, &b), "%s did not round-trip", row->key);
        lda_settings d;
        lda_settings_default(&d);
        if (row->type != LDA_SET_FORMAT) /* the option's auto agrees with every format */
            cr_assert(!lda_setting_same(row, &a, &d), "%s: the test's value is the default", row->key);
    }
    int table_rows = 0;
    for (const lda_setting *row = lda_settings_table; row->key; row++)
        table_rows++;
    cr_assert_eq(rows, table_rows, "every setting written (its paths set)");
    lda_settings_free_strings(&b);
}

Test(settings, every_row_is_a_train_option)
{
    char *out = NULL;
    cr_assert_eq(test_run_ldagpu("train --help", &out), 0);
    for (const lda_setting *row = lda_settings_table; row->key; row++) {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s ", row->option);
        cr_assert(strstr(out, flag), "train --help lacks %s", flag);
    }
    /* the resume line lists what may change: the unrecorded options and the changeable rows */
    const char *line = strstr(out, "With --resume only these may differ");
    cr_assert(line, "%s", out);
    cr_assert(strstr(line, "-n,") && strstr(line, "--sampler") && strstr(line, "--vocab"), "%s", line);
    cr_assert(!strstr(line, "--refresh") && !strstr(line, "--min-df"), "%s", line);
    free(out);
}

/* A different value for the option of `row` than the trained model's below. */
static const char *other_value(const lda_setting *row)
{
    static const struct {
        const char *key, *value;
    } values[] = {
        {"topics", "9"}, {"alpha", "0.7"}, {"beta", "0.02"}, {"seed", "5"}, {"model", "collapsed"},
        {"update", "mean"}, {"precision", "double"}, {"refresh", "2"}, {"piece_length", "64"}, {"start_topics", "4"},
        {"sample_start", "8"}, {"optimize_interval", "5"},
        {"optimize_mode", "every"}, {"optimize_burn_in", "20"}, {"corpus_format", "ldac"},
        {"stopwords", "none"}, {"extra_stopwords", "/etc/passwd"}, {"token_pattern", "\\w+"}, {"pretokenized", "yes"},
        {"lowercase", "no"}, {"min_word_length", "4"}, {"min_df", "3"}, {"max_df", "0.4"},
        {"max_vocab", "500"}, {"holdout", "0.2"}, {"holdout_iterations", "5"},
    };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        if (strcmp(values[i].key, row->key) == 0)
            return values[i].value;
    return NULL;
}

Test(settings, resume_refuses_every_fixed_setting_and_takes_the_changeable_ones, .timeout = 120)
{
    char *dir = test_tmpdir(), args[4096], *out = NULL;
    snprintf(args, sizeof args,
             "train '%s/data/wiki2k.txt.gz' -K 8 -n 2 -j 2 -q --device cpu --holdout 0.1 -o '%s/m'", test_root(), dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    for (const lda_setting *row = lda_settings_table; row->key; row++) {
        if (row->may_change)
            continue;
        const char *value = other_value(row);
        cr_assert(value, "no other value for %s: add it to the test", row->key);
        snprintf(args, sizeof args, "train --resume '%s/m' -n 1 --device cpu --%s='%s'", dir, row->option, value);
        char needle[128];
        snprintf(needle, sizeof needle, "--%s differs from the model's setting", row->option);
        test_expect_failure(args, 2, needle);
    }
    /* changeable: a sampler recorded as another (the CPU ignores it) is taken */
    snprintf(args, sizeof args, "train --resume '%s/m' -n 1 -j 2 -q --device cpu --sampler naive", dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "%s/m/model.conf", dir);
    char *conf = test_read_file(args);
    cr_assert(conf && strstr(conf, "sampler = naive\n") && strstr(conf, "iterations = 3\n"), "%s", conf);
    free(conf);
    test_rmdir(dir);
    free(dir);
}
