/* test_readers_uci.c — the UCI bag-of-words reader: results, vocabulary files, and every
 * malformed input reported with its file and line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "corpus/corpus.h"
#include "readers_fixture.h"

TestSuite(uci, .init = fixture_setup, .fini = fixture_teardown);

/* Three documents over four words; document 2 has no triples, and document 1's triples are
 * split around document 3's. */
static const char DOCWORD[] = "3\n4\n5\n1 2 1\n1 4 2\n3 1 1\n3 3 3\n1 1 1\n";
static const char VOCAB[] = "alpha\nbeta\ngamma\ndelta\n";

static void expect_small_corpus(const corpus *c)
{
    cr_assert_eq(c->format, CORPUS_FORMAT_UCI);
    expect_vocab(c, "alpha beta gamma delta");
    cr_assert_eq(c->num_input_docs, 3);
    cr_assert_eq(c->num_docs, 2);
    cr_assert_eq(c->num_empty_docs, 1);
    cr_assert_eq(c->num_tokens, 8);
    expect_doc(c, 0, "beta delta delta alpha");
    expect_doc(c, 1, "alpha gamma gamma gamma");
    cr_assert_eq(c->input_index[0], 0);
    cr_assert_eq(c->input_index[1], 2);
}

/* Writes docword.NAME.txt with `body` and a four-word vocab.NAME.txt; returns the docword. */
static fixture_path write_uci(const char *name, const char *body)
{
    char file[128];
    snprintf(file, sizeof file, "vocab.%s.txt", name);
    fixture_write(file, VOCAB, 0);
    snprintf(file, sizeof file, "docword.%s.txt", name);
    return fixture_write(file, body, 0);
}

static corpus_options uci_options(void)
{
    corpus_options opt = fixture_text_options();
    opt.format = CORPUS_FORMAT_UCI;
    return opt;
}

