/* test_token_options.c — the reader options that steer the raw-text tokenizer, run through the
 * real binary (`ldagpu format`, whose binary corpus is then read back): --token-pattern (PCRE2,
 * and Mallet's name for it, --token-regex), --pretokenized, --extra-stopwords, --lowercase and
 * its negations; and that the built-in tokenizer stays the default. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_binary.h"
#include "helpers.h"
#include "readers_fixture.h"

TestSuite(token_options, .init = fixture_setup, .fini = fixture_teardown);

/* The line of the issue that asked for a tokenizer users can steer. */
static const char PHRASES[] = "new_york city_hall covid19 state-of-the-art C++ e-mail";

/* `ldagpu format` of `text` with nothing pruned and no stop words unless `options` say so;
 * document 0 of the result must be `expected` (words space-separated). */
static void expect_format(const char *text, const char *options, const char *expected)
{
    fixture_path src = fixture_write("in.txt", text, 0), bin = fixture_name("in.ldab");
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "format '%s' -o '%s' --min-df 1 --max-df 1 --min-word-length 1 --stopwords none %s",
             src.s, bin.s, options);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "ldagpu %s: %s", args, out);
    free(out);
    lda_error err = {0};
    corpus *c = corpus_binary_read(bin.s, &err);
    cr_assert_not_null(c, "%s", err.msg);
    expect_doc(c, 0, expected);
    corpus_free(c);
}

Test(token_options, the_builtin_tokenizer_is_still_the_default)
{
    expect_format(PHRASES, "", "new york city hall covid state of the art c e mail");
}

Test(token_options, a_token_pattern_keeps_phrases_symbols_and_hyphens)
{
    expect_format(PHRASES, "--token-pattern '[\\p{L}\\p{N}_+-]+'",
                  "new_york city_hall covid19 state-of-the-art c++ e-mail");
    /* Mallet's name for the same option */
    expect_format(PHRASES, "--token-regex '[\\p{L}\\p{N}_+-]+'",
                  "new_york city_hall covid19 state-of-the-art c++ e-mail");
}

Test(token_options, a_token_pattern_sees_the_whole_line)
{
    /* The pattern runs on the line, not on pieces of it: a lookbehind sees what precedes a
     * match, \b the word boundaries of Unicode letters (UCP), and a capture group changes
     * nothing: the whole match is the word. */
    expect_format("#tag one #two", "--token-pattern '(?<=#)\\w+'", "tag two");
    expect_format("ÉTÉ été x", "--token-pattern '\\b\\w{2,}\\b'", "été été");
    expect_format("ab-cd", "--token-pattern '(a)b'", "ab");
}

Test(token_options, min_word_length_counts_the_characters_of_a_match)
{
    expect_format("C++ ab été x", "--token-pattern '\\S+' --min-word-length 3", "c++ été");
}

Test(token_options, a_pattern_never_matches_invalid_utf8)
{
    /* As in the built-in tokenizer, bytes that start no valid UTF-8 sequence separate words. */
    expect_format("caf\xc3 bar\xff" "baz caf\xc3\xa9", "--token-pattern '\\S+'", "caf bar baz café");
}

Test(token_options, a_pattern_that_can_match_the_empty_string_does_not_loop)
{
    /* Empty matches are skipped, so a* finds the runs of a; \b alone matches nothing else. */
    char *args = NULL, *out = NULL;
    fixture_path src = fixture_write("e.txt", "bbb aaa b a\n", 0), bin = fixture_name("e.ldab");
    cr_assert(asprintf(&args, "format '%s' -o '%s' --min-df 1 --max-df 1 --min-word-length 1 --stopwords none "
                              "--token-pattern 'a*'", src.s, bin.s) > 0);
    cr_assert_eq(test_run_ldagpu_within(args, 20, &out), 0, "%s", out);
    free(out);
    free(args);
    lda_error err = {0};
    corpus *c = corpus_binary_read(bin.s, &err);
    cr_assert_not_null(c, "%s", err.msg);
    expect_doc(c, 0, "aaa a");
    corpus_free(c);
    cr_assert(asprintf(&args, "format '%s' -o '%s' --min-df 1 --token-pattern '\\b'", src.s, bin.s) > 0);
    cr_assert_eq(test_run_ldagpu_within(args, 20, &out), 2, "%s", out);
    cr_assert(strstr(out, "the corpus is empty"), "%s", out);
    free(out);
    free(args);
}

Test(token_options, a_pattern_that_does_not_compile_is_a_usage_error)
{
    fixture_path src = fixture_write("u.txt", PHRASES, 0);
    char args[2048];
    snprintf(args, sizeof args, "format '%s' -o '%s' --token-pattern '[a-'", src.s, fixture_name("u.ldab").s);
    /* PCRE2's message and the offset where it stopped */
    test_expect_failure(args, 2, "token pattern '[a-': missing terminating ] for character class at offset 3");
    snprintf(args, sizeof args, "train '%s' -o '%s' --device cpu --token-regex 'a(b'", src.s, fixture_name("m").s);
    test_expect_failure(args, 2, "token pattern 'a(b': missing closing parenthesis at offset 3");
    snprintf(args, sizeof args, "format '%s' --token-pattern x --pretokenized", src.s);
    test_expect_failure(args, 2, "a token pattern and pretokenized input exclude each other");
}

