/* train_settings.c — see train_settings.h. */
#include "train/train_settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/stream_plan.h"
#include "cli/cli_parse.h"
#include "model/settings.h"
#include "util/ranks.h"

void lda_train_options_default(lda_train_options *o)
{
    memset(o, 0, sizeof *o);
    lda_settings_default(&o->settings);
    o->settings.params.sampler = LDA_SAMPLER_AUTO; /* the library's default is what older models ran */
    o->settings.params.phi_estimate = LDA_PHI_ESTIMATE_AUTO; /* ditto */
    o->top_words = 20;
}

/* The run's own settings, each parsed in one line. */
typedef int (*run_setting_fn)(lda_train_options *o, lda_train_given *g, const char *where, const char *v,
                              lda_error *err);

static int set_iterations(lda_train_options *o, lda_train_given *g, const char *where, const char *v, lda_error *err)
{
    (void)g;
    return lda_parse_u32(where, v, 0, 100000000, &o->settings.params.iterations, err);
}

static int set_device(lda_train_options *o, lda_train_given *g, const char *where, const char *v, lda_error *err)
{
    (void)g;
    return lda_parse_device(where, v, &o->settings.params.device, err);
}

static int set_split(lda_train_options *o, lda_train_given *g, const char *where, const char *v, lda_error *err)
{
    (void)g;
    return lda_parse_split(where, v, &o->settings.params.split, err);
}

static int set_gpus(lda_train_options *o, lda_train_given *g, const char *where, const char *v, lda_error *err)
{
    g->gpus_given = 1;
    return lda_parse_u32(where, v, 1, LDA_MAX_SHARDS, &o->settings.params.shards, err);
}

static int set_stream_tokens(lda_train_options *o, lda_train_given *g, const char *where, const char *v,
                             lda_error *err)
{
    (void)g;
    return lda_parse_choice(where, v, lda_stream_choices, &o->settings.params.stream_tokens, err);
}

static int set_threads(lda_train_options *o, lda_train_given *g, const char *where, const char *v, lda_error *err)
{
    (void)g;
    return lda_parse_threads(where, v, &o->settings.params.threads, err);
}

static int set_eval_every(lda_train_options *o, lda_train_given *g, const char *where, const char *v, lda_error *err)
{
    (void)g;
    return lda_parse_u32(where, v, 0, UINT32_MAX, &o->settings.params.eval_every, err);
}

static int set_top(lda_train_options *o, lda_train_given *g, const char *where, const char *v, lda_error *err)
{
    (void)g;
    return lda_parse_u32(where, v, 1, 100000, &o->top_words, err);
}

static const struct {
    const char *name;
    run_setting_fn set;
} run_settings[] = {
    {"iterations", set_iterations}, {"device", set_device},         {"split", set_split}, {"gpus", set_gpus},
    {"threads", set_threads},       {"eval-every", set_eval_every}, {"top", set_top},     {"stream-tokens", set_stream_tokens},
    {NULL, NULL},
};

const char *lda_train_run_setting_name(size_t i)
{
    return i < sizeof run_settings / sizeof run_settings[0] ? run_settings[i].name : NULL;
}

int lda_train_setting_set(lda_train_options *o, lda_train_given *g, const char *name, const char *value,
                          const char *where, lda_error *err)
{
    lda_params *p = &o->settings.params;
    const lda_setting *setting = lda_setting_by_option(name);
    if (setting) {
        if (lda_setting_parse(setting, where, value, &o->settings, 0, err))
            return -1;
        if (strcmp(name, "model") == 0) {
            g->model_given = 1;
            g->model = lda_params_model(p);
            snprintf(g->model_where, sizeof g->model_where, "%s", where);
        } else if (strcmp(name, "update") == 0) {
            g->update_given = 1;
            g->update = p->update;
            snprintf(g->update_where, sizeof g->update_where, "%s", where);
        }
        return 0;
    }
    for (size_t i = 0; run_settings[i].name; i++)
        if (strcmp(run_settings[i].name, name) == 0)
            return run_settings[i].set(o, g, where, value, err) ? -1 : 0;
    return 1;
}

