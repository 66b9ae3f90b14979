/* cli_options.c — see cli_options.h. */
#include "cli/cli_options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "util/config_file.h"

static int count_options(const lda_option_spec *o)
{
    int n = 0;
    while (o[n].name)
        n++;
    return n;
}

static int count_mallet_names(const lda_option_spec *o)
{
    int n = 0;
    for (; o->name; o++)
        n += o->mallet != NULL;
    return n;
}

typedef struct {
    const lda_command_spec *spec;
    lda_option_fn fn;
    void *ctx;
} config_ctx;

static int apply_config_key(void *vctx, const char *key, const char *value, const char *path, size_t line,
                            lda_error *err)
{
    config_ctx *c = vctx;
    char where[512];
    snprintf(where, sizeof where, "%s:%zu: %s", path, line, key);
    for (int i = 0; c->spec->options[i].name; i++) {
        const lda_option_spec *o = &c->spec->options[i];
        if (strcmp(o->name, key) != 0 && !(o->mallet && strcmp(o->mallet, key) == 0))
            continue;
        if (i == c->spec->config_index || i == c->spec->help_index)
            break;
        return c->fn(c->ctx, i, value, where, err);
    }
    lda_error_input(err, "%s:%zu: unknown setting '%s' (the settings are the long options of 'ldagpu %s --help')",
                    path, line, key, c->spec->command);
    return -1;
}

static void describe_option(const lda_option_spec *o, char *buf, size_t size)
{
    if (o->short_name)
        snprintf(buf, size, "-%c/--%s", o->short_name, o->name);
    else
        snprintf(buf, size, "--%s", o->name);
}

