/* test_readers.c — the raw-text reader and tokenizer, format detection, options, the
 * empty-corpus check, gzip handling through the readers, and the real wiki5k corpus.
 * UCI and LDA-C have their own files (test_readers_uci.c, test_readers_ldac.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpus/corpus.h"
#include "readers_fixture.h"

TestSuite(text, .init = fixture_setup, .fini = fixture_teardown);
TestSuite(detect, .init = fixture_setup, .fini = fixture_teardown);
TestSuite(corpus_errors, .init = fixture_setup, .fini = fixture_teardown);

static const char TWO_DOCS[] = "The cat sat.\nA dog, a CAT!\n";

static void expect_two_docs(const char *path)
{
    corpus_options opt = fixture_text_options();
    corpus *c = read_ok(path, &opt);
    cr_assert_eq(c->format, CORPUS_FORMAT_TEXT);
    cr_assert_eq(c->num_input_docs, 2);
    cr_assert_eq(c->num_docs, 2);
    cr_assert_eq(c->num_tokens, 5);
    expect_vocab(c, "cat dog sat the");
    expect_doc(c, 0, "the cat sat");
    expect_doc(c, 1, "dog cat");
    cr_assert_eq(c->input_index[1], 1);
    cr_assert_eq(c->num_unknown_tokens, 0);
    corpus_free(c);
}

Test(text, plain_file_gives_documents_in_order)
{
    expect_two_docs(fixture_write("docs.txt", TWO_DOCS, 0).s);
}

Test(text, gzip_file_gives_the_same)
{
    expect_two_docs(fixture_write("docs.txt.gz", TWO_DOCS, 1).s);
}

Test(text, crlf_and_missing_final_newline)
{
    expect_two_docs(fixture_write("docs.txt", "The cat sat.\r\nA dog, a CAT!", 0).s);
}

Test(text, non_letters_separate_words_utf8_letters_do_not)
{
    corpus_options opt = fixture_text_options();
    opt.min_word_len = 1;
    fixture_path p = fixture_write("t.txt", "don't stop-words x2y caf\xc3\xa9 na\xc3\xafve_ok\n", 0);
    corpus *c = read_ok(p.s, &opt);
    expect_doc(c, 0, "don t stop words x y caf\xc3\xa9 na\xc3\xafve ok");
    corpus_free(c);
}

Test(text, lowercases_every_letter)
{
    corpus_options opt = fixture_text_options();
    corpus *c = read_ok(fixture_write("t.txt", "HeLLo hello HELLO Zebra\n", 0).s, &opt);
    expect_vocab(c, "hello zebra");
    expect_doc(c, 0, "hello hello hello zebra");
    corpus_free(c);
}

Test(text, drops_words_shorter_than_min_word_len)
{
    corpus_options opt = fixture_text_options();
    opt.min_word_len = 4;
    corpus *c = read_ok(fixture_write("t.txt", "a an the cats horse\n", 0).s, &opt);
    expect_doc(c, 0, "cats horse");
    corpus_free(c);
}

Test(text, builtin_stop_words_by_default)
{
    corpus_options opt = fixture_text_options();
    opt.stopwords_path = NULL;
    corpus *c = read_ok(fixture_write("t.txt", "The quick brown fox jumps about the lazy dog\n", 0).s,
                        &opt);
    expect_doc(c, 0, "quick brown fox jumps lazy dog");
    corpus_free(c);
}

Test(text, stop_words_from_a_file)
{
    corpus_options opt = fixture_text_options();
    fixture_path stop = fixture_write("stop.txt", "# my list\nQuick fox  # trailing comment\n\n  lazy\n", 0);
    opt.stopwords_path = stop.s;
    corpus *c = read_ok(fixture_write("t.txt", "The quick brown fox jumps about the lazy dog\n", 0).s,
                        &opt);
    expect_doc(c, 0, "the brown jumps about the dog");
    corpus_free(c);
}

Test(text, stop_words_none_keeps_everything)
{
    corpus_options opt = fixture_text_options();
    opt.stopwords_path = "none";
    corpus *c = read_ok(fixture_write("t.txt", "the about dog\n", 0).s, &opt);
    expect_doc(c, 0, "the about dog");
    corpus_free(c);
}

Test(text, missing_stop_word_file_is_an_error)
{
    corpus_options opt = fixture_text_options();
    fixture_path stop = fixture_name("nostop.txt");
    opt.stopwords_path = stop.s;
    expect_error_at(fixture_write("t.txt", "dog\n", 0).s, &opt, stop.s, 0,
                    "No such file or directory");
}

Test(text, min_df_drops_rare_words)
{
    corpus_options opt = fixture_text_options();
    opt.min_df = 2;
    corpus *c = read_ok(fixture_write("t.txt", "apple banana\napple cherry cherry\napple banana\n", 0).s,
                        &opt);
    expect_vocab(c, "apple banana");
    expect_doc(c, 1, "apple");
    corpus_free(c);
}

Test(text, max_df_drops_words_in_too_many_documents)
{
    /* 4 documents, max_df 0.5: a word may be in at most 2. */
    corpus_options opt = fixture_text_options();
    opt.max_df = 0.5;
    corpus *c = read_ok(
        fixture_write("t.txt", "apple banana\napple cherry\napple banana\napple date\n", 0).s, &opt);
    expect_vocab(c, "banana cherry date");
    expect_doc(c, 0, "banana");
    expect_doc(c, 3, "date");
    corpus_free(c);
}

