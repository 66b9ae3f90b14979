/* settings.c — the table of a run's recorded settings and what is driven from it; see
 * settings.h. */
#include "model/settings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "corpus/stopwords.h"
#include "util/config_file.h"

#define AT(field) offsetof(lda_settings, field)
#define NO_LIMIT 0.0, 0.0, 0, 0

/* Integer bounds travel as doubles: every bound below is exact in a double (UINT64_MAX is
 * not, hence the seed's special case in parse_integer). */
const lda_setting lda_settings_table[] = {
    {"topics", "topics", LDA_SET_U32, AT(params.num_topics), 0, 1, 1u << 20, 0, 0, NULL, NULL},
    {"alpha", "alpha", LDA_SET_DOUBLE, AT(params.alpha), 0, 0, INFINITY, 1, 0, NULL, NULL},
    {"beta", "beta", LDA_SET_DOUBLE, AT(params.beta), 0, 0, INFINITY, 1, 0, NULL, NULL},
    {"seed", "seed", LDA_SET_U64, AT(params.seed), 0, NO_LIMIT, NULL, NULL},
    {"model", "model", LDA_SET_MODEL, 0, 0, NO_LIMIT, lda_model_choices, NULL},
    {"update", "update", LDA_SET_CHOICE, AT(params.update), 0, NO_LIMIT, lda_update_choices, NULL},
    {"precision", "precision", LDA_SET_CHOICE, AT(params.precision), 0, NO_LIMIT, lda_precision_choices, NULL},
    {"sampler", "sampler", LDA_SET_CHOICE, AT(params.sampler), 1, NO_LIMIT, lda_sampler_choices, NULL},
    /* An output: the φ a run writes from its state (a resumed run may give another). */
    {"phi_estimate", "phi-estimate", LDA_SET_CHOICE, AT(params.phi_estimate), 1, NO_LIMIT, lda_phi_estimate_choices,
     NULL},
    {"phi_passes", "phi-passes", LDA_SET_U32, AT(params.phi_passes), 1, 0, 1000000, 0, 0, NULL, NULL},
    {"refresh", "refresh", LDA_SET_U32, AT(params.refresh), 0, 1, 256, 0, 0, NULL, NULL},
    {"piece_length", "piece-length", LDA_SET_U32_AUTO, AT(params.piece_length), 0, 0, UINT32_MAX - 1, 0, 0, NULL, NULL},
    {"start_topics", "start-topics", LDA_SET_U32_AUTO, AT(params.start_topics), 0, 0, 1u << 20, 0, 0, NULL, NULL},
    /* Read at a run's start only: a resumed run may give another. */
    {"sample_start", "sample-start", LDA_SET_U32_AUTO, AT(params.sample_start), 1, 0, 1000000, 0, 0, NULL, NULL},
    {"cvb_start", "cvb-start", LDA_SET_U32_AUTO, AT(params.cvb_start), 1, 0, 1000000, 0, 0, NULL, NULL},
    {"optimize_interval", "optimize-interval", LDA_SET_U32, AT(params.optimize_interval), 0, 0, 1000000, 0, 0, NULL,
     NULL},
    {"optimize_mode", "optimize-mode", LDA_SET_CHOICE, AT(params.optimize_mode), 0, NO_LIMIT,
     lda_optimize_mode_choices, NULL},
    {"optimize_burn_in", "optimize-burn-in", LDA_SET_U32, AT(params.optimize_burn_in), 0, 0, 100000000, 0, 0, NULL,
     NULL},
    {"corpus_format", "format", LDA_SET_FORMAT, AT(corpus.format), 0, NO_LIMIT, corpus_format_choices, NULL},
    {"vocab_file", "vocab", LDA_SET_PATH, AT(corpus.vocab_path), 1, NO_LIMIT, NULL, "derived from the corpus name"},
    {"stopwords", "stopwords", LDA_SET_STOPWORDS, AT(corpus.stopwords_path), 0, NO_LIMIT, NULL, "the built-in list"},
    {"extra_stopwords", "extra-stopwords", LDA_SET_STOPWORDS, AT(corpus.extra_stopwords_path), 0, NO_LIMIT, NULL,
     "none"},
    {"token_pattern", "token-pattern", LDA_SET_TEXT, AT(corpus.token_pattern), 0, NO_LIMIT, NULL,
     "the built-in tokenizer"},
    {"pretokenized", "pretokenized", LDA_SET_FLAG, AT(corpus.pretokenized), 0, NO_LIMIT, NULL, NULL},
    {"lowercase", "lowercase", LDA_SET_FLAG, AT(corpus.lowercase), 0, NO_LIMIT, NULL, NULL},
    {"min_word_length", "min-word-length", LDA_SET_INT, AT(corpus.min_word_len), 0, 1, 1000, 0, 0, NULL, NULL},
    {"min_df", "min-df", LDA_SET_SIZE, AT(corpus.min_df), 0, 1, 1e15, 0, 0, NULL, NULL},
    {"max_df", "max-df", LDA_SET_DOUBLE, AT(corpus.max_df), 0, 0, 1, 1, 0, NULL, NULL},
    {"max_vocab", "max-vocab", LDA_SET_SIZE, AT(corpus.max_vocab), 0, 0, UINT32_MAX, 0, 0, NULL, NULL},
    /* Whether a corpus that does not look like text is read anyway: not what it makes of the text. */
    {"force_text", "force-text", LDA_SET_FLAG, AT(corpus.force_text), 1, NO_LIMIT, NULL, NULL},
    {"holdout", "holdout", LDA_SET_DOUBLE, AT(holdout), 0, 0, 1, 0, 1, NULL, NULL},
    {"holdout_iterations", "holdout-iterations", LDA_SET_U32, AT(holdout_iterations), 0, 1, 1000000, 0, 0, NULL,
     NULL},
    /* An output, not part of the state: --resume -n 0 --doc-topics FORM rewrites θ in another form. */
    {"doc_topics", "doc-topics", LDA_SET_DOC_TOPICS, AT(doc_topics), 1, NO_LIMIT, NULL, NULL},
    {NULL, NULL, 0, 0, 0, NO_LIMIT, NULL, NULL},
};