/* A model is a pair (θ collapsed?, update rule: params.h), so --model names its update rule: an
 * --update that says otherwise is refused, rather than making a third model of the two by
 * whichever came last. */
static int check_model_update(lda_train_options *o, const lda_train_given *g, lda_error *err)
{
    if (!g->model_given || !g->update_given)
        return 0;
    lda_params implied;
    lda_params_default(&implied);
    lda_params_set_model(&implied, g->model);
    if (implied.update != g->update) {
        lda_error_input(err, "%s %s means --update %s; %s %s contradicts it (leave --update out: each model names "
                        "its update rule)", g->model_where, lda_choice_name(lda_model_choices, g->model),
                        lda_choice_name(lda_update_choices, implied.update), g->update_where,
                        lda_choice_name(lda_update_choices, g->update));
        return -1;
    }
    lda_params_set_model(&o->settings.params, g->model);
    return 0;
}

/* --gpus N runs on CUDA. Under mpirun each process is one shard (on its own GPU where there
 * are GPUs). LDAGPU_SHARDS=N (a test switch, not an option: DEVELOPERS.md) splits the run the
 * same way on whatever device it trains on, so that the CPU, where shards make nothing faster,
 * can prove that they change nothing. */
static int resolve_shards(lda_train_options *o, const lda_train_given *g, lda_error *err)
{
    lda_params *p = &o->settings.params;
    const char *env = getenv("LDAGPU_SHARDS");
    if (lda_ranks_size() > 1) {
        if (g->gpus_given || (env && *env)) {
            lda_error_input(err, "under mpirun each process trains one shard on a GPU of its own: leave out %s",
                            g->gpus_given ? "--gpus" : "LDAGPU_SHARDS");
            return -1;
        }
        p->shards = (uint32_t)lda_ranks_size();
        p->over_ranks = 1;
        return 0;
    }
    if (g->gpus_given) {
        if (p->device == LDA_DEVICE_CPU) {
            lda_error_input(err, "--gpus %u: not with --device cpu", p->shards);
            return -1;
        }
        p->device = LDA_DEVICE_CUDA;
        p->shard_devices = p->shards > 1;
        return p->shard_devices ? lda_backend_check_gpus(p->shards, err) : 0;
    }
    return env && *env ? lda_parse_u32("LDAGPU_SHARDS", env, 1, LDA_MAX_SHARDS, &p->shards, err) : 0;
}

/* LDAGPU_SHARD_SPLIT=memory (a test switch, not an option: DEVELOPERS.md) splits the shards by
 * memory where it would not bind (backend/shards.h), so that a run can prove the memory split
 * trains the same model; auto (or unset) leaves the choice to the split. */
static int resolve_shard_split(lda_params *p, lda_error *err)
{
    static const lda_choice splits[] = {
        {"auto", 0, "by tokens, by memory where it binds"},
        {"memory", 1, "by memory"},
        {NULL, 0, NULL},
    };
    const char *env = getenv("LDAGPU_SHARD_SPLIT");
    return env && *env ? lda_parse_choice("LDAGPU_SHARD_SPLIT", env, splits, &p->shards_by_memory, err) : 0;
}

/* --stream-tokens on asks for what only some runs can do: those that cannot are refused before
 * any input is read (the z plan's part of the rule waits for the backend: lda_stream_refusal). */
static int check_stream_tokens(const lda_train_options *o, lda_error *err)
{
    const lda_params *p = &o->settings.params;
    if (p->stream_tokens != LDA_STREAM_ON)
        return 0;
    const char *why = lda_stream_refusal_params(p);
    if (!why && o->settings.holdout > 0)
        why = "held-out scoring (--holdout) reads tokens kept on the GPU";
    if (why) {
        lda_error_input(err, "--stream-tokens on: %s", why);
        return -1;
    }
    return 0;
}

int lda_train_settings_finish(lda_train_options *o, const lda_train_given *g, lda_error *err)
{
    return check_model_update(o, g, err) || resolve_shards(o, g, err) ||
                   resolve_shard_split(&o->settings.params, err) || check_stream_tokens(o, err)
               ? -1
               : 0;
}