Test(text, max_df_counts_blank_lines_as_documents)
{
    /* 2 input documents with text plus 2 blank: "apple" is in 2 of 4, exactly max_df 0.5. */
    corpus_options opt = fixture_text_options();
    opt.max_df = 0.5;
    corpus *c = read_ok(fixture_write("t.txt", "apple\n\napple banana\n\n", 0).s, &opt);
    expect_vocab(c, "apple banana");
    cr_assert_eq(c->num_input_docs, 4);
    corpus_free(c);
}

Test(text, max_vocab_keeps_the_most_frequent_ties_alphabetical)
{
    corpus_options opt = fixture_text_options();
    opt.max_vocab = 3;
    corpus *c = read_ok(fixture_write("t.txt", "zzz zzz zzz ccc ccc\nbbb bbb yyy aaa\n", 0).s, &opt);
    /* zzz (3), then the tie at 2 between bbb and ccc is kept whole, then yyy/aaa (1) lose. */
    expect_vocab(c, "bbb ccc zzz");
    expect_doc(c, 0, "zzz zzz zzz ccc ccc");
    expect_doc(c, 1, "bbb bbb");
    corpus_free(c);

    opt.max_vocab = 2;
    c = read_ok(fixture_write("t2.txt", "zzz zzz zzz ccc ccc\nbbb bbb yyy aaa\n", 0).s, &opt);
    expect_vocab(c, "bbb zzz"); /* bbb beats ccc alphabetically */
    corpus_free(c);
}

Test(text, vocabulary_is_alphabetical_whatever_the_order)
{
    corpus_options opt = fixture_text_options();
    corpus *c = read_ok(fixture_write("t.txt", "pear fig\napple pear\n", 0).s, &opt);
    expect_vocab(c, "apple fig pear");
    cr_assert_eq(c->words[0], 2);
    cr_assert_eq(c->words[1], 1);
    corpus_free(c);
}

Test(text, empty_documents_are_skipped_and_counted)
{
    corpus_options opt = fixture_text_options();
    corpus *c = read_ok(fixture_write("t.txt", "alpha beta\n\n123 !! a\ngamma\n   \n", 0).s, &opt);
    cr_assert_eq(c->num_input_docs, 5);
    cr_assert_eq(c->num_docs, 2);
    cr_assert_eq(c->num_empty_docs, 3);
    cr_assert_eq(c->input_index[0], 0);
    cr_assert_eq(c->input_index[1], 3);
    expect_doc(c, 1, "gamma");
    corpus_free(c);
}

