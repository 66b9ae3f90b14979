/* parse.h — numbers and names from the command line or a config file, checked.
 *
 * Every number goes through strtoull/strtod with an end pointer and a range; never atoi.
 * On failure err holds "WHERE: expected ..., got 'TEXT'", WHERE being e.g. "-K/--topics"
 * or "configs/x.conf:3: topics". */
#ifndef LDA_PARSE_H
#define LDA_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/params.h"

int lda_parse_u64(const char *where, const char *text, uint64_t min, uint64_t max, uint64_t *out, lda_error *err);
int lda_parse_u32(const char *where, const char *text, uint32_t min, uint32_t max, uint32_t *out, lda_error *err);
/* A finite double in [min, max]; min_open excludes min itself. */
int lda_parse_double(const char *where, const char *text, double min, int min_open, double max, double *out,
                     lda_error *err);
/* A list of integers in [min, max]: "16,48,80" and/or ranges "4:1024:4" (start:end:step,
 * end included). *out is malloc'ed. */
int lda_parse_u32_list(const char *where, const char *text, uint32_t min, uint32_t max, uint32_t **out, size_t *count,
                       lda_error *err);
/* A comma-separated list of names from a choice table; *out is malloc'ed. */
int lda_parse_choice_list(const char *where, const char *text, const lda_choice *table, int **out, size_t *count,
                          lda_error *err);

/* A flag's value: true/yes/1/on or false/no/0/off, as a config file or --FLAG=VALUE gives it;
 * NULL (the flag given without a value) is true. */
int lda_parse_flag_value(const char *where, const char *value, int *out, lda_error *err);

/* A name from a choice table. */
int lda_parse_choice(const char *where, const char *text, const lda_choice *table, int *out, lda_error *err);

#endif
