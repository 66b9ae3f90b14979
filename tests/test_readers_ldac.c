/* test_readers_ldac.c — the LDA-C reader: results, vocabulary files, and malformed lines
 * reported with file and line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "corpus/corpus.h"
#include "readers_fixture.h"

TestSuite(ldac, .init = fixture_setup, .fini = fixture_teardown);

/* The same corpus as the UCI tests: document 2 is blank. */
static const char DOCS[] = "3 1:1 3:2 0:1\n\n2 0:1 2:3\n";
static const char VOCAB[] = "alpha\nbeta\ngamma\ndelta\n";

static void expect_small_corpus(const corpus *c)
{
    cr_assert_eq(c->format, CORPUS_FORMAT_LDAC);
    expect_vocab(c, "alpha beta gamma delta");
    cr_assert_eq(c->num_input_docs, 3);
    cr_assert_eq(c->num_docs, 2);
    cr_assert_eq(c->num_empty_docs, 1);
    cr_assert_eq(c->num_tokens, 8);
    expect_doc(c, 0, "beta delta delta alpha");
    expect_doc(c, 1, "alpha gamma gamma gamma");
    cr_assert_eq(c->input_index[1], 2);
}

static corpus_options ldac_options(void)
{
    corpus_options opt = fixture_text_options();
    opt.format = CORPUS_FORMAT_LDAC;
    return opt;
}

Test(ldac, plain_files_with_name_vocab)
{
    fixture_write("small.vocab", VOCAB, 0);
    corpus_options opt = ldac_options();
    corpus *c = read_ok(fixture_write("small.dat", DOCS, 0).s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(ldac, gzip_files_and_detection)
{
    fixture_write("small.vocab.gz", VOCAB, 1);
    corpus_options opt = fixture_text_options(); /* format auto */
    corpus *c = read_ok(fixture_write("small.ldac.gz", DOCS, 1).s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(ldac, vocab_txt_in_the_same_folder)
{
    fixture_write("vocab.txt", VOCAB, 0);
    corpus_options opt = ldac_options();
    corpus *c = read_ok(fixture_write("ap.dat", DOCS, 0).s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(ldac, explicit_vocabulary_and_zero_pair_lines)
{
    fixture_path vocab = fixture_write("words", VOCAB, 0);
    corpus_options opt = ldac_options();
    opt.vocab_path = vocab.s;
    corpus *c = read_ok(fixture_write("d.dat", "3 1:1 3:2 0:1\n0\n2 0:1 2:3", 0).s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(ldac, fixed_vocabulary_remaps_and_counts_unknown)
{
    char *fixed[] = {"delta", "gamma", "omega"};
    fixture_write("small.vocab", VOCAB, 0);
    corpus_options opt = ldac_options();
    opt.fixed_vocab = fixed;
    opt.fixed_vocab_size = 3;
    corpus *c = read_ok(fixture_write("small.dat", DOCS, 0).s, &opt);
    expect_vocab(c, "delta gamma omega");
    expect_doc(c, 0, "delta delta");
    expect_doc(c, 1, "gamma gamma gamma");
    cr_assert_eq(c->num_unknown_tokens, 3);
    corpus_free(c);
}

static const struct {
    const char *body;
    size_t line;
    const char *says;
} BAD_LINES[] = {
    {"1 0:1\n3 1:1 3:2\n", 2, "N = 3 but the line has 2 id:count pairs (expected N to be the number of pairs)"},
    {"1 0:1 2:2\n", 1, "N = 1 but the line has 2 id:count pairs"},
    {"1 0:1\n\n1 4:1\n", 3, "word id 4 is out of range (expected 0..3, "},
    {"1 1:0\n", 1, "count 0 is out of range (expected 1..4294967295)"},
    {"1 1-1\n", 1, "'1-1' is not an id:count pair (expected lines 'N id:count id:count ...')"},
    {"x 1:1\n", 1, "N 'x' is not a non-negative integer"},
    {"1 a:1\n", 1, "word id 'a' is not a non-negative integer"},
    {"1 1:\n", 1, "missing count"},
    {"1 :2\n", 1, "missing word id"},
    {"1 1:2:3\n", 1, "count '2:3' is not a non-negative integer"},
    {"1 -1:2\n", 1, "word id '-1' is not a non-negative integer"},
};

Test(ldac, malformed_lines_name_file_and_line)
{
    fixture_path vocab = fixture_write("v.txt", VOCAB, 0);
    corpus_options opt = ldac_options();
    opt.vocab_path = vocab.s;
    for (size_t i = 0; i < sizeof BAD_LINES / sizeof BAD_LINES[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.dat", i);
        fixture_path p = fixture_write(name, BAD_LINES[i].body, 0);
        expect_error_at(p.s, &opt, p.s, BAD_LINES[i].line, BAD_LINES[i].says);
    }
}

Test(ldac, out_of_range_id_names_the_vocabulary)
{
    fixture_path vocab = fixture_write("small.vocab", VOCAB, 0);
    corpus_options opt = ldac_options();
    fixture_path p = fixture_write("small.dat", "1 9:1\n", 0);
    char says[600];
    snprintf(says, sizeof says, "(expected 0..3, %s has 4 words)", vocab.s);
    expect_error_at(p.s, &opt, p.s, 1, says);
}

Test(ldac, missing_vocabulary_names_the_expected_path)
{
    fixture_path p = fixture_write("small.dat", DOCS, 0);
    fixture_path expected = fixture_name("small.vocab");
    corpus_options opt = ldac_options();
    expect_error_at(p.s, &opt, expected.s, 0, "No such file or directory (the vocabulary of");
}

Test(ldac, empty_vocabulary_file)
{
    fixture_path vocab = fixture_write("small.vocab", "\n\n", 0);
    corpus_options opt = ldac_options();
    expect_error_at(fixture_write("small.dat", DOCS, 0).s, &opt, vocab.s, 0,
                    "the vocabulary is empty");
}

Test(ldac, only_blank_lines_is_an_empty_corpus)
{
    fixture_write("small.vocab", VOCAB, 0);
    corpus_options opt = ldac_options();
    fixture_path p = fixture_write("small.dat", "\n0\n\n", 0);
    expect_error_at(p.s, &opt, p.s, 0, "the corpus is empty (3 documents, no tokens)");
}

Test(ldac, truncated_gzip)
{
    char body[64 * 1024];
    size_t len = 0;
    for (int i = 0; i < 2000; i++)
        len += (size_t)sprintf(body + len, "2 %d:%d %d:1\n", i % 4, i % 9 + 1, (i + 1) % 4);
    fixture_write("t.vocab", VOCAB, 0);
    fixture_path p = fixture_write("t.dat.gz", body, 1);
    fixture_truncate(p.s, fixture_size(p.s) / 2);
    size_t complete = fixture_complete_lines(p.s);
    cr_assert(complete > 0 && complete < 2000, "%zu complete lines", complete);
    corpus_options opt = ldac_options();
    expect_error_at(p.s, &opt, p.s, complete + 1, "truncated gzip data (unexpected end of file)");
}

Test(ldac, vocab_none_names_words_by_their_ids_up_to_the_largest)
{
    corpus_options opt = ldac_options();
    opt.vocab_path = "none";
    corpus *c = read_ok(fixture_write("small.dat", "3 1:1 5:2 0:1\n\n2 0:1 2:3\n", 0).s, &opt);
    expect_vocab(c, "0 1 2 3 4 5"); /* 3 and 4 unused: ids are kept as they are */
    expect_doc(c, 0, "1 5 5 0");
    expect_doc(c, 1, "0 2 2 2");
    corpus_free(c);
}