Test(text, documents_emptied_by_pruning_are_skipped_and_counted)
{
    corpus_options opt = fixture_text_options();
    opt.min_df = 2;
    corpus *c = read_ok(fixture_write("t.txt", "unique\nalpha beta\nsolo\nalpha beta\n", 0).s, &opt);
    cr_assert_eq(c->num_docs, 2);
    cr_assert_eq(c->num_empty_docs, 2);
    cr_assert_eq(c->input_index[0], 1);
    cr_assert_eq(c->input_index[1], 3);
    cr_assert_eq(c->num_tokens, 4);
    corpus_free(c);
}

Test(text, lines_longer_than_the_read_buffer)
{
    /* 120,000 words on one line (~600 KiB): the line spans several 256 KiB reads. */
    size_t words = 120000;
    char *text = malloc(words * 5 + 16);
    cr_assert_not_null(text);
    size_t len = 0;
    for (size_t i = 0; i < words; i++) {
        memcpy(text + len, i % 2 ? "pear " : "plum ", 5);
        len += 5;
    }
    memcpy(text + len, "\nfig\n", 6);
    for (int gz = 0; gz <= 1; gz++) {
        corpus_options opt = fixture_text_options();
        corpus *c = read_ok(fixture_write(gz ? "long.txt.gz" : "long.txt", text, gz).s, &opt);
        cr_assert_eq(c->num_docs, 2);
        cr_assert_eq(c->doc_offsets[1], words);
        expect_vocab(c, "fig pear plum");
        expect_doc(c, 1, "fig");
        corpus_free(c);
    }
    free(text);
}

Test(text, fixed_vocabulary_maps_words_and_counts_unknown)
{
    char *vocab[] = {"cat", "dog", "the"};
    corpus_options opt = fixture_text_options();
    opt.fixed_vocab = vocab;
    opt.fixed_vocab_size = 3;
    opt.min_df = 5;      /* pruning is ignored with a fixed vocabulary */
    opt.max_vocab = 1;
    corpus *c = read_ok(fixture_write("t.txt", "The cat sat on the mat\nzebra\nDOG dog\n", 0).s, &opt);
    expect_vocab(c, "cat dog the");
    cr_assert_eq(c->num_docs, 2);
    cr_assert_eq(c->num_empty_docs, 1);
    cr_assert_eq(c->input_index[1], 2);
    expect_doc(c, 0, "the cat the");
    expect_doc(c, 1, "dog dog");
    cr_assert_eq(c->num_unknown_tokens, 3); /* sat, mat, zebra; "on" is too short */
    corpus_free(c);
}

Test(text, fixed_vocabulary_words_win_over_stop_words)
{
    char *vocab[] = {"about", "dog"};
    corpus_options opt = fixture_text_options();
    opt.stopwords_path = NULL; /* built-in: has "about" and "the" */
    opt.fixed_vocab = vocab;
    opt.fixed_vocab_size = 2;
    corpus *c = read_ok(fixture_write("t.txt", "the dog about\n", 0).s, &opt);
    expect_doc(c, 0, "dog about");
    cr_assert_eq(c->num_unknown_tokens, 0); /* "the" is a stop word, not unknown */
    corpus_free(c);
}

Test(text, fixed_vocabulary_with_a_repeated_word_is_an_error)
{
    char *vocab[] = {"cat", "dog", "cat"};
    corpus_options opt = fixture_text_options();
    opt.fixed_vocab = vocab;
    opt.fixed_vocab_size = 3;
    expect_error(fixture_write("t.txt", "cat\n", 0).s, &opt, "'cat' twice", NULL);
}