void lda_settings_default(lda_settings *s)
{
    memset(s, 0, sizeof *s);
    lda_params_default(&s->params);
    corpus_options_default(&s->corpus);
    s->holdout = 0.0;
    s->holdout_iterations = 20;
    s->doc_topics = lda_doc_topics_default();
}

const lda_setting *lda_setting_by_key(const char *key)
{
    for (const lda_setting *row = lda_settings_table; row->key; row++)
        if (strcmp(row->key, key) == 0)
            return row;
    return NULL;
}

const lda_setting *lda_setting_by_option(const char *option)
{
    for (const lda_setting *row = lda_settings_table; row->key; row++)
        if (strcmp(row->option, option) == 0)
            return row;
    return NULL;
}

/* The rows whose value is a string (const char *, owned by a model). */
static int is_string(const lda_setting *row)
{
    return row->type == LDA_SET_PATH || row->type == LDA_SET_STOPWORDS || row->type == LDA_SET_TEXT;
}

static void *field(const lda_setting *row, lda_settings *s)
{
    return (char *)s + row->offset;
}

static const void *cfield(const lda_setting *row, const lda_settings *s)
{
    return (const char *)s + row->offset;
}

static int parse_integer(const lda_setting *row, const char *where, const char *text, void *out, lda_error *err)
{
    const int unbounded = row->min == 0 && row->max == 0;
    const uint64_t lo = (uint64_t)row->min, hi = unbounded ? UINT64_MAX : (uint64_t)row->max;
    uint64_t v;
    if (lda_parse_u64(where, text, lo, hi, &v, err))
        return -1;
    switch (row->type) {
    case LDA_SET_U32:
    case LDA_SET_U32_AUTO:
        *(uint32_t *)out = (uint32_t)v;
        break;
    case LDA_SET_U64:
        *(uint64_t *)out = v;
        break;
    case LDA_SET_SIZE:
        *(size_t *)out = (size_t)v;
        break;
    default:
        *(int *)out = (int)v;
        break;
    }
    return 0;
}

