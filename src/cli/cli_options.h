/* cli_options.h — one table per command describing its options, from which come the
 * getopt_long tables, the --help text (with defaults), and the keys a --config file may
 * set. A config key is the long option name; command-line flags override config values. */
#ifndef LDA_CLI_OPTIONS_H
#define LDA_CLI_OPTIONS_H

#include <stdio.h>

#include "core/error.h"
#include "core/params.h"
#include "core/parse.h" /* lda_parse_flag_value: the values of a flag */
#include "util/config_file.h"

/* A flag (arg NULL) is on when given alone; --NAME=VALUE and a config file give it a value
 * (lda_parse_flag_value), and --no-NAME turns it off. */
typedef struct {
    const char *name;     /* long name, also the config key */
    int short_name;       /* 0 if none */
    const char *arg;      /* argument placeholder, NULL for a flag */
    const char *help;
    const char *default_text; /* shown as "(default: ...)"; NULL for none */
    const lda_choice *choices; /* a named choice: --help lists the table's names and help */
    const char *mallet;   /* Mallet's name for the same option, taken as another long name and
                             config key (NULL: none); --help lists them in one line */
} lda_option_spec;

/* Applies option `index` of the table with its argument (NULL for a flag given on the
 * command line without a value, "no" for --no-NAME; a config file's value otherwise). `where`
 * names the source for messages. */
typedef int (*lda_option_fn)(void *ctx, int index, const char *value, const char *where, lda_error *err);

typedef struct {
    const char *command;  /* "train" */
    const char *usage;    /* "train CORPUS [options]" */
    const char *summary;  /* one paragraph */
    const lda_option_spec *options; /* terminated by a NULL name */
    int config_index;     /* index of --config, or -1 */
    int help_index;       /* index of --help */
    void (*more_help)(FILE *out); /* printed after the options; NULL: nothing */
} lda_command_spec;

/* Parses argv (argv[0] is the command name): config file first (if the table has one),
 * then flags. The values of a config file are handed to fn as copies kept in *keep (the
 * caller frees them with lda_config_values_free once done with the options; NULL only for
 * a table without --config). Positional arguments are returned in order in positional[] (at most
 * max_positional; more is an error). *help_asked is set when --help was given (then
 * nothing else is checked). */
int lda_options_parse(const lda_command_spec *spec, int argc, char **argv, lda_option_fn fn, void *ctx,
                      lda_config_values *keep, const char **positional, int max_positional, int *num_positional, int *help_asked,
                      lda_error *err);

void lda_options_print_help(const lda_command_spec *spec, FILE *out);

#endif