Test(detect, each_format_is_recognised)
{
    corpus_options opt = fixture_text_options();
    fixture_write("vocab.a.txt", "alpha\nbeta\n", 0);
    fixture_write("a.vocab", "alpha\nbeta\n", 0);
    struct {
        const char *name, *content;
        corpus_format format;
    } cases[] = {
        {"docword.a.txt", "\n2\n2\n2\n1 1 1\n2 2 1\n", CORPUS_FORMAT_UCI},
        {"a.ldac", "\n2 0:1 1:2\n1 1:1\n", CORPUS_FORMAT_LDAC},
        {"plain.txt", "alpha beta\nbeta gamma\n", CORPUS_FORMAT_TEXT},
        {"year.txt", "1999\nalpha beta\n2000\n", CORPUS_FORMAT_TEXT},
        {"numbers.txt", "3 ducks 2:1\nalpha\n", CORPUS_FORMAT_TEXT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int gz = 0; gz <= 1; gz++) {
            char name[64];
            snprintf(name, sizeof name, "%s%s", cases[i].name, gz ? ".gz" : "");
            corpus *c = read_ok(fixture_write(name, cases[i].content, gz).s, &opt);
            cr_assert_eq(c->format, cases[i].format, "%s read as %s", name,
                         corpus_format_name(c->format));
            corpus_free(c);
        }
    }
}

Test(detect, format_names_round_trip)
{
    corpus_format f;
    for (corpus_format g = CORPUS_FORMAT_AUTO; g < CORPUS_FORMAT_COUNT; g++) {
        cr_assert_eq(corpus_format_parse(corpus_format_name(g), &f), 0);
        cr_assert_eq(f, g);
    }
    cr_assert_str_eq(corpus_format_name(CORPUS_FORMAT_UCI), "uci");
    cr_assert_eq(corpus_format_parse("csv", &f), -1);
}

Test(corpus_errors, defaults_are_documented_values)
{
    corpus_options opt;
    corpus_options_default(&opt);
    cr_assert_eq(opt.format, CORPUS_FORMAT_AUTO);
    cr_assert_null(opt.stopwords_path);
    cr_assert_eq(opt.min_word_len, 3);
    cr_assert_eq(opt.min_df, 2);
    cr_assert_float_eq(opt.max_df, 0.5, 1e-12);
    cr_assert_eq(opt.max_vocab, 0);
    cr_assert_null(opt.fixed_vocab);
}

Test(corpus_errors, bad_options_are_refused)
{
    fixture_path p = fixture_write("t.txt", "dog\n", 0);
    corpus_options opt = fixture_text_options();
    opt.min_word_len = 0;
    expect_error(p.s, &opt, "min_word_len", NULL);
    opt = fixture_text_options();
    opt.max_df = 1.5;
    expect_error(p.s, &opt, "max_df", NULL);
    opt = fixture_text_options();
    opt.min_df = 0;
    expect_error(p.s, &opt, "min_df", NULL);
}

Test(corpus_errors, missing_corpus_file)
{
    fixture_path p = fixture_name("nothing.txt");
    corpus_format formats[] = {CORPUS_FORMAT_AUTO, CORPUS_FORMAT_TEXT, CORPUS_FORMAT_UCI,
                               CORPUS_FORMAT_LDAC, CORPUS_FORMAT_BINARY};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        corpus_options opt = fixture_text_options();
        opt.format = formats[i];
        expect_error_at(p.s, &opt, p.s, 0, "No such file or directory");
    }
}

Test(corpus_errors, empty_file)
{
    corpus_options opt = fixture_text_options();
    fixture_path p = fixture_write("t.txt", "", 0);
    expect_error_at(p.s, &opt, p.s, 0, "the corpus is empty (no documents)");
}

Test(corpus_errors, corpus_with_no_tokens_says_where_they_went)
{
    corpus_options opt = fixture_text_options();
    opt.stopwords_path = NULL;
    fixture_path p = fixture_write("t.txt", "The and of\n\nit is 42\n", 0);
    expect_error(p.s, &opt, p.s, ": the corpus is empty (3 documents, no tokens; ",
                 "of 5 words read, 3 were shorter than 3 letters, 2 stop words", NULL);
}

