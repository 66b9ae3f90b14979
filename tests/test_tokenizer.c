/* test_tokenizer.c — the raw-text tokenizer on text in many languages: letters of every
 * script are letters, lowercased (German, French, Greek with its final sigma, Russian,
 * Armenian, Georgian), combining marks stay in their word, --min-word-length counts
 * characters, invalid UTF-8 separates words the same way every time, and scripts written
 * without spaces give one word a run. And the Unicode tables and UTF-8 codec themselves. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "corpus/unicode.h"
#include "helpers.h"
#include "readers_fixture.h"

TestSuite(tokenizer, .init = fixture_setup, .fini = fixture_teardown);

/* Reads one line with nothing dropped but words shorter than min_len; document 0 must be
 * `expected` (words space-separated). */
static void expect_words(const char *line, int min_len, const char *expected)
{
    corpus_options opt = fixture_text_options();
    opt.min_word_len = min_len;
    char text[1024];
    snprintf(text, sizeof text, "%s\n", line);
    corpus *c = read_ok(fixture_write("t.txt", text, 0).s, &opt);
    expect_doc(c, 0, expected);
    corpus_free(c);
}

Test(tokenizer, german)
{
    expect_words("Die GRÖSSE der Straße überrascht Ärzte und BÜRGER.", 1,
                 "die grösse der straße überrascht ärzte und bürger");
}

Test(tokenizer, french)
{
    expect_words("L'été dernier, les ÉLÈVES ont visité Noël à Besançon ; ÇA alors !", 1,
                 "l été dernier les élèves ont visité noël à besançon ça alors");
}

Test(tokenizer, greek_with_final_sigma)
{
    /* Σ lowercases to σ inside a word and ς at its end, as Greek is written. */
    expect_words("Ο ΛΟΓΟΣ της Ελλάδας είναι ΣΟΦΟΣ και ΣΑΦΗΣ.", 1,
                 "ο λογος της ελλάδας είναι σοφος και σαφης");
}

Test(tokenizer, russian)
{
    expect_words("Москва — столица России; ЁЛКИ и Ёжики в ЗИМНЕМ лесу.", 1,
                 "москва столица россии ёлки и ёжики в зимнем лесу");
}

Test(tokenizer, armenian_and_georgian)
{
    expect_words("ՀԱՅԱՍՏԱՆ Երևան", 1, "հայաստան երևան");
    /* Georgian Mtavruli capitals lowercase to Mkhedruli. */
    expect_words("ᲡᲐᲥᲐᲠᲗᲕᲔᲚᲝ საქართველო", 1, "საქართველო საქართველო");
}

Test(tokenizer, min_word_length_counts_characters_not_bytes)
{
    /* "öl" is 2 characters in 3 bytes, "été" 3 in 5, "μη" 2 in 4: with 3, only "été" stays. */
    expect_words("öl été μη", 3, "été");
    /* A combining accent (e + U+0301) is part of its word but not a character of its length. */
    expect_words("e\xcc\x81te\xcc\x81 ca", 3, "e\xcc\x81te\xcc\x81");
}

Test(tokenizer, marks_and_letters_of_scripts_without_case)
{
    /* Devanagari vowel signs (combining marks) keep the word whole; Arabic and Hebrew are
     * letters with no case. */
    expect_words("किताब और नमस्ते", 1, "किताब और नमस्ते");
    expect_words("مرحبا بالعالم שלום עולם", 1, "مرحبا بالعالم שלום עולם");
    /* A mark with no letter before it starts no word. */
    expect_words("\xcc\x81" "abc", 1, "abc");
}

Test(tokenizer, scripts_without_spaces_give_one_word_a_run)
{
    expect_words("中文分词很难。日本語のテキスト", 1, "中文分词很难 日本語のテキスト");
}

Test(tokenizer, invalid_utf8_separates_words_deterministically)
{
    /* A cut sequence, stray continuation bytes, FF FE, an overlong '/' (C0 AF), a surrogate
     * (ED A0 80) and a code point above U+10FFFF (F4 90 80 80): each byte is a separator. */
    expect_words("caf\xc3 bar\xff\xfe" "baz\x80qux \xc0\xaf" "abc\xed\xa0\x80" "def\xf4\x90\x80\x80ghi end\xe2\x82", 1,
                 "caf bar baz qux abc def ghi end");
    /* The same bytes again read the same way (no state carried from one line to the next). */
    expect_words("\xe2\x82 caf\xc3 caf\xc3\xa9", 1, "caf café");
}

/* The built-in tokenizer's words are a letter followed by letters and marks: the same pattern
 * in PCRE2 must read every corpus the same way (lowercasing, final sigma, word lengths, invalid
 * UTF-8), which ties the pattern path's handling of a word to the built-in one's. */
