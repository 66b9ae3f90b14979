/* test_binary_corpus.c — ldagpu's binary corpus (corpus/corpus_binary.h): every corpus reads
 * back as the same struct, and every way a file can be cut, damaged or forged is refused with
 * status 2 and a message naming the file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "corpus/corpus_binary.h"
#include "helpers.h"
#include "readers_fixture.h"

TestSuite(binary, .init = fixture_setup, .fini = fixture_teardown);

/* Four input documents, one of them empty. */
static const char TEXT[] = "alpha beta gamma alpha\n\nbeta beta delta\ngamma alpha\n";

static corpus *text_corpus(void)
{
    corpus_options opt = fixture_text_options();
    return read_ok(fixture_write("c.txt", TEXT, 0).s, &opt);
}

static fixture_path write_binary(const corpus *c, const char *note)
{
    fixture_path p = fixture_name("c.ldab");
    lda_error err = {0};
    cr_assert_eq(corpus_binary_write(p.s, c, c->format, note, &err), 0, "%s", err.msg);
    return p;
}

Test(binary, a_text_corpus_reads_back_identical)
{
    corpus *c = text_corpus();
    cr_assert_eq(c->num_empty_docs, 1);
    fixture_path p = write_binary(c, "a note");
    corpus_options opt = fixture_text_options(); /* auto: found by its magic */
    corpus *back = read_ok(p.s, &opt);
    cr_assert_eq(back->format, CORPUS_FORMAT_BINARY);
    test_expect_same_corpus(c, back);
    lda_error err = {0};
    corpus *direct = corpus_binary_read(p.s, &err);
    cr_assert_not_null(direct, "%s", err.msg);
    cr_assert_eq(direct->format, CORPUS_FORMAT_TEXT, "the source format is kept");
    char *note;
    corpus_format source;
    cr_assert_eq(corpus_binary_read_note(p.s, &note, &source, &err), 0, "%s", err.msg);
    cr_assert_str_eq(note, "a note");
    cr_assert_eq(source, CORPUS_FORMAT_TEXT);
    free(note);
    corpus_free(direct);
    corpus_free(back);
    corpus_free(c);
}

Test(binary, a_uci_corpus_with_empty_documents_reads_back_identical)
{
    /* Documents 2 and 5 of 5 have no triples; document 1's triples are apart. */
    fixture_write("vocab.u.txt", "alpha\nbeta\ngamma\n", 0);
    fixture_path uci = fixture_write("docword.u.txt", "5\n3\n5\n1 2 1\n3 1 2\n4 3 3\n1 3 2\n3 2 1\n", 0);
    corpus_options opt = fixture_text_options();
    corpus *c = read_ok(uci.s, &opt);
    cr_assert_eq(c->num_empty_docs, 2);
    corpus *back = read_ok(write_binary(c, NULL).s, &opt);
    test_expect_same_corpus(c, back);
    corpus_free(back);
    corpus_free(c);
}

/* A binary corpus written by another program may hold any bytes in its words: one that vocab.txt
 * could not keep (a line break, a tab) or a word twice is refused by its word id, at train too. */
Test(binary, a_vocabulary_a_model_could_not_keep_is_refused)
{
    static const struct {
        const char *word, *needle;
    } bad[] = {{"be\nta", "c.ldab: word id 1: the word 'be\\x0ata' contains a line break"},
               {"beta\t", "c.ldab: word id 1: the word 'beta\t' contains a tab"},
               {"alpha", "c.ldab: word id 1: the word 'alpha' is also word id 0; a vocabulary lists each word once"}};
    corpus_options opt = fixture_text_options();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        corpus *c = text_corpus();
        cr_assert_str_eq(c->vocab[0], "alpha");
        char *was = c->vocab[1];
        c->vocab[1] = (char *)bad[i].word;
        fixture_path p = write_binary(c, NULL);
        c->vocab[1] = was;
        corpus_free(c);
        expect_error(p.s, &opt, bad[i].needle, NULL);
        char args[4200], *out = NULL;
        snprintf(args, sizeof args, "train '%s' -K 2 -n 1 --device cpu -o '%s.model'", p.s, p.s);
        cr_assert_eq(test_run_ldagpu(args, &out), 2, "%s", out);
        cr_assert(strstr(out, bad[i].needle), "%s", out);
        free(out);
    }
}

Test(binary, a_fixed_vocabulary_maps_it_as_it_maps_text)
{
    static char *fixed[] = {"beta", "zeta", "alpha"};
    corpus *c = text_corpus();
    fixture_path p = write_binary(c, NULL);
    corpus_options opt = fixture_text_options();
    opt.fixed_vocab = fixed;
    opt.fixed_vocab_size = 3;
    corpus *from_text = read_ok(fixture_name("c.txt").s, &opt);
    corpus *from_binary = read_ok(p.s, &opt);
    test_expect_same_corpus(from_text, from_binary);
    cr_assert_eq(from_binary->num_unknown_tokens, 3, "gamma twice and delta once");
    corpus_free(from_text);
    corpus_free(from_binary);
    corpus_free(c);
}