Test(corpus_errors, corpus_emptied_by_pruning)
{
    corpus_options opt = fixture_text_options();
    opt.min_df = 2;
    fixture_path p = fixture_write("t.txt", "alpha\nbeta\n", 0);
    expect_error(p.s, &opt, "the corpus is empty (2 documents, no tokens",
                 "2 removed by min_df 2", NULL);
}

Test(corpus_errors, corpus_with_only_unknown_words)
{
    char *vocab[] = {"cat"};
    corpus_options opt = fixture_text_options();
    opt.fixed_vocab = vocab;
    opt.fixed_vocab_size = 1;
    fixture_path p = fixture_write("t.txt", "dog dog\n", 0);
    expect_error(p.s, &opt, "the corpus is empty (1 document, no tokens",
                 "2 not in the fixed vocabulary", NULL);
}

Test(corpus_errors, truncated_gzip_names_the_line)
{
    size_t lines = 3000;
    char *text = malloc(lines * 40);
    cr_assert_not_null(text);
    size_t len = 0;
    for (size_t i = 0; i < lines; i++)
        len += (size_t)sprintf(text + len, "document number %zu about %s\n", i,
                               i % 3 ? "cats" : "dogs and birds");
    fixture_path p = fixture_write("big.txt.gz", text, 1);
    free(text);
    fixture_truncate(p.s, fixture_size(p.s) / 2);
    size_t complete = fixture_complete_lines(p.s);
    cr_assert(complete > 10 && complete < lines, "%zu complete lines", complete);
    corpus_options opt = fixture_text_options();
    expect_error_at(p.s, &opt, p.s, complete + 1, "truncated gzip data (unexpected end of file)");
    opt.format = CORPUS_FORMAT_TEXT;
    expect_error_at(p.s, &opt, p.s, complete + 1, "truncated gzip data (unexpected end of file)");
}

Test(corpus_errors, gzip_cut_inside_its_trailer)
{
    fixture_path p = fixture_write("t.txt.gz", "alpha beta\ngamma\n", 1);
    fixture_truncate(p.s, fixture_size(p.s) - 4);
    corpus_options opt = fixture_text_options();
    expect_error_at(p.s, &opt, p.s, 3, "truncated gzip data");
}

/* The real corpus shipped for tests, when this machine has it. */
static const char WIKI5K[] = "/work/shared/corpora/wiki5k";

Test(text, wiki5k_raw_and_uci)
{
    char raw[256], docword[256];
    snprintf(raw, sizeof raw, "%s/wiki5k.txt.gz", WIKI5K);
    snprintf(docword, sizeof docword, "%s/docword.wiki5k.txt.gz", WIKI5K);
    if (access(raw, R_OK) != 0 || access(docword, R_OK) != 0)
        cr_skip_test("%s is not here", WIKI5K);

    corpus_options opt;
    corpus_options_default(&opt);
    corpus *c = read_ok(docword, &opt);
    cr_assert_eq(c->format, CORPUS_FORMAT_UCI);
    cr_assert_eq(c->num_docs, 5000);
    cr_assert_eq(c->vocab_size, 12599);
    cr_assert_eq(c->num_tokens, 312999);
    corpus_free(c);

    c = read_ok(raw, &opt);
    cr_assert_eq(c->format, CORPUS_FORMAT_TEXT);
    cr_assert_eq(c->num_input_docs, 5000);
    cr_assert_gt(c->num_tokens, 312999); /* min_df 2 here against the UCI form's 3 */
    for (uint32_t w = 1; w < c->vocab_size; w++)
        cr_assert_lt(strcmp(c->vocab[w - 1], c->vocab[w]), 0);
    corpus_free(c);
}