Test(uci, plain_files)
{
    corpus_options opt = uci_options();
    corpus *c = read_ok(write_uci("small", DOCWORD).s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(uci, gzip_files_and_detection)
{
    fixture_write("vocab.small.txt.gz", VOCAB, 1);
    fixture_path p = fixture_write("docword.small.txt.gz", DOCWORD, 1);
    corpus_options opt = fixture_text_options(); /* format auto */
    corpus *c = read_ok(p.s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(uci, gzip_docword_with_plain_vocab)
{
    fixture_write("vocab.small.txt", VOCAB, 0);
    corpus_options opt = uci_options();
    corpus *c = read_ok(fixture_write("docword.small.txt.gz", DOCWORD, 1).s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(uci, explicit_vocabulary_path)
{
    fixture_path vocab = fixture_write("words.list", VOCAB, 0);
    corpus_options opt = uci_options();
    opt.vocab_path = vocab.s;
    corpus *c = read_ok(fixture_write("bag.txt", DOCWORD, 0).s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(uci, zero_counts_are_accepted_and_add_nothing)
{
    corpus_options opt = uci_options();
    corpus *c = read_ok(write_uci("z", "2\n4\n3\n1 1 0\n2 2 2\n2 3 0\n").s, &opt);
    cr_assert_eq(c->num_docs, 1);
    cr_assert_eq(c->num_empty_docs, 1);
    cr_assert_eq(c->input_index[0], 1);
    expect_doc(c, 0, "beta beta");
    corpus_free(c);
}

Test(uci, crlf_lines_and_blank_lines)
{
    fixture_write("vocab.w.txt", "alpha\r\nbeta\r\ngamma\r\ndelta\r\n\r\n", 0);
    fixture_path p = fixture_write("docword.w.txt", "3\r\n4\r\n5\r\n1 2 1\r\n1 4 2\r\n\r\n3 1 1\r\n"
                                                    "3 3 3\r\n1 1 1\r\n\r\n", 0);
    corpus_options opt = uci_options();
    corpus *c = read_ok(p.s, &opt);
    expect_small_corpus(c);
    corpus_free(c);
}

Test(uci, fixed_vocabulary_remaps_and_counts_unknown)
{
    char *fixed[] = {"delta", "gamma", "omega"};
    corpus_options opt = uci_options();
    opt.fixed_vocab = fixed;
    opt.fixed_vocab_size = 3;
    corpus *c = read_ok(write_uci("f", DOCWORD).s, &opt);
    expect_vocab(c, "delta gamma omega");
    cr_assert_eq(c->num_unknown_tokens, 3); /* beta, alpha, alpha */
    cr_assert_eq(c->num_input_docs, 3);
    expect_doc(c, 0, "delta delta");
    expect_doc(c, 1, "gamma gamma gamma");
    cr_assert_eq(c->input_index[1], 2);
    corpus_free(c);
}

Test(uci, fixed_vocabulary_skips_documents_left_empty)
{
    char *fixed[] = {"gamma"};
    corpus_options opt = uci_options();
    opt.fixed_vocab = fixed;
    opt.fixed_vocab_size = 1;
    corpus *c = read_ok(write_uci("f", DOCWORD).s, &opt);
    cr_assert_eq(c->num_docs, 1);
    cr_assert_eq(c->num_empty_docs, 2);
    cr_assert_eq(c->input_index[0], 2);
    cr_assert_eq(c->num_unknown_tokens, 5);
    corpus_free(c);
}

/* Each malformed docword: the line the error must name and a piece of its message. */
static const struct {
    const char *body;
    size_t line;
    const char *says;
} BAD_DOCWORDS[] = {
    {"3\n4\n5\n1 2 1\n1 x 1\n", 5, "wordID 'x' is not a non-negative integer (expected lines 'docID wordID count')"},
    {"3\n4\n1\n-1 2 1\n", 4, "docID '-1' is not a non-negative integer"},
    {"3\n4\n1\n1 2 1.5\n", 4, "count '1.5' is not a non-negative integer"},
    {"3\n4\n1\n1 2\n", 4, "missing count (expected lines 'docID wordID count')"},
    {"3\n4\n1\n1 2 3 4\n", 4, "unexpected extra field '4'"},
    {"3\n4\n2\n1 1 1\n1 5 1\n", 5, "wordID 5 is out of range (expected 1..4, W in the header)"},
    {"3\n4\n1\n1 0 1\n", 4, "wordID 0 is out of range"},
    {"3\n4\n2\n1 1 1\n4 1 1\n", 5, "docID 4 is out of range (expected 1..3, D in the header)"},
    {"3\n4\n1\n0 1 1\n", 4, "docID 0 is out of range"},
    {"3\n4\n1\n1 1 99999999999999999999999\n", 4, "count 99999999999999999999999 is out of range"},
    {"3\n4\n1\n1 1 4294967296\n", 4, "count 4294967296 is out of range (expected 0..4294967295)"},
    {"3\n4\n2\n1 1 1\n1 2 1\n1 3 1\n", 6, "more triples than the header says (expected NNZ = 2, from line 3)"},
    {"3\n4\n5\n1 1 1\n2 2 2\n", 5, "the file ends after 2 triples (expected NNZ = 5, from line 3)"},
    {"3\nfour\n5\n", 2, "W 'four' is not a non-negative integer (expected a header of three lines D, W, NNZ)"},
    {"3 4 5\n1 1 1\n", 1, "unexpected extra field '4'"},
    {"3\n4\n", 2, "the file ends inside the header"},
    {"3\n\n4\n", 3, "the file ends inside the header"},
    {"3\n4\n99999999999999999999\n", 3, "NNZ 99999999999999999999 is out of range"},
};

Test(uci, malformed_docword_files_name_file_and_line)
{
    corpus_options opt = uci_options();
    for (size_t i = 0; i < sizeof BAD_DOCWORDS / sizeof BAD_DOCWORDS[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu", i);
        fixture_path p = write_uci(name, BAD_DOCWORDS[i].body);
        expect_error_at(p.s, &opt, p.s, BAD_DOCWORDS[i].line, BAD_DOCWORDS[i].says);
    }
}

Test(uci, empty_docword_file_lacks_its_header)
{
    corpus_options opt = uci_options();
    fixture_path p = write_uci("e", "");
    expect_error_at(p.s, &opt, p.s, 0, "the file is empty (expected a header of three lines D, W, NNZ)");
}

Test(uci, header_but_no_triples_is_an_empty_corpus)
{
    corpus_options opt = uci_options();
    fixture_path p = write_uci("e", "3\n4\n0\n");
    expect_error_at(p.s, &opt, p.s, 0, "the corpus is empty (3 documents, no tokens)");
}

Test(uci, vocabulary_shorter_than_w)
{
    fixture_path vocab = fixture_write("vocab.v.txt", "alpha\nbeta\ngamma\n", 0);
    fixture_path p = fixture_write("docword.v.txt", DOCWORD, 0);
    corpus_options opt = uci_options();
    char reason[600];
    snprintf(reason, sizeof reason, "the vocabulary ends after 3 words (expected 4: W in %s:2)", p.s);
    expect_error_at(p.s, &opt, vocab.s, 3, reason);
}

Test(uci, vocabulary_longer_than_w)
{
    fixture_path vocab = fixture_write("vocab.v.txt", "alpha\nbeta\ngamma\ndelta\nepsilon\n", 0);
    fixture_path p = fixture_write("docword.v.txt", DOCWORD, 0);
    corpus_options opt = uci_options();
    expect_error_at(p.s, &opt, vocab.s, 5, "more words than expected (expected 4: W in");
}

Test(uci, vocabulary_with_a_blank_line_inside)
{
    fixture_path vocab = fixture_write("vocab.v.txt", "alpha\n\nbeta\ngamma\ndelta\n", 0);
    fixture_path p = fixture_write("docword.v.txt", DOCWORD, 0);
    corpus_options opt = uci_options();
    expect_error_at(p.s, &opt, vocab.s, 2, "empty line in the vocabulary");
}

Test(uci, missing_vocabulary_names_the_expected_path)
{
    fixture_path p = fixture_write("docword.nov.txt.gz", DOCWORD, 1);
    fixture_path expected = fixture_name("vocab.nov.txt.gz");
    corpus_options opt = uci_options();
    expect_error_at(p.s, &opt, expected.s, 0, "No such file or directory (the vocabulary of");
    opt.format = CORPUS_FORMAT_AUTO;
    expect_error_at(p.s, &opt, expected.s, 0, "No such file or directory");
}

Test(uci, missing_explicit_vocabulary)
{
    fixture_path p = fixture_write("docword.nov.txt", DOCWORD, 0);
    fixture_path vocab = fixture_name("words.txt");
    corpus_options opt = uci_options();
    opt.vocab_path = vocab.s;
    expect_error_at(p.s, &opt, vocab.s, 0, "No such file or directory");
}

Test(uci, unconventional_name_needs_an_explicit_vocabulary)
{
    fixture_path p = fixture_write("bag.txt", DOCWORD, 0);
    corpus_options opt = uci_options();
    expect_error_at(p.s, &opt, p.s, 0, "cannot tell where its vocabulary is");
}

Test(uci, truncated_gzip_docword)
{
    char body[64 * 1024];
    size_t len = (size_t)sprintf(body, "3\n4\n3000\n");
    for (int i = 0; i < 3000; i++)
        len += (size_t)sprintf(body + len, "%d %d %d\n", i % 3 + 1, i % 4 + 1, i % 7 + 1);
    fixture_write("vocab.t.txt", VOCAB, 0);
    fixture_path p = fixture_write("docword.t.txt.gz", body, 1);
    fixture_truncate(p.s, fixture_size(p.s) * 2 / 3);
    size_t complete = fixture_complete_lines(p.s);
    cr_assert(complete > 3 && complete < 3003, "%zu complete lines", complete);
    corpus_options opt = uci_options();
    expect_error_at(p.s, &opt, p.s, complete + 1, "truncated gzip data (unexpected end of file)");
}

Test(uci, vocab_none_names_words_by_their_ids)
{
    /* No vocab.small.txt beside it: --vocab none must not look for one. */
    corpus_options opt = uci_options();
    opt.vocab_path = "none";
    corpus *c = read_ok(fixture_write("docword.small.txt", DOCWORD, 0).s, &opt);
    expect_vocab(c, "1 2 3 4");
    expect_doc(c, 0, "2 4 4 1");
    expect_doc(c, 1, "1 3 3 3");
    corpus_free(c);
}
