/* readers_fixture.h — helpers for the reader tests: a fresh temporary folder per test,
 * fixture files written into it (plain or gzip), and assertions on corpora and errors. */
#ifndef LDA_READERS_FIXTURE_H
#define LDA_READERS_FIXTURE_H

#include <stddef.h>

#include "corpus/corpus_read.h"

typedef struct {
    char s[512];
} fixture_path;

/* Suite hooks: create and remove the temporary folder. */
void fixture_setup(void);
void fixture_teardown(void);

/* The path of NAME in the temporary folder (not created). */
fixture_path fixture_name(const char *name);
/* Writes CONTENT to NAME, gzip-compressed when gz; returns its path. */
fixture_path fixture_write(const char *name, const char *content, int gz);
/* Cuts the file to `keep` bytes. */
void fixture_truncate(const char *path, long keep);
long fixture_size(const char *path);
/* How many whole lines zlib itself still gets out of a (truncated) gzip file. */
size_t fixture_complete_lines(const char *path);

/* Options for tests: defaults, but nothing pruned and no stop words unless a test says so. */
corpus_options fixture_text_options(void);

/* Reads and asserts success and internal consistency. */
corpus *read_ok(const char *path, const corpus_options *opt);
/* Reads and asserts failure with status LDA_EXIT_BAD_INPUT, a one-line message, and every
 * NULL-terminated needle in it. */
void expect_error(const char *path, const corpus_options *opt, ...);
/* Like expect_error; the message must contain "FILE:LINE:" (line 0: "FILE: "). */
void expect_error_at(const char *path, const corpus_options *opt, const char *file, size_t line,
                     const char *needle);

/* Document d's words, space-separated, must be `expected`. */
void expect_doc(const corpus *c, size_t d, const char *expected);
/* The vocabulary, space-separated, in id order. */
void expect_vocab(const corpus *c, const char *expected);

#endif