Test(token_options, pretokenized_input_keeps_tokens_verbatim)
{
    /* Only whitespace separates (spaces, tabs, Unicode spaces such as U+3000): punctuation,
     * digits and symbols stay inside a token. */
    expect_format("new_york  C++\tstate-of-the-art don't U.S.A.\xe3\x80\x80" "x 3.14", "--pretokenized",
                  "new_york c++ state-of-the-art don't u.s.a. x 3.14");
    expect_format("new_york C++", "--pretokenized --no-lowercase", "new_york C++");
}

Test(token_options, lowercasing_is_an_option)
{
    expect_format("Die GRÖSSE der Straße", "--no-lowercase", "Die GRÖSSE der Straße");
    expect_format("Die GRÖSSE der Straße", "--lowercase=no", "Die GRÖSSE der Straße");
    expect_format("Die GRÖSSE der Straße", "--lowercase", "die grösse der straße");
    expect_format(PHRASES, "--token-pattern '[\\p{L}\\p{N}_+-]+' --no-lowercase",
                  "new_york city_hall covid19 state-of-the-art C++ e-mail");
    /* Greek keeps its capital sigma when not lowercased */
    expect_format("ΛΟΓΟΣ λογοσ", "--no-lowercase", "ΛΟΓΟΣ λογοσ");
    expect_format("ΛΟΓΟΣ", "--token-pattern '\\w+'", "λογος");
}

Test(token_options, stop_words_match_whatever_the_case)
{
    /* Without lowercasing, "The" is still the stop word "the"; a stop list's capitals and its
     * non-ASCII ones are lowercased as words are. */
    fixture_path stop = fixture_write("stop.txt", "ÜBER\nApple\nthe\n", 0);
    const char *text = "The apple APPLE über Über Tree";
    char options[1024];
    expect_format(text, "--no-lowercase", "The apple APPLE über Über Tree");
    snprintf(options, sizeof options, "--stopwords '%s' --no-lowercase", stop.s);
    expect_format(text, options, "Tree");
    snprintf(options, sizeof options, "--stopwords '%s'", stop.s);
    expect_format(text, options, "tree");
}

Test(token_options, extra_stopwords_are_added_to_the_list_in_use)
{
    fixture_path extra = fixture_write("extra.txt", "banana\n# a comment\nCherry\n", 0);
    fixture_path own = fixture_write("own.txt", "apple\n", 0);
    const char *text = "the apple banana cherry damson";
    char options[2048];
    /* the built-in list (expect_format's --stopwords none undone by the default's value) and the extra words */
    snprintf(options, sizeof options, "--stopwords '%s/data/stopwords.txt' --extra-stopwords '%s'", test_root(),
             extra.s);
    expect_format(text, options, "apple damson");
    /* a list of one's own and the extra words */
    snprintf(options, sizeof options, "--stopwords '%s' --extra-stopwords '%s'", own.s, extra.s);
    expect_format(text, options, "the damson");
    /* none and the extra words: only those */
    snprintf(options, sizeof options, "--stopwords none --extra-stopwords '%s'", extra.s);
    expect_format(text, options, "the apple damson");
    char args[2048];
    snprintf(args, sizeof args, "format '%s' --extra-stopwords '%s/missing.txt'", fixture_write("x.txt", text, 0).s,
             fixture_name("").s);
    test_expect_failure(args, 2, "missing.txt");
}

Test(token_options, a_nul_byte_is_never_inside_a_word)
{
    /* Vocabulary words are C strings: "a\0b" as one word would be "a" twice. A NUL separates
     * words whatever the tokenizer. */
    static const char text[] = "a\0b a C\0\0d\n";
    fixture_path src = fixture_name("nul.txt"), bin = fixture_name("nul.ldab");
    FILE *f = fopen(src.s, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    fclose(f);
    const char *options[] = {"--pretokenized", "--token-pattern '[^ ]+'"};
    for (int i = 0; i < 2; i++) {
        char args[2048], *out = NULL;
        snprintf(args, sizeof args, "format '%s' -o '%s' --min-df 1 --max-df 1 --min-word-length 1 --stopwords none %s",
                 src.s, bin.s, options[i]);
        cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
        free(out);
        lda_error err = {0};
        corpus *c = corpus_binary_read(bin.s, &err);
        cr_assert_not_null(c, "%s", err.msg);
        expect_doc(c, 0, "a b a c d");
        expect_vocab(c, "a b c d");
        corpus_free(c);
    }
}

Test(token_options, a_pattern_that_backtracks_without_bound_is_refused_at_its_line)
{
    /* PCRE2's match limit ends a match that would take ages; the message names the line. */
    fixture_path src = fixture_write("slow.txt", "fine words\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n", 0);
    char args[2048], needle[1024];
    snprintf(args, sizeof args, "format '%s' -o '%s' --min-df 1 --token-pattern '(a+)+$'", src.s,
             fixture_name("slow.ldab").s);
    snprintf(needle, sizeof needle, "%s:2: token pattern '(a+)+$': match limit exceeded", src.s);
    test_expect_failure(args, 2, needle);
}

Test(token_options, a_flag_takes_a_value_and_its_negation_none)
{
    fixture_path src = fixture_write("f.txt", PHRASES, 0);
    char args[2048];
    snprintf(args, sizeof args, "format '%s' -o '%s' --lowercase=maybe", src.s, fixture_name("f.ldab").s);
    test_expect_failure(args, 2, "--lowercase: expected true or false, got 'maybe'");
    snprintf(args, sizeof args, "format '%s' -o '%s' --no-lowercase=yes", src.s, fixture_name("f.ldab").s);
    test_expect_failure(args, 2, "option '--no-lowercase=yes' takes no value");
}