int lda_options_parse(const lda_command_spec *spec, int argc, char **argv, lda_option_fn fn, void *ctx,
                      lda_config_values *keep, const char **positional, int max_positional, int *num_positional, int *help_asked,
                      lda_error *err)
{
    /* getopt's table: the names (val 256 + i), then Mallet's names for them, then a flag's
     * --no-NAME (val 256 + n + i). A flag takes an optional value (--NAME=no). */
    const int n = count_options(spec->options), m = count_mallet_names(spec->options);
    struct option *longs = calloc(2 * (size_t)n + (size_t)m + 1, sizeof *longs);
    char *shorts = calloc((size_t)n * 2 + 3, 1);
    char **negations = calloc((size_t)n + 1, sizeof *negations);
    int rc = -1;
    *num_positional = 0;
    *help_asked = 0;
    if (!longs || !shorts || !negations) {
        lda_error_fail(err, "out of memory");
        goto out;
    }
    char *sp = shorts;
    *sp++ = ':'; /* report a missing argument as ':' */
    for (int i = 0, alias = n, negation = n + m; i < n; i++) {
        const lda_option_spec *o = &spec->options[i];
        const int flag = !o->arg && i != spec->help_index;
        longs[i].name = o->name;
        longs[i].has_arg = o->arg ? required_argument : flag ? optional_argument : no_argument;
        longs[i].val = 256 + i;
        if (o->mallet) { /* after the names, so that an abbreviation of a name still means it */
            longs[alias] = longs[i];
            longs[alias++].name = o->mallet;
        }
        if (flag) {
            if (asprintf(&negations[i], "no-%s", o->name) < 0) {
                negations[i] = NULL;
                lda_error_fail(err, "out of memory");
                goto out;
            }
            longs[negation++] = (struct option){negations[i], no_argument, NULL, 256 + n + i};
        }
        if (o->short_name) {
            *sp++ = (char)o->short_name;
            if (o->arg)
                *sp++ = ':';
        }
    }
    /* Pass 1: --help and --config only, so the config is applied before any flag. GNU
     * getopt permutes the array it scans, so pass 1 scans a copy and pass 2 sees argv as
     * the user wrote it. */
    char **scan = calloc((size_t)argc + 1, sizeof *scan);
    if (!scan) {
        lda_error_fail(err, "out of memory");
        goto out;
    }
    memcpy(scan, argv, (size_t)argc * sizeof *scan);
    opterr = 0;
    optind = 0;
    const char *config_path = NULL;
    for (int c; (c = getopt_long(argc, scan, shorts, longs, NULL)) != -1;) {
        int i = c >= 256 ? c - 256 : -1;
        for (int j = 0; i < 0 && j < n; j++)
            if (spec->options[j].short_name == c)
                i = j;
        if (i == spec->help_index) {
            *help_asked = 1;
            rc = 0;
            free(scan);
            goto out;
        }
        if (i >= 0 && i == spec->config_index)
            config_path = optarg;
    }
    free(scan);
    if (config_path) {
        config_ctx cc = {spec, fn, ctx};
        if (lda_config_read(config_path, apply_config_key, &cc, keep, err))
            goto out;
    }
    /* Pass 2: everything else, in order. */
    optind = 0;
    for (int c, which = -1; (c = getopt_long(argc, argv, shorts, longs, &which)) != -1; which = -1) {
        if (c == '?' || c == ':') {
            const char *arg = argv[optind - 1];
            if (c == '?' && optopt >= 256) /* a long option that takes no value, given one */
                lda_error_input(err, "option '%s' takes no value (see 'ldagpu %s --help')", arg, spec->command);
            else if (c == '?')
                lda_error_input(err, "unknown option '%s' (see 'ldagpu %s --help')",
                                optopt ? (char[]){'-', (char)optopt, 0} : arg, spec->command);
            else
                lda_error_input(err, "option '%s' needs a value (see 'ldagpu %s --help')", arg, spec->command);
            goto out;
        }
        int i = c >= 256 ? c - 256 : -1;
        const int negated = i >= n; /* --no-NAME */
        if (negated)
            i -= n;
        for (int j = 0; i < 0 && j < n; j++)
            if (spec->options[j].short_name == c)
                i = j;
        if (i == spec->config_index)
            continue;
        char where[128];
        if (which >= n) /* named by its Mallet name or as --no-NAME: messages say that name */
            snprintf(where, sizeof where, "--%s", longs[which].name);
        else
            describe_option(&spec->options[i], where, sizeof where);
        if (fn(ctx, i, negated ? "no" : optarg, where, err))
            goto out;
    }
    for (int i = optind; i < argc; i++) {
        if (*num_positional == max_positional) {
            lda_error_input(err, "unexpected argument '%s' (see 'ldagpu %s --help')", argv[i], spec->command);
            goto out;
        }
        positional[(*num_positional)++] = argv[i];
    }
    rc = 0;
out:
    for (int i = 0; negations && i < n; i++)
        free(negations[i]);
    free(negations);
    free(longs);
    free(shorts);
    return rc;
}

/* "Mallet's option names work too: --num-topics for --topics, ...", wrapped at 100 columns. */
static void print_mallet_names(const lda_option_spec *options, FILE *out)
{
    int column = 0;
    for (const lda_option_spec *o = options; o->name; o++) {
        if (!o->mallet)
            continue;
        char item[128];
        const int len = snprintf(item, sizeof item, "--%s for --%s", o->mallet, o->name);
        if (!column)
            column = fprintf(out, "\nMallet's option names work too:") - 1;
        else if (column + len + 2 > 100)
            column = fprintf(out, ",\n") - 2;
        else
            column += fprintf(out, ",");
        column += fprintf(out, "%s%s", column ? " " : "", item);
    }
    if (column)
        fputs(".\n", out);
}

void lda_options_print_help(const lda_command_spec *spec, FILE *out)
{
    fprintf(out, "usage: ldagpu %s\n\n%s\n\noptions:\n", spec->usage, spec->summary);
    for (const lda_option_spec *o = spec->options; o->name; o++) {
        char left[64];
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(out, "  %-32s %s", left, o->help);
        if (o->default_text)
            fprintf(out, " (default: %s)", o->default_text);
        fputc('\n', out);
        for (const lda_choice *c = o->choices; c && c->name; c++)
            fprintf(out, "  %-32s   %-16s %s\n", "", c->name, c->help);
    }
    print_mallet_names(spec->options, out);
    if (spec->more_help)
        spec->more_help(out);
}