Test(binary, a_vocabulary_file_does_not_apply)
{
    corpus *c = text_corpus();
    fixture_path p = write_binary(c, NULL);
    corpus_options opt = fixture_text_options();
    opt.vocab_path = fixture_write("v.txt", "alpha\n", 0).s;
    expect_error(p.s, &opt, "c.ldab: a binary corpus holds its own vocabulary", NULL);
    corpus_free(c);
}

/* ---- malformed files ---- */

typedef struct {
    unsigned char *bytes;
    size_t size;
} blob;

static blob load(const char *path)
{
    blob b = {NULL, (size_t)fixture_size(path)};
    FILE *f = fopen(path, "rb");
    cr_assert(f && (b.bytes = malloc(b.size)) && fread(b.bytes, 1, b.size, f) == b.size);
    fclose(f);
    return b;
}

/* Writes b to path; with fix_checksum its trailer is recomputed first, so that only the contents
 * are wrong. */
static void store(const char *path, blob b, int fix_checksum)
{
    if (fix_checksum) {
        uint32_t crc = (uint32_t)crc32_z(0, b.bytes, b.size - 4);
        memcpy(b.bytes + b.size - 4, &crc, 4);
    }
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(b.bytes, 1, b.size, f) == b.size);
    fclose(f);
}

static void put_u64_at(blob b, size_t at, uint64_t v)
{
    memcpy(b.bytes + at, &v, 8);
}

static void put_u32_at(blob b, size_t at, uint32_t v)
{
    memcpy(b.bytes + at, &v, 4);
}

/* Where the sections of the text corpus's binary form start (no note): 3 documents, 9 tokens. */
enum { OFFSETS = 64, INDEXES = OFFSETS + 8 * 4, WORDS = INDEXES + 8 * 3, VOCAB = WORDS + 4 * 9 };

static blob binary_of_text(fixture_path *p)
{
    corpus *c = text_corpus();
    cr_assert_eq(c->num_docs, 3);
    cr_assert_eq(c->num_tokens, 9);
    *p = write_binary(c, NULL);
    corpus_free(c);
    blob b = load(p->s);
    cr_assert_eq(b.size, VOCAB + strlen("alpha beta delta gamma ") + 4);
    return b;
}

Test(binary, a_file_cut_anywhere_is_refused)
{
    fixture_path p;
    blob whole = binary_of_text(&p);
    corpus_options opt = fixture_text_options();
    opt.format = CORPUS_FORMAT_BINARY;
    for (size_t keep = 0; keep < whole.size; keep++) {
        store(p.s, (blob){whole.bytes, keep}, 0);
        /* Its first bytes are a binary corpus's, so it is one cut short, even inside the header. */
        expect_error(p.s, &opt, "c.ldab: ", keep == 0 ? "not an ldagpu binary corpus" : "truncated", NULL);
    }
    free(whole.bytes);
}

Test(binary, any_byte_changed_after_the_header_fails_the_checksum)
{
    fixture_path p;
    blob whole = binary_of_text(&p);
    corpus_options opt = fixture_text_options();
    for (size_t at = OFFSETS; at < whole.size; at++) {
        whole.bytes[at] ^= 0x10;
        store(p.s, whole, 0);
        expect_error(p.s, &opt, "c.ldab: damaged binary corpus: its checksum does not match", NULL);
        whole.bytes[at] ^= 0x10;
    }
    free(whole.bytes);
}

Test(binary, a_header_declaring_more_than_the_file_holds_is_refused_before_allocating)
{
    fixture_path p;
    blob b = binary_of_text(&p);
    corpus_options opt = fixture_text_options();
    put_u64_at(b, 32, 1ull << 40); /* tokens: 4 TiB of word ids */
    store(p.s, b, 1);
    expect_error(p.s, &opt, "c.ldab: truncated", "1099511627776 tokens", NULL);
    put_u64_at(b, 32, 9);
    put_u32_at(b, 8, 3);
    store(p.s, b, 1);
    expect_error(p.s, &opt, "c.ldab: binary corpus version 3; this ldagpu reads versions 1 to 2", NULL);
    put_u32_at(b, 8, 2); /* version 2's header is 80 bytes */
    store(p.s, b, 1);
    expect_error(p.s, &opt, "c.ldab: damaged binary corpus: its header size is wrong", NULL);
    free(b.bytes);
}

/* A change of the good file: n bytes at `at`, and what the message must then say. */
typedef struct {
    size_t at;
    const char *bytes;
    size_t n;
    const char *needle;
} byte_change;