int lda_setting_parse(const lda_setting *row, const char *where, const char *text, lda_settings *s, int own_strings,
                      lda_error *err)
{
    void *out = field(row, s);
    int choice;
    switch (row->type) {
    case LDA_SET_U32_AUTO:
        if (strcmp(text, "auto") == 0) {
            *(uint32_t *)out = UINT32_MAX;
            return 0;
        }
        /* fall through */
    case LDA_SET_U32:
    case LDA_SET_U64:
    case LDA_SET_SIZE:
    case LDA_SET_INT:
        return parse_integer(row, where, text, out, err);
    case LDA_SET_DOUBLE:
        if (!row->max_open)
            return lda_parse_double(where, text, row->min, row->min_open, row->max, (double *)out, err);
        if (lda_parse_double(where, text, row->min, row->min_open, row->max, (double *)out, err) ||
            *(double *)out >= row->max) {
            lda_error_input(err, "%s: expected a number in %c%g, %g), got '%s'", where, row->min_open ? '(' : '[',
                            row->min, row->max, text);
            return -1;
        }
        return 0;
    case LDA_SET_CHOICE:
    case LDA_SET_FORMAT:
        if (lda_parse_choice(where, text, row->choices, &choice, err))
            return -1;
        *(int *)out = choice;
        return 0;
    case LDA_SET_MODEL:
        if (lda_parse_choice(where, text, row->choices, &choice, err))
            return -1;
        lda_params_set_model(&s->params, (lda_model_kind)choice);
        return 0;
    case LDA_SET_DOC_TOPICS:
        return lda_doc_topics_parse(where, text, (lda_doc_topics *)out, err);
    case LDA_SET_FLAG:
        return lda_parse_flag_value(where, text, (int *)out, err);
    case LDA_SET_TEXT:
    case LDA_SET_STOPWORDS:
    case LDA_SET_PATH: {
        const char **path = out;
        if (own_strings) {
            char *copy = strdup(text);
            if (!copy) {
                lda_error_fail(err, "out of memory");
                return -1;
            }
            free((char *)*path);
            *path = copy;
        } else {
            *path = text;
        }
        return 0;
    }
    }
    lda_error_fail(err, "internal error: setting %s has no type", row->key);
    return -1;
}