Test(tokenizer, a_pattern_of_letters_and_marks_reads_as_the_builtin_tokenizer)
{
    fixture_path mixed = fixture_write("mixed.txt",
        "Die GRÖSSE der Straße überrascht Ärzte. L'été dernier, les ÉLÈVES ; ÇA alors !\n"
        "Ο ΛΟΓΟΣ της Ελλάδας είναι ΣΟΦΟΣ και ΣΑΦΗΣ. Москва — ЁЛКИ и Ёжики. ՀԱՅԱՍՏԱՆ ᲡᲐᲥᲐᲠᲗᲕᲔᲚᲝ\n"
        "e\xcc\x81te\xcc\x81 ca \xcc\x81" "abc किताब और नमस्ते مرحبا שלום 中文分词很难。日本語のテキスト x1y2\n"
        "caf\xc3 bar\xff\xfe" "baz\x80qux \xc0\xaf" "abc\xed\xa0\x80" "def\xf4\x90\x80\x80ghi end\xe2\x82\n", 0);
    char wiki[1024];
    snprintf(wiki, sizeof wiki, "%s/data/wiki2k.txt.gz", test_root());
    corpus_options some = fixture_text_options(), defaults;
    corpus_options_default(&defaults);
    const struct {
        const char *path;
        corpus_options opt;
    } cases[] = {{mixed.s, some}, {wiki, defaults}};
    for (int lower = 1; lower >= 0; lower--)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            corpus_options opt = cases[i].opt;
            opt.lowercase = lower;
            opt.min_word_len = i == 0 ? 2 : 3;
            corpus *builtin = read_ok(cases[i].path, &opt);
            opt.token_pattern = "\\p{L}[\\p{L}\\p{M}]*";
            corpus *pattern = read_ok(cases[i].path, &opt);
            test_expect_same_corpus(builtin, pattern);
            corpus_free(builtin);
            corpus_free(pattern);
        }
}

Test(tokenizer, unicode_tables)
{
    cr_assert_eq(lda_unicode_word_kind('a'), LDA_LETTER);
    cr_assert_eq(lda_unicode_word_kind('1'), LDA_NOT_WORD);
    cr_assert_eq(lda_unicode_word_kind(0x0301), LDA_MARK);   /* combining acute */
    cr_assert_eq(lda_unicode_word_kind(0x4E2D), LDA_LETTER); /* 中 */
    cr_assert_eq(lda_unicode_word_kind(0x00D7), LDA_NOT_WORD); /* × */
    cr_assert_eq(lda_unicode_word_kind(0x10FFFF), LDA_NOT_WORD);
    static const uint32_t pairs[][2] = {
        {'A', 'a'}, {0xC9, 0xE9}, {0xDE, 0xFE}, {0x100, 0x101}, {0x178, 0xFF}, {0x130, 'i'}, {0x391, 0x3B1},
        {0x3A3, 0x3C3}, {0x386, 0x3AC}, {0x410, 0x430}, {0x401, 0x451}, {0x460, 0x461}, {0x531, 0x561},
        {0x10A0, 0x2D00}, {0x1C90, 0x10D0}, {0x1E9E, 0xDF}, {0x212A, 'k'}, {0xFF21, 0xFF41}, {0x10400, 0x10428},
        {0x13A0, 0xAB70}, {'a', 'a'}, {0xDF, 0xDF}, {0x3C2, 0x3C2}, {'1', '1'}, {0x101, 0x101},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        cr_assert_eq(lda_unicode_lower(pairs[i][0]), pairs[i][1], "U+%04X -> U+%04X, not U+%04X", pairs[i][0],
                     pairs[i][1], lda_unicode_lower(pairs[i][0]));
    cr_assert_str_neq(lda_unicode_version, "");
}

Test(tokenizer, utf8_codec_round_trips)
{
    static const uint32_t cps[] = {0, 'a', 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF};
    for (size_t i = 0; i < sizeof cps / sizeof *cps; i++) {
        char buf[4];
        uint32_t back = 0xDEAD;
        size_t n = lda_utf8_encode(cps[i], buf);
        cr_assert_eq(lda_utf8_decode((const unsigned char *)buf, n, &back), n);
        cr_assert_eq(back, cps[i]);
        if (n > 1) /* cut short */
            cr_assert_eq(lda_utf8_decode((const unsigned char *)buf, n - 1, &back), 0);
    }
    static const char *const bad[] = {"\x80", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf0\x8f\xbf\xbf",
                                      "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xc3\x28"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint32_t cp;
        cr_assert_eq(lda_utf8_decode((const unsigned char *)bad[i], strlen(bad[i]), &cp), 0, "case %zu", i);
    }
}