/* Each change alone, with the checksum made right, is refused as damaged, naming the value. */
static void expect_changes_refused(const char *path, blob good, const byte_change *cases, size_t n)
{
    corpus_options opt = fixture_text_options();
    for (size_t i = 0; i < n; i++) {
        blob b = {malloc(good.size), good.size};
        cr_assert_not_null(b.bytes);
        memcpy(b.bytes, good.bytes, good.size);
        memcpy(b.bytes + cases[i].at, cases[i].bytes, cases[i].n);
        store(path, b, 1);
        expect_error(path, &opt, "c.ldab: damaged binary corpus: ", cases[i].needle, NULL);
        free(b.bytes);
    }
}

/* With the checksum right, each impossible value is named. The text corpus's form: words alpha
 * beta delta gamma; documents of 4, 3 and 2 tokens (offsets 0 4 7 9) from inputs 0, 2 and 3. */
Test(binary, impossible_contents_are_named)
{
    fixture_path p;
    blob good = binary_of_text(&p);
    const byte_change cases[] = {
        {WORDS + 4 * 5, "\x04\0\0\0", 4, "token 5 has word id 4, beyond its vocabulary of 4 words"},
        {OFFSETS + 8 * 1, "\0", 1, "document 0 spans tokens 0 to 0"},
        {OFFSETS + 8 * 2, "\x02", 1, "document 1 spans tokens 4 to 2"},
        {OFFSETS + 8 * 3, "\x08", 1, "its document offsets run from 0 to 8, not from 0 to its 9 tokens"},
        {INDEXES + 8 * 2, "\x02", 1, "document 2's input index 2 does not rise from the last, below 4"},
        {INDEXES + 8 * 2, "\x04", 1, "document 2's input index 4 does not rise from the last, below 4"},
        {VOCAB, "\0", 1, "word 0 of its 4 is empty"},
        {VOCAB + 5, "A", 1, "word 3 of its 4 is missing"},
    };
    expect_changes_refused(p.s, good, cases, sizeof cases / sizeof cases[0]);
    free(good.bytes);
}

/* ---- documents with names (version 2) ---- */

/* TEXT's documents with names and labels (--format mallet). */
static const char NAMED[] = "d0\tx\talpha beta gamma alpha\nd1\ty\t\nd2\tx\tbeta beta delta\nd3\ty\tgamma alpha\n";

/* Where its binary form's sections start: an 80-byte header, then TEXT's sections, then names
 * ("d0 d1 d2 d3" with NULs) and labels ("x y x y"). */
enum { NAMED_VOCAB = 80 + VOCAB - OFFSETS, NAMES = NAMED_VOCAB + 23, LABELS = NAMES + 12 };

static blob binary_of_named(fixture_path *p, corpus **named)
{
    corpus_options opt = fixture_text_options();
    opt.format = CORPUS_FORMAT_MALLET;
    *named = read_ok(fixture_write("c.tsv", NAMED, 0).s, &opt);
    corpus *plain = text_corpus();
    cr_assert_eq((*named)->num_docs, plain->num_docs);
    cr_assert_eq(memcmp((*named)->words, plain->words, plain->num_tokens * sizeof *plain->words), 0,
                 "the fields are no words");
    corpus_free(plain);
    *p = write_binary(*named, NULL);
    blob b = load(p->s);
    cr_assert_eq(b.size, LABELS + 8 + 4);
    return b;
}

Test(binary, a_corpus_with_names_reads_back_with_them_as_version_2)
{
    fixture_path p;
    corpus *named;
    blob b = binary_of_named(&p, &named);
    uint32_t version, header;
    memcpy(&version, b.bytes + 8, 4);
    memcpy(&header, b.bytes + 12, 4);
    cr_assert(version == 2 && header == 80);
    cr_assert_eq(memcmp(b.bytes + NAMES, "d0\0d1\0d2\0d3\0x\0y\0x\0y\0", 20), 0);
    corpus_options opt = fixture_text_options();
    corpus *back = read_ok(p.s, &opt);
    test_expect_same_corpus(named, back);
    cr_assert_str_eq(lda_string_list_get(back->names, 1), "d1", "an empty document keeps its name");
    corpus_free(back);
    corpus_free(named);
    free(b.bytes);
}

Test(binary, names_that_break_what_a_corpus_promises_are_named)
{
    fixture_path p;
    corpus *named;
    blob good = binary_of_named(&p, &named);
    corpus_free(named);
    const byte_change cases[] = {
        {NAMES + 3, "\x01", 1, "input document 1: the document name holds a control character (\\x01)"},
        {NAMES + 3, "\0", 1, "it holds 5 names for its 4 input documents"},
        {NAMES, "\0d0", 3, "input document 0: the document name (the first field) is empty"},
        {LABELS + 2, "\t", 1, "input document 1: the label holds a control character (\\x09)"},
        {LABELS + 7, "y", 1, "its labels do not end with a NUL"},
        {64, "\0\0\0\0\0\0\0\0\x14", 9, "it has labels and no names"}, /* names 0 bytes, labels 20 */
    };
    expect_changes_refused(p.s, good, cases, sizeof cases / sizeof cases[0]);
    free(good.bytes);
}