static int same_path(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    if (strcmp(a, b) == 0)
        return 1;
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    int same = ra && rb && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

static int same_string(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether a and b read text with the same stop words: the same files, or files that make the
 * same list. A list that cannot be read is like no other. */
static int same_stopwords(const corpus_options *a, const corpus_options *b)
{
    if (same_string(a->stopwords_path, b->stopwords_path) &&
        same_string(a->extra_stopwords_path, b->extra_stopwords_path))
        return 1;
    lda_error ignored = {0};
    stopword_list x, y;
    if (stopword_list_load(&x, a, &ignored) < 0)
        return 0;
    int same = stopword_list_load(&y, b, &ignored) == 0 && stopword_list_equal(&x, &y);
    stopword_list_free(&y); /* empty after a failed load */
    stopword_list_free(&x);
    return same;
}

int lda_setting_same(const lda_setting *row, const lda_settings *a, const lda_settings *b)
{
    const void *x = cfield(row, a), *y = cfield(row, b);
    switch (row->type) {
    case LDA_SET_U32:
    case LDA_SET_U32_AUTO:
        return *(const uint32_t *)x == *(const uint32_t *)y;
    case LDA_SET_U64:
        return *(const uint64_t *)x == *(const uint64_t *)y;
    case LDA_SET_SIZE:
        return *(const size_t *)x == *(const size_t *)y;
    case LDA_SET_INT:
    case LDA_SET_CHOICE:
    case LDA_SET_FLAG:
        return *(const int *)x == *(const int *)y;
    case LDA_SET_DOUBLE:
        return *(const double *)x == *(const double *)y;
    case LDA_SET_TEXT:
        return same_string(*(const char *const *)x, *(const char *const *)y);
    case LDA_SET_STOPWORDS:
        return same_stopwords(&a->corpus, &b->corpus);
    case LDA_SET_FORMAT: /* "auto" agrees with the format that was detected */
        return *(const int *)x == CORPUS_FORMAT_AUTO || *(const int *)x == *(const int *)y;
    case LDA_SET_MODEL:
        return lda_params_model(&a->params) == lda_params_model(&b->params);
    case LDA_SET_PATH:
        return same_path(*(const char *const *)x, *(const char *const *)y);
    case LDA_SET_DOC_TOPICS:
        return lda_doc_topics_same((const lda_doc_topics *)x, (const lda_doc_topics *)y);
    }
    return 0;
}

/* The shortest %g form that reads back as the same double ("0.1", not "0.10000000000000001"). */
static void shortest(double v, char *buf, size_t size)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

const char *lda_setting_format(const lda_setting *row, const lda_settings *s, char *buf, size_t size)
{
    const void *x = cfield(row, s);
    switch (row->type) {
    case LDA_SET_U32:
        snprintf(buf, size, "%u", *(const uint32_t *)x);
        break;
    case LDA_SET_U32_AUTO:
        if (*(const uint32_t *)x == UINT32_MAX)
            snprintf(buf, size, "auto");
        else
            snprintf(buf, size, "%u", *(const uint32_t *)x);
        break;
    case LDA_SET_U64:
        snprintf(buf, size, "%llu", (unsigned long long)*(const uint64_t *)x);
        break;
    case LDA_SET_SIZE:
        snprintf(buf, size, "%zu", *(const size_t *)x);
        break;
    case LDA_SET_INT:
        snprintf(buf, size, "%d", *(const int *)x);
        break;
    case LDA_SET_DOUBLE:
        shortest(*(const double *)x, buf, size);
        break;
    case LDA_SET_CHOICE:
    case LDA_SET_FORMAT:
        snprintf(buf, size, "%s", lda_choice_name(row->choices, *(const int *)x));
        break;
    case LDA_SET_MODEL:
        snprintf(buf, size, "%s", lda_choice_name(row->choices, (int)lda_params_model(&s->params)));
        break;
    case LDA_SET_PATH:
    case LDA_SET_STOPWORDS:
    case LDA_SET_TEXT:
        if (!*(const char *const *)x)
            return NULL;
        snprintf(buf, size, "%s", *(const char *const *)x);
        break;
    case LDA_SET_DOC_TOPICS:
        lda_doc_topics_format((const lda_doc_topics *)x, buf, size);
        break;
    case LDA_SET_FLAG:
        snprintf(buf, size, "%s", *(const int *)x ? "yes" : "no");
        break;
    }
    return buf;
}

void lda_setting_copy(const lda_setting *row, lda_settings *to, const lda_settings *from)
{
    static const size_t sizes[] = {
        [LDA_SET_U32] = sizeof(uint32_t), [LDA_SET_U32_AUTO] = sizeof(uint32_t), [LDA_SET_U64] = sizeof(uint64_t), [LDA_SET_SIZE] = sizeof(size_t),
        [LDA_SET_INT] = sizeof(int),      [LDA_SET_DOUBLE] = sizeof(double), [LDA_SET_CHOICE] = sizeof(int),
        [LDA_SET_FORMAT] = sizeof(int),   [LDA_SET_PATH] = sizeof(const char *),
        [LDA_SET_DOC_TOPICS] = sizeof(lda_doc_topics), [LDA_SET_STOPWORDS] = sizeof(const char *),
        [LDA_SET_TEXT] = sizeof(const char *), [LDA_SET_FLAG] = sizeof(int),
    };
    if (row->type == LDA_SET_MODEL) {
        to->params.theta_collapsed = from->params.theta_collapsed;
        to->params.update = from->params.update;
        to->params.phi_mean = from->params.phi_mean;
        return;
    }
    memcpy(field(row, to), cfield(row, from), sizes[row->type]);
}

void lda_settings_write(FILE *f, const lda_settings *s)
{
    char buf[4096];
    for (const lda_setting *row = lda_settings_table; row->key; row++) {
        const char *value = lda_setting_format(row, s, buf, sizeof buf);
        if (value)
            lda_config_write(f, row->key, value);
    }
}

void lda_settings_free_strings(lda_settings *s)
{
    for (const lda_setting *row = lda_settings_table; row->key; row++)
        if (is_string(row)) {
            const char **path = field(row, s);
            free((char *)*path);
            *path = NULL;
        }
}

int lda_settings_own_strings(lda_settings *s, lda_error *err)
{
    int failed = 0;
    for (const lda_setting *row = lda_settings_table; row->key; row++)
        if (is_string(row)) {
            const char **slot = field(row, s), *borrowed = *slot;
            *slot = NULL;
            if (!failed && borrowed && !(*slot = strdup(borrowed))) {
                lda_error_fail(err, "out of memory");
                failed = 1;
            }
        }
    return failed ? -1 : 0;
}
