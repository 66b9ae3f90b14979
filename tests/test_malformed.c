/* test_malformed.c — the malformed-input table: every kind of bad input the reliability audits
 * (issues 16 and 29) tried, each through the real binary; docs/malformed-input.md is this
 * table as a page. Most were clean already (one line naming the file and line, the documented
 * status) and must stay so; the rows marked with a finding (issue 16's number, "29.N" for
 * issue 29's, or fuzzing) failed before its fix. A row writes its files into a fresh folder
 * (%D in names, text contents and arguments stands for it), optionally over a small trained
 * model (%D/m, on the corpus %D/tiny.ldac), may change values of its .npy files, runs ldagpu
 * and checks the status and the line. Rows with status 0 are inputs that must read. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "helpers.h"

/* How a row's file is written: as it is, gzip-compressed, or added to the end of the file
 * (model.conf: a later key overrides an earlier one). */
typedef enum { AS_IS, GZIPPED, APPENDED } write_how;

typedef struct {
    const char *name, *content; /* content NULL: len bytes of 'a' */
    size_t len; /* 0: strlen(content), text in which %D is replaced too */
    write_how how;
} input_file;

/* The tiny model trained with extra options (setup_options). */
typedef enum {
    NO_SETUP,
    TINY_MODEL,
    TINY_TOP_MODEL,
    TINY_TOP_ALL_MODEL,
    TINY_SPARSE_MODEL,
    TINY_NO_THETA_MODEL,
    TINY_LEARNED_MODEL
} setup_kind;
static const char *const setup_options[] = {
    [TINY_MODEL] = "", [TINY_TOP_MODEL] = " --doc-topics top:1", [TINY_TOP_ALL_MODEL] = " --doc-topics top:2",
    [TINY_SPARSE_MODEL] = " --doc-topics sparse:0.1", [TINY_NO_THETA_MODEL] = " --doc-topics none",
    [TINY_LEARNED_MODEL] = " --optimize-interval 1 --optimize-burn-in 0",
};

/* Value `index` of the .npy file `name` (4-byte elements) after setup: set to bits, or, with
 * flip, XORed with them. */
typedef struct {
    const char *name;
    long index;
    uint32_t bits;
    int flip;
} poke;

typedef struct {
    const char *what;
    const char *finding; /* "clean", or the finding it checks: issue 16's "N: ...", issue 29's "29.N: ..." */
    setup_kind setup;
    input_file files[3];
    const char *env; /* NAME=VALUE for the run, or NULL */
    const char *args;
    int status;
    const char *needle;
    poke pokes[2];
} malformed;

/* A float32 matrix header (magic, version 1, type 1, 2 rows, 12 columns) and 24 values. */
#define MATRIX_HEADER(type) "LDAGPUMX\x01\0\0\0" type "\0\0\0\x02\0\0\0\0\0\0\0\x0c\0\0\0\0\0\0\0" \
    "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
#define F4(v) v v v v
#define F24(v) F4(v) F4(v) F4(v) F4(v) F4(v) F4(v)
#define NAN_PHI MATRIX_HEADER("\x01") F24("\x00\x00\xc0\x7f")
#define ONE_PHI MATRIX_HEADER("\x01") F24("\xab\xaa\xaa\x3d") /* 1/12 */
#define U32_PHI MATRIX_HEADER("\x02") F24("\x01\x00\x00\x00")

/* doc_topics_index.npy of the tiny model with --doc-topics top:1 (64 x 1 uint32), its first
 * topic 7 where K = 2. */
#define Z4 "\0\0\0\0"
#define Z16 Z4 Z4 Z4 Z4
#define Z64 Z16 Z16 Z16 Z16
#define TOP_INDEX_7 "\x93NUMPY\x01\x00v\x00" \
    "{'descr': '<u4', 'fortran_order': False, 'shape': (64, 1), }" \
    "                                                         \n" "\x07\0\0\0" Z64 Z64 Z64 Z16 Z16 Z16 Z4 Z4 Z4

/* An ldagpu binary corpus (corpus_binary.h) of no documents, made from text: the header (magic,
 * version, 64 header bytes, `inputs` input documents, 0 documents, `tokens`, `words` words, source
 * format 1, no vocabulary bytes, no note), the one offset 0, and `crc`. */
#define ZERO4 "\0\0\0\0"
#define ZERO8 "\0\0\0\0\0\0\0\0"
#define BINARY_HEADER(version, inputs, tokens, words, crc) "LDAGPUCB" version "\0\0\0" "\x40\0\0\0" inputs ZERO8 \
    tokens words "\x01\0\0\0" ZERO8 ZERO8 ZERO8 crc
#define BINARY_CORPUS(version, tokens, crc) BINARY_HEADER(version, ZERO8, tokens, ZERO4, crc)
#define EMPTY_CRC "\x69\x42\x49\x48"

/* The start of a PDF file: its version line, the binary comment line PDF writers add, an object. */
#define PDF_LIKE "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 44 /Filter /FlateDecode >>\nstream\n" \
    "x\x9c\x2b\xe4\x02\x00\nendstream\nendobj\n"
/* float32 bits for poke. */
#define F_MINUS_1 0xbf800000u
#define F_1E38 0x7e967699u
#define F_0_9 0x3f666666u
#define F_1_5 0x3fc00000u

/* The tiny corpus's vocabulary with its last word ("gear") replaced. */
#define TINY_WORDS_BUT(last) "apple\nbanana\ncherry\ngrape\nlemon\nmango\nengine\npiston\nrotor\nvalve\nwheel\n" last "\n"
#define FIVE(x) x x x x x

/* A UCI triple of document d with the most tokens a document may have (2^27 - 1). */
#define T(d) #d " 1 134217727\n"
#define T8(a, b, c, d, e, f, g, h) T(a) T(b) T(c) T(d) T(e) T(f) T(g) T(h)
#define TRAIN "train %D/c -K 2 -n 1 --device cpu -o %D/out "
#define UCI_VOCAB {"vocab.c.txt", "alpha\nbeta\n", 0, 0}

/* Rows leave out what they do not use (files, pokes). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static malformed rows[] = {
    /* ---- corpora ---- */
    {"no such corpus", "clean", NO_SETUP, {{0}}, NULL, "train %D/none.txt -o %D/out", 2, "none.txt: No such file"},
    {"empty file", "clean", NO_SETUP, {{"c", "", 0, 0}}, NULL, TRAIN, 2, "c: the corpus is empty (no documents)"},
    {"only blank lines", "clean", NO_SETUP, {{"c", "\n \n\t\n", 0, 0}}, NULL, TRAIN, 2, "the corpus is empty"},
    {"only stop words", "clean", NO_SETUP, {{"c", "the and of\nthe\n", 0, 0}}, NULL, TRAIN, 2, "stop words"},
    {"binary bytes as text", "28.6: trained on", NO_SETUP, {{"c", "\x01\x02\xff\xfe\0\0\x7f", 7, 0}}, NULL, TRAIN, 2,
     "c does not look like text: a NUL byte at offset 4; --force-text reads it as text anyway"},
    {"a folder as corpus", "clean", NO_SETUP, {{0}}, NULL, "train %D -o %D/out", 2, "Is a directory"},
    /* ---- not text (issue 28's defects; the PDF and the binary trained into topics) ---- */
    {"a PDF as text", "28.6: trained on", NO_SETUP, {{"c.pdf", PDF_LIKE, 0, 0}}, NULL,
     "train %D/c.pdf -K 2 -n 1 --device cpu -o %D/out", 2,
     "c.pdf does not look like text: it starts like a PDF document (convert it to text first); --force-text reads it "
     "as text anyway"},
    {"a PDF read with --force-text", "28.6: the override", NO_SETUP, {{"c.pdf", PDF_LIKE, 0, 0}}, NULL,
     "train %D/c.pdf --force-text --min-df 1 --max-df 1 -K 2 -n 1 --device cpu -o %D/out", 0, "(text):"},
    {"a PDF given to infer", "28.6: inferred on", TINY_MODEL, {{"c.pdf", "%PDF-1.4\napple banana cherry\n", 0, 0}}, NULL,
     "infer %D/m %D/c.pdf --device cpu", 2, "c.pdf does not look like text: it starts like a PDF document"},
    {"a PDF given to infer with --force-text", "28.6: the override", TINY_MODEL,
     {{"c.pdf", "%PDF-1.4\napple banana cherry\n", 0, 0}}, NULL,
     "infer %D/m %D/c.pdf --force-text --device cpu -o %D/theta.tsv", 0, "c.pdf: 2 documents, 3 tokens"},
    {"the ldagpu binary as text", "28.6: trained on", NO_SETUP, {{0}}, NULL,
     "train \"$LDAGPU_BIN\" -K 2 -n 1 --device cpu -o %D/out", 2,
     "does not look like text: it starts like an executable or library (ELF)"},
    {"UTF-16 text", "29.16: blamed as empty", NO_SETUP,
     {{"c", "\xff\xfe" "a\0l\0p\0h\0a\0 \0b\0e\0t\0a\0\n\0", 24, 0}}, NULL, TRAIN, 2,
     "c is UTF-16 text: ldagpu reads UTF-8 (convert it first: iconv -f UTF-16 -t UTF-8)"},
    {"an xz-compressed corpus", "28.6: trained on", NO_SETUP,
     {{"c.xz", "\xfd" "7zXZ\0\0\x04\xe6\xd6\xb4\x46\x02\0\x21\x01\x16\0\0\0", 20, 0}}, NULL,
     "train %D/c.xz -K 2 -n 1 --device cpu -o %D/out", 2,
     "c.xz is compressed with xz: ldagpu reads plain or gzip-compressed files (decompress it first: xz -d)"},
    {"an endless device as corpus", "29.7: grew without end", NO_SETUP, {{0}}, NULL,
     "train /dev/zero -K 2 -n 1 --device cpu -o %D/out", 2, "/dev/zero does not look like text: a NUL byte at offset 0"},
    {"a gzip-compressed binary corpus", "29.16: blamed as too short", NO_SETUP,
     {{"c.ldab.gz", BINARY_CORPUS("\x01", ZERO8, EMPTY_CRC), 76, GZIPPED}}, NULL, "train %D/c.ldab.gz -o %D/out", 2,
     "c.ldab.gz is an ldagpu binary corpus compressed with gzip: decompress it first (gunzip)"},
    {"a gzip-compressed binary corpus named binary", "29.16: blamed as too short", NO_SETUP,
     {{"c.ldab.gz", BINARY_CORPUS("\x01", ZERO8, EMPTY_CRC), 76, GZIPPED}}, NULL, "train %D/c.ldab.gz -f binary -o %D/out",
     2, "c.ldab.gz is compressed with gzip: decompress it first (gunzip)"},
    {"Latin-1 text with a few accents", "clean", NO_SETUP,
     {{"c", "Le caf\xe9 est tr\xe8s bon et la cr\xe8me aussi, mais le th\xe9 reste meilleur pour la sant\xe9\n"
            "Le caf\xe9 est tr\xe8s bon et la cr\xe8me aussi, mais le th\xe9 reste meilleur pour la sant\xe9\n", 0, 0}},
     NULL, TRAIN "--min-df 1 --max-df 1", 0, "(text): 2 documents"},
    {"gzip cut short", "clean", NO_SETUP, {{"c", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x4b\x4c", 12, 0}},
     NULL, TRAIN, 2, "truncated gzip data"},
    {"gzip corrupt inside", "clean", NO_SETUP,
     {{"c", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff\xff\xff\x00\x00", 18, 0}}, NULL, TRAIN, 2,
     "corrupt gzip data"},
    {"gzip trailer checksum wrong", "7: gzip CRC named line 1", NO_SETUP,
     {{"c", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x4b\xcc\x29\xc8\x48\x54\x48\x4a\x2d\x49\xe4\x02\x00"
            "\xc1\x76\x07\xc8\x0b\x00\x00\x00", 31, 0}}, /* "alpha beta\n", its CRC altered */
     NULL, TRAIN, 2, "c: corrupt gzip data: the file does not match its own checksum"},
    {"uci header cut short", "clean", NO_SETUP, {{"docword.c.txt", "2\n2\n", 0, 0}, UCI_VOCAB}, NULL,
     "train %D/docword.c.txt -f uci -o %D/out", 2, "docword.c.txt:2: the file ends inside the header"},
    {"uci non-numeric count", "clean", NO_SETUP, {{"docword.c.txt", "1\n2\n1\n1 1 x\n", 0, 0}, UCI_VOCAB}, NULL,
     "train %D/docword.c.txt -o %D/out", 2, "docword.c.txt:4: count 'x' is not a non-negative integer"},
    {"uci negative id", "clean", NO_SETUP, {{"docword.c.txt", "1\n2\n1\n1 -1 2\n", 0, 0}, UCI_VOCAB}, NULL,
     "train %D/docword.c.txt -o %D/out", 2, "docword.c.txt:4: wordID '-1' is not a non-negative integer"},
    {"uci word id beyond W", "clean", NO_SETUP, {{"docword.c.txt", "1\n2\n1\n1 3 2\n", 0, 0}, UCI_VOCAB}, NULL,
     "train %D/docword.c.txt -o %D/out", 2, "docword.c.txt:4: wordID 3 is out of range (expected 1..2"},
    {"uci count beyond 64 bits", "clean", NO_SETUP,
     {{"docword.c.txt", "1\n2\n1\n1 1 99999999999999999999999\n", 0, 0}, UCI_VOCAB}, NULL,
     "train %D/docword.c.txt -o %D/out", 2, "docword.c.txt:4: count 99999999999999999999999 is out of range"},
    {"uci more triples than NNZ", "clean", NO_SETUP, {{"docword.c.txt", "1\n2\n1\n1 1 2\n1 2 1\n", 0, 0}, UCI_VOCAB},
     NULL, "train %D/docword.c.txt -o %D/out", 2, "docword.c.txt:5: more triples than the header says"},
    {"uci fewer triples than NNZ", "clean", NO_SETUP, {{"docword.c.txt", "1\n2\n3\n1 1 2\n", 0, 0}, UCI_VOCAB},
     NULL, "train %D/docword.c.txt -o %D/out", 2, "the file ends after 1 triples (expected NNZ = 3"},
    {"uci extra field", "clean", NO_SETUP, {{"docword.c.txt", "1\n2\n1\n1 1 2 7\n", 0, 0}, UCI_VOCAB}, NULL,
     "train %D/docword.c.txt -o %D/out", 2, "docword.c.txt:4: unexpected extra field '7'"},
    {"uci vocabulary missing", "clean", NO_SETUP, {{"docword.c.txt", "1\n2\n1\n1 1 2\n", 0, 0}}, NULL,
     "train %D/docword.c.txt -o %D/out", 2, "vocab.c.txt: No such file or directory"},
    {"uci vocabulary too short", "clean", NO_SETUP,
     {{"docword.c.txt", "1\n3\n1\n1 1 2\n", 0, 0}, UCI_VOCAB}, NULL, "train %D/docword.c.txt -o %D/out", 2,
     "the vocabulary ends after 2 words (expected 3"},
    {"uci with a byte-order mark", "5: read as raw text", NO_SETUP,
     {{"docword.c.txt", "\xEF\xBB\xBF" "2\n2\n3\n1 1 2\n1 2 1\n2 2 3\n", 0, 0}, UCI_VOCAB}, NULL,
     "train %D/docword.c.txt -K 2 -n 1 --device cpu -o %D/out", 0, "(uci): 2 documents, 6 tokens, 2 words"},
    {"uci header value malformed", "5: read as raw text", NO_SETUP,
     {{"docword.c.txt", "2\n2x\n3\n1 1 2\n1 2 1\n2 2 3\n", 0, 0}, UCI_VOCAB}, NULL,
     "train %D/docword.c.txt -o %D/out", 2, "docword.c.txt:2: W '2x' is not a non-negative integer"},
    {"uci tokens beyond memory", "4: tiny file, huge cost", NO_SETUP,
     {{"docword.c.txt", "3\n2\n3\n" T(1) T(2) T(3), 0, 0}, UCI_VOCAB}, "LDAGPU_MEMORY_LIMIT=1G",
     "train %D/docword.c.txt -o %D/out", 1, "docword.c.txt: not enough memory: the corpus declares 402653181 tokens"},
    {"uci 2^32 tokens in all", "3: counts wrap", NO_SETUP,
     {{"docword.c.txt", "33\n2\n33\n" T8(1, 2, 3, 4, 5, 6, 7, 8) T8(9, 10, 11, 12, 13, 14, 15, 16)
       T8(17, 18, 19, 20, 21, 22, 23, 24) T8(25, 26, 27, 28, 29, 30, 31, 32) T(33), 0, 0}, UCI_VOCAB},
     "LDAGPU_MEMORY_LIMIT=1G", "train %D/docword.c.txt -o %D/out", 1,
     "docword.c.txt: not enough memory: the corpus declares 4429184991 tokens"},
    {"ldac N disagrees", "clean", NO_SETUP, {{"c.ldac", "3 0:1 1:2\n", 0, 0}, {"c.vocab", "a\nb\n", 0, 0}}, NULL,
     "train %D/c.ldac -o %D/out", 2, "c.ldac:1: N = 3 but the line has 2 id:count pairs"},
    {"ldac id beyond the vocabulary", "clean", NO_SETUP,
     {{"c.ldac", "1 0:1\n1 5:2\n", 0, 0}, {"c.vocab", "a\nb\n", 0, 0}}, NULL, "train %D/c.ldac -o %D/out", 2,
     "c.ldac:2: word id 5 is out of range (expected 0..1"},
    {"ldac count 0", "clean", NO_SETUP, {{"c.ldac", "1 0:0\n", 0, 0}, {"c.vocab", "a\nb\n", 0, 0}}, NULL,
     "train %D/c.ldac -o %D/out", 2, "c.ldac:1: count 0 is out of range"},
    {"ldac bad pair later", "clean", NO_SETUP,
     {{"c.ldac", "1 0:1\n1 1:1\n2 0:1 1=1\n", 0, 0}, {"c.vocab", "a\nb\n", 0, 0}}, NULL,
     "train %D/c.ldac -o %D/out", 2, "c.ldac:3: '1=1' is not an id:count pair"},
    {"ldac bad pair on the first line", "5: read as raw text", NO_SETUP,
     {{"c.ldac", "2 0:1 1:x\n1 1:1\n2 0:1 1:1\n", 0, 0}, {"c.vocab", "a\nb\n", 0, 0}}, NULL,
     "train %D/c.ldac -o %D/out", 2, "c.ldac:1: count 'x' is not a non-negative integer"},
    {"ldac vocabulary missing", "clean", NO_SETUP, {{"c.ldac", "1 0:1\n", 0, 0}}, NULL,
     "train %D/c.ldac -o %D/out", 2, "No such file or directory (the vocabulary of"},
    {"ldac 3e9 tokens on one line", "4: tiny file, huge cost", NO_SETUP,
     {{"c.ldac", "1 0:3000000000\n", 0, 0}, {"c.vocab", "a\n", 0, 0}}, NULL, "train %D/c.ldac -o %D/out", 2,
     "c.ldac:1: a document of more than 134217727 tokens"},
    {"ldac count wrapping 32 bits", "3: counts wrap", NO_SETUP,
     {{"c.ldac", "2 0:4294967295 1:1\n", 0, 0}, {"c.vocab", "a\nb\n", 0, 0}}, NULL, "train %D/c.ldac -o %D/out", 2,
     "c.ldac:1: a document of more than 134217727 tokens (4294967295 by this line)"},
    {"ldac tokens beyond memory", "4: tiny file, huge cost", NO_SETUP,
     {{"c.ldac", "1 0:100000000\n", 0, 0}, {"c.vocab", "a\n", 0, 0}}, "LDAGPU_MEMORY_LIMIT=64M",
     "train %D/c.ldac -o %D/out", 1, "c.ldac:1: not enough memory: the corpus declares 100000000 tokens"},
    {"ldac --vocab none, a word id near 2^32", "29.13: 25 bytes, 62 s", NO_SETUP, {{"c.ldac", "1 4294967292:1\n", 0, 0}},
     "LDAGPU_MEMORY_LIMIT=1G", "train %D/c.ldac --vocab none -o %D/out", 1,
     "c.ldac:1: not enough memory: --vocab none names the words by their ids, 0 to 4294967292 here: 4294967293 words, "
     "160.0 GiB to hold them, and 1.0 GiB are available"},
    {"uci --vocab none, W near 2^32", "29.13: 25 bytes, 62 s", NO_SETUP,
     {{"docword.c.txt", "1\n4294967294\n1\n1 1 1\n", 0, 0}}, "LDAGPU_MEMORY_LIMIT=1G",
     "train %D/docword.c.txt --vocab none -o %D/out", 1,
     "docword.c.txt:2: not enough memory: --vocab none names the words by their ids, 1 to 4294967294 here"},
    {"uci 134 million empty documents", "29.13: 20 bytes, 48 s and 2.3 GB", TINY_MODEL,
     {{"docword.c.txt", "134000000\n12\n1\n1 1 1\n", 0, 0},
      {"vocab.c.txt", "apple\nbanana\ncherry\ngrape\nlemon\nmango\nengine\npiston\nrotor\nvalve\nwheel\ngear\n", 0, 0}},
     "LDAGPU_MEMORY_LIMIT=256M", "infer %D/m %D/docword.c.txt --device cpu -o %D/theta.tsv", 1,
     "docword.c.txt:1: not enough memory: the corpus declares 134000000 documents, 1022 MiB to hold them, and 256 MiB "
     "are available"},
    {"mallet: a line without its tabs", "clean", NO_SETUP, {{"c", "a\tx\talpha beta\nb\talpha beta\n", 0, 0}},
     NULL, TRAIN "-f mallet", 2, "c:2: expected NAME<tab>LABEL<tab>TEXT (--format mallet); the line has one tab"},
    {"named: a blank line", "clean", NO_SETUP, {{"c", "a\talpha beta\n\nb\tbeta\n", 0, 0}}, NULL,
     TRAIN "-f named", 2, "c:2: expected NAME<tab>TEXT (--format named); the line has no tab"},
    {"named: a name with an escape", "clean", NO_SETUP, {{"c", "a\x1b[31m\talpha beta\n", 0, 0}}, NULL,
     TRAIN "-f named", 2, "c:1: the document name holds a control character (\\x1b)"},
    {"binary: not one", "clean", NO_SETUP, {{"c", "alpha beta\n", 0, 0}}, NULL, TRAIN "-f binary", 2,
     "c: not an ldagpu binary corpus"},
    {"binary: cut short", "clean", NO_SETUP, {{"c", BINARY_CORPUS("\x01", ZERO8, EMPTY_CRC), 70, 0}}, NULL, TRAIN, 2,
     "c: truncated: 70 bytes"},
    {"binary: checksum wrong", "clean", NO_SETUP, {{"c", BINARY_CORPUS("\x01", ZERO8, "\x01\x02\x03\x04"), 76, 0}},
     NULL, TRAIN, 2, "c: damaged binary corpus: its checksum does not match its contents"},
    {"binary: 2^40 tokens declared", "clean", NO_SETUP,
     {{"c", BINARY_CORPUS("\x01", "\0\0\0\0\0\x01\0\0", EMPTY_CRC), 76, 0}}, NULL, TRAIN, 2,
     "c: truncated: 76 bytes, fewer than its header declares (0 documents, 1099511627776 tokens"},
    {"binary: a newer version", "clean", NO_SETUP, {{"c", BINARY_CORPUS("\x03", ZERO8, EMPTY_CRC), 76, 0}}, NULL,
     TRAIN, 2, "c: binary corpus version 3; this ldagpu reads versions 1 to 2"},
    {"binary: no documents", "clean", NO_SETUP, {{"c", BINARY_CORPUS("\x01", ZERO8, EMPTY_CRC), 76, 0}}, NULL, TRAIN,
     2, "c: the corpus is empty (no documents)"},
    {"binary: 2^40 empty documents", "fuzzing: allocated before checking", NO_SETUP,
     {{"c", BINARY_HEADER("\x01", "\0\0\0\0\0\x01\0\0", ZERO8, ZERO4, EMPTY_CRC), 76, 0}}, NULL, TRAIN, 2,
     "c: 1099511627776 input documents; a corpus has at most 4294967295"},
    {"binary: 2^31 words in no bytes", "fuzzing: allocated before checking", NO_SETUP,
     {{"c", BINARY_HEADER("\x01", ZERO8, ZERO8, "\0\0\0\x80", EMPTY_CRC), 76, 0}}, NULL, TRAIN, 2,
     "c: damaged binary corpus: its vocabulary has fewer bytes than its words need"},
    {"binary: a vocabulary file given", "clean", NO_SETUP, {{"c", BINARY_CORPUS("\x01", ZERO8, EMPTY_CRC), 76, 0},
     {"v", "alpha\n", 0, 0}}, NULL, TRAIN "--vocab %D/v", 2, "c: a binary corpus holds its own vocabulary"},
    {"cache: the corpus itself", "clean", NO_SETUP, {{"c", "alpha beta\n", 0, 0}}, NULL, TRAIN "--cache %D/c", 2,
     "--cache %D/c is the corpus itself"},
    {"cache: not a cache file", "clean", NO_SETUP, {{"c", "alpha beta\nbeta alpha\n", 0, 0}, {"k", "keep\n", 0, 0}},
     NULL, "train %D/c -K 2 -n 1 -q --device cpu -o %D/out --min-df 1 --max-df 1 --cache %D/k", 0,
     "warning: cache %D/k not written: it exists and is not an ldagpu binary corpus"},
    {"format: no such corpus", "clean", NO_SETUP, {{0}}, NULL, "format %D/none.txt", 2, "none.txt: No such file"},
    /* ---- options and config files ---- */
    {"config line without '='", "clean", NO_SETUP, {{"p.conf", "topics 3\n", 0, 0}}, NULL,
     "train %D/p.conf -c %D/p.conf", 2, "p.conf:1: expected 'key = value', got 'topics 3'"},
    {"config unknown key", "clean", NO_SETUP, {{"p.conf", "topics = 3\ncolour = red\n", 0, 0}}, NULL,
     "train %D/p.conf -c %D/p.conf", 2, "p.conf:2: unknown setting 'colour'"},
    {"config value not a number", "clean", NO_SETUP, {{"p.conf", "topics = -3\n", 0, 0}}, NULL,
     "train %D/p.conf -c %D/p.conf", 2, "p.conf:1: topics: expected an integer"},
    {"config file binary", "7: echoed raw", NO_SETUP, {{"p.conf", "\x7f" "ELF\x02\x01\x01\x1b[31m\n", 0, 0}},
     NULL, "train %D/p.conf -c %D/p.conf", 2, "p.conf:1: expected 'key = value', got '\\x7fELF\\x02"},
    {"config value quoted, unterminated", "29.11: the quoted form", NO_SETUP, {{"p.conf", "output = \"a b\n", 0, 0}},
     NULL, "train %D/p.conf -c %D/p.conf", 2, "p.conf:1: output: a quoted value without its closing quote"},
    {"config value quoted, unknown escape", "29.11: the quoted form", NO_SETUP,
     {{"p.conf", "output = \"a\\qb\"\n", 0, 0}}, NULL, "train %D/p.conf -c %D/p.conf", 2,
     "p.conf:1: output: unknown escape '\\q' in a quoted value"},
    {"config value quoted, then more", "29.11: the quoted form", NO_SETUP, {{"p.conf", "output = \"a\" b\n", 0, 0}},
     NULL, "train %D/p.conf -c %D/p.conf", 2, "p.conf:1: output: text after the closing quote"},
    {"config missing", "clean", NO_SETUP, {{0}}, NULL, "train x -c %D/none.conf", 2, "none.conf: No such file"},
    {"config an endless device", "29.7: trained with defaults", NO_SETUP, {{0}}, NULL, "train x -c /dev/zero", 2,
     "/dev/zero: not a regular file (a device); a configuration must be a file"},
    {"config a corpus given by mistake", "29.7: read whole", NO_SETUP, {{"big.conf", NULL, 2 << 20, 0}}, NULL,
     "train x -c %D/big.conf", 2, "big.conf: 2 MiB, more than a configuration file holds (at most 1024 KiB)"},
    {"topics out of range", "clean", NO_SETUP, {{0}}, NULL, "train x -K 0", 2, "-K/--topics: expected an integer"},
    {"memory limit malformed", "4: the new budget", NO_SETUP, {{"c", "alpha beta\n", 0, 0}}, "LDAGPU_MEMORY_LIMIT=1T", TRAIN,
     2, "LDAGPU_MEMORY_LIMIT: expected a number of bytes"},
    {"output a file", "2: found out after training", NO_SETUP, {{"c", "alpha beta\nbeta gamma\n", 0, 0},
     {"afile", "x\n", 0, 0}}, NULL, "train %D/c -o %D/afile", 2, "-o %D/afile: it exists and is not a folder"},
    {"output under a file", "2: found out after training", NO_SETUP, {{"c", "alpha beta\n", 0, 0},
     {"afile", "x\n", 0, 0}}, NULL, "train %D/c -o %D/afile/m", 1, "Not a directory"},
    /* ---- model folders ---- */
    {"no model folder", "clean", NO_SETUP, {{0}}, NULL, "topics %D/none", 2, "none/model.conf: No such file"},
    {"model.conf value malformed", "clean", TINY_MODEL,
     {{"m/model.conf", "format_version = 1\ntopics = two\n", 0, 0}}, NULL, "topics %D/m", 2,
     "m/model.conf:2: topics: expected an integer"},
    {"model.conf newer format", "clean", TINY_MODEL, {{"m/model.conf", "format_version = 2\n", 0, 0}}, NULL,
     "topics %D/m", 2, "m/model.conf:1: model format version 2"},
    {"model.conf empty", "clean", TINY_MODEL, {{"m/model.conf", "", 0, 0}}, NULL, "topics %D/m", 2,
     "not an ldagpu model"},
    {"phi.npy not a matrix", "clean", TINY_MODEL, {{"m/phi.npy", "hello", 0, 0}}, NULL, "topics %D/m", 2,
     "m/phi.npy: neither a .npy file nor an ldagpu matrix file"},
    {"phi.npy cut short", "clean", TINY_MODEL, {{"m/phi.npy", ONE_PHI, 100, 0}}, NULL, "topics %D/m", 2,
     "m/phi.npy: truncated"},
    {"phi.npy claiming 2^62 values", "fuzzing: allocated before reading", TINY_MODEL,
     {{"m/phi.npy", "LDAGPUMX\x01\0\0\0\x01\0\0\0\xff\xff\xff\xff\xff\xff\xff\x1f\x02\0\0\0\0\0\0\0"
       "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 64, 0}}, NULL,
     "topics %D/m", 2, "m/phi.npy: truncated (expected 4611686018427387902 values)"},
    {"phi.npy of integers", "clean", TINY_MODEL, {{"m/phi.npy", U32_PHI, 160, 0}}, NULL, "topics %D/m", 2,
     "m/phi.npy: element type 2, expected 1"},
    {"phi.npy of NaN", "6: accepted, NaN printed", TINY_MODEL, {{"m/phi.npy", NAN_PHI, 160, 0}}, NULL,
     "infer %D/m %D/tiny.ldac --device cpu", 2, "m/phi.npy: the value at row 0, column 0 is not a finite number"},
    {"vocab.txt short", "clean", TINY_MODEL, {{"m/vocab.txt", "apple\n", 0, 0}}, NULL, "topics %D/m", 2,
     "expected 12 words (model.conf says so), found 1"},
    {"log.csv not numbers", "clean", TINY_MODEL, {{"m/log.csv", "iteration,seconds\n1,fast\n", 0, 0}}, NULL,
     "train --resume %D/m -n 1 --device cpu", 2, "m/log.csv:2: seconds: not a number"},
    {"manifest.txt not a list of files", "clean", TINY_MODEL, {{"m/manifest.txt", "# files\nphi.npy\n", 0, 0}}, NULL,
     "topics %D/m", 2, "m/manifest.txt:2: expected 'CRC SIZE NAME'"},
    {"model.conf doc_topics malformed", "clean", TINY_MODEL,
     {{"m/model.conf", "format_version = 1\ndoc_topics = top:0\n", 0, 0}}, NULL, "topics %D/m", 2,
     "m/model.conf:2: doc_topics: expected top:N with N from 1 to 1048576, got 'top:0'"},
    {"doc_topics_index.npy topic beyond K", "clean", TINY_TOP_MODEL,
     {{"m/doc_topics_index.npy", TOP_INDEX_7, 384, 0}}, NULL, "report %D/m -o %D/r.html", 2,
     "m/doc_topics_index.npy: topic 7 at row 0 is not below K = 2"},
    {"--docs index beyond the corpus", "clean", TINY_MODEL, {{"docs.txt", "0\n64\n", 0, 0}}, NULL,
     "eval %D/m %D/tiny.ldac --docs %D/docs.txt --device cpu", 2, "docs.txt:2: expected a document index from 0 to 63"},
    {"--doc-names of a corpus without names", "clean", TINY_MODEL, {{"n.txt", "doc1\n", 0, 0}}, NULL,
     "eval %D/m %D/tiny.ldac --doc-names %D/n.txt --device cpu", 2,
     "--doc-names: the documents of %D/tiny.ldac have no names"},
    {"infer output in a missing folder", "29.16: named the temporary file", TINY_MODEL, {{0}}, NULL,
     "infer %D/m %D/tiny.ldac -o %D/no/such/theta.tsv --device cpu", 1,
     "cannot write %D/no/such/theta.tsv: No such file or directory"},
    /* ---- a model's files against its model.conf and each other (issue 29: 2, 9, 14) ---- */
    {"phi.npy negative", "29.9: loglik -nan, exit 0", TINY_MODEL, {{0}}, NULL, "eval %D/m %D/tiny.ldac --device cpu",
     2, "m/phi.npy: the value at row 0, column 0 is -1, not a probability (from 0 to 1)", {{"m/phi.npy", 0, F_MINUS_1, 0}}},
    {"phi.npy of 1e38", "29.9: a positive log-probability", TINY_MODEL, {{0}}, NULL,
     "eval %D/m %D/tiny.ldac --device cpu", 2, "m/phi.npy: the value at row 1, column 3 is 1e+38, not a probability",
     {{"m/phi.npy", 15, F_1E38, 0}}},
    {"phi.npy row not summing to 1", "29.9: accepted", TINY_MODEL, {{0}}, NULL, "topics %D/m", 2,
     "m/phi.npy: row 0 sums to", {{"m/phi.npy", 0, F_0_9, 0}}},
    {"theta.npy row not summing to 1", "29.9: accepted", TINY_MODEL, {{0}}, NULL,
     "export %D/m --output-doc-topics %D/dt.txt", 2, "m/theta.npy: row 0 sums to", {{"m/theta.npy", 0, F_0_9, 0}}},
    {"top:1 weight above 1", "29.9: accepted", TINY_TOP_MODEL, {{0}}, NULL, "report %D/m -o %D/r.html", 2,
     "m/doc_topics_weight.npy: the value at row 0, column", {{"m/doc_topics_weight.npy", 0, F_1_5, 0}}},
    {"top:2 topic twice in a row", "29.9: accepted", TINY_TOP_ALL_MODEL, {{0}}, NULL, "report %D/m -o %D/r.html", 2,
     "m/doc_topics_index.npy: topic 0 is in row 0 twice", {{"m/doc_topics_index.npy", 0, 0, 0},
     {"m/doc_topics_index.npy", 1, 0, 0}}},
    {"sparse theta row summing above 1", "29.9: accepted", TINY_SPARSE_MODEL, {{0}}, NULL, "report %D/m -o %D/r.html",
     2, "m/theta_data.npy: row 0 sums to", {{"m/theta_data.npy", 0, F_0_9, 0}}},
    {"documents = 2^64 - 1 with sparse theta", "29.14: out-of-bounds read (ASan)", TINY_SPARSE_MODEL,
     {{"m/model.conf", "documents = 18446744073709551615\n", 0, APPENDED}}, NULL, "report %D/m -o %D/r.html", 2,
     "documents: expected an integer from 0 to 1099511627776"},
    {"documents = 2^40 with no theta, no corpus", "fuzzing: report looped over 2^40 rows", TINY_NO_THETA_MODEL,
     {{"m/model.conf", "documents = 1099511627776\ncorpus = %D/none.ldac\n", 0, APPENDED}}, NULL,
     "report %D/m -o %D/r.html", 0, "warning: %D/none.ldac: No such file or directory; the page has no coherence"},
    {"heldout_documents above documents", "29.9: accepted", TINY_MODEL,
     {{"m/model.conf", "heldout_documents = 65\n", 0, APPENDED}}, NULL, "topics %D/m", 2,
     "m/model.conf: heldout_documents = 65 is more than its documents (64)"},
    {"topic_tokens not the tokens", "29.9: accepted", TINY_MODEL, {{0}}, NULL, "topics %D/m", 2,
     "m/topic_tokens.npy: the topics hold", {{"m/topic_tokens.npy", 0, 0x100, 1}}},
    {"z beyond K, its checksum kept", "29.2: SIGSEGV in export --counts", TINY_MODEL, {{0}}, NULL,
     "export %D/m --counts %D/cnt", 2, "m/z.npy does not match the z_checksum of its model.conf",
     {{"m/z.npy", 0, 7, 0}}},
    {"z beyond K, no checksum", "29.2: SIGSEGV in export --counts", TINY_MODEL,
     {{"m/model.conf", "z_checksum = 0\n", 0, APPENDED}}, NULL, "export %D/m --counts %D/cnt", 2,
     "m/z.npy: topic 7 of token 0 is not below K = 2", {{"m/z.npy", 0, 7, 0}}},
    {"z not topic_tokens", "29.2: accepted", TINY_MODEL, {{"m/model.conf", "z_checksum = 0\n", 0, APPENDED}}, NULL,
     "export %D/m --counts %D/cnt", 2, "where topic_tokens says", {{"m/z.npy", 0, 1, 1}}},
    {"documents fewer than z's", "29.2: writes past its buffers", TINY_MODEL,
     {{"m/model.conf", "documents = 3\n", 0, APPENDED}}, NULL, "export %D/m --counts %D/cnt", 2,
     "tiny.ldac: 64 documents and 352 tokens to train on, where %D/m was trained on 3 documents and 352 tokens"},
    {"learned alpha negative", "29.9: negative topic proportions", TINY_LEARNED_MODEL, {{0}}, NULL,
     "infer %D/m %D/tiny.ldac --device cpu", 2, "m/alpha.npy: the learned alpha of topic 0 is -1; it must be positive",
     {{"m/alpha.npy", 0, F_MINUS_1, 0}}},
    {"alpha negative in model.conf", "clean", TINY_MODEL, {{"m/model.conf", "alpha = -1\n", 0, APPENDED}}, NULL,
     "infer %D/m %D/tiny.ldac --device cpu", 2, "alpha: expected a number > 0, got '-1'"},
    {"vocab.txt word twice", "29.10: refused later, naming no file", TINY_MODEL, {{"m/vocab.txt", TINY_WORDS_BUT("apple"), 0, 0}},
     NULL, "topics %D/m", 2, "m/vocab.txt:12: the word 'apple' is also on line 1; a vocabulary lists each word once"},
    {"vocab.txt word with a tab", "29.15: tabs shift TSV and Mallet columns", TINY_MODEL,
     {{"m/vocab.txt", TINY_WORDS_BUT("ge\tar"), 0, 0}}, NULL, "export %D/m --output-topic-keys %D/k.txt", 2,
     "m/vocab.txt:12: the word 'ge\tar' contains a tab; vocabulary words may not contain"},
    {"log.csv iteration nan", "29.14: UB cast in train_log.c (UBSan)", TINY_MODEL,
     {{"m/log.csv", "iteration,seconds\nnan,1\n", 0, 0}}, NULL, "report %D/m -o %D/r.html", 2,
     "m/log.csv:2: iteration: expected a count"},
    {"export --counts into a file", "29.15: exit 1", TINY_MODEL, {{"afile", "x\n", 0, 0}}, NULL,
     "export %D/m --counts %D/afile", 2, "--counts %D/afile: it exists and is not a folder"},
    /* ---- the training corpus read again (issue 29: 1) ---- */
    {"report: documents appended to the corpus", "29.1: heap overflow in report_data.c", TINY_MODEL,
     {{"tiny.ldac", "1 0:1\n", 0, APPENDED}}, NULL, "report %D/m -o %D/r.html", 2,
     "tiny.ldac: 65 documents and 353 tokens to train on, where %D/m was trained on 64 documents and 352 tokens"},
    {"pyldavis: a bigger corpus given", "29.1: out-of-bounds θ rows, exit 0", TINY_MODEL,
     {{"c.ldac", FIVE("1 0:1\n1 1:1\n1 2:1\n1 3:1\n1 4:1\n1 5:1\n1 6:1\n1 7:1\n1 8:1\n1 9:1\n1 10:1\n1 11:1\n1 0:2\n1 1:2\n"), 0, 0},
      {"c.vocab", TINY_WORDS_BUT("gear"), 0, 0}}, NULL, "export %D/m --pyldavis %D/p.json --corpus %D/c.ldac", 2,
     "c.ldac: 70 documents and 80 tokens to train on, where %D/m was trained on 64 documents and 352 tokens"},
    {"coherence: documents appended to the corpus", "29.1: warned only", TINY_MODEL,
     {{"tiny.ldac", "1 0:1\n", 0, APPENDED}}, NULL, "topics %D/m --coherence", 2,
     "tiny.ldac: 65 documents and 353 tokens to train on, where %D/m was trained on 64 documents"},
    /* ---- vocabularies train takes in (issue 29: 10) ---- */
    {"uci vocabulary word twice", "29.10: a model the other commands refuse", NO_SETUP,
     {{"docword.c.txt", "1\n2\n1\n1 1 2\n", 0, 0}, {"vocab.c.txt", "alpha\nalpha\n", 0, 0}}, NULL,
     "train %D/docword.c.txt -o %D/out", 2, "vocab.c.txt:2: the word 'alpha' is also on line 1"},
    {"ldac vocabulary word with a tab", "29.10: a model the other commands refuse", NO_SETUP,
     {{"c.ldac", "1 0:1\n1 1:1\n", 0, 0}, {"c.vocab", "al\tpha\nbeta\n", 0, 0}}, NULL, "train %D/c.ldac -o %D/out",
     2, "c.vocab:1: the word 'al\tpha' contains a tab"},
    {"ldac vocabulary word with a carriage return", "29.10: a model the other commands refuse", NO_SETUP,
     {{"c.ldac", "1 0:1\n1 1:1\n", 0, 0}, {"c.vocab", "alpha\nbe\rta\n", 0, 0}}, NULL, "train %D/c.ldac -o %D/out",
     2, "c.vocab:2: the word 'be\\x0dta' contains a carriage return"},
    {"format: vocabulary word twice", "29.10: a binary corpus the other commands refuse", NO_SETUP,
     {{"docword.c.txt", "1\n2\n1\n1 1 2\n", 0, 0}, {"vocab.c.txt", "alpha\nalpha\n", 0, 0}}, NULL,
     "format %D/docword.c.txt -o %D/c.ldab", 2, "vocab.c.txt:2: the word 'alpha' is also on line 1"},
    /* ---- messages (issue 29: 14, 16) ---- */
    {"binary: cut inside its header", "29.16: called not a binary corpus", NO_SETUP,
     {{"c", "LDAGPUCB\x01\x00", 10, 0}}, NULL, TRAIN "-f binary", 2,
     "c: truncated: 10 bytes, fewer than the 64-byte header and the checksum of a binary corpus"},
    /* UTF-16 text and a gzip-compressed binary corpus: the rows of "not text" above. */
};
#pragma GCC diagnostic pop

/* text with every %D replaced by dir (malloc'ed). */
static char *expand(const char *text, const char *dir)
{
    size_t n = 0, dl = strlen(dir);
    for (const char *p = text; *p; p++)
        n += p[0] == '%' && p[1] == 'D' ? dl : 1;
    char *out = malloc(n + 1), *o = out;
    cr_assert(out);
    for (const char *p = text; *p; p++) {
        if (p[0] == '%' && p[1] == 'D') {
            memcpy(o, dir, dl);
            o += dl;
            p++;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* Applies p to its .npy file in dir: the value after the magic, the version, the 16-bit header
 * length and the header. */
static void poke_npy(const char *dir, const poke *p)
{
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/%s", dir, p->name) > 0);
    FILE *f = fopen(path, "r+b");
    cr_assert(f, "no %s", path);
    unsigned char preamble[10];
    cr_assert_eq(fread(preamble, sizeof preamble, 1, f), 1);
    cr_assert_eq(memcmp(preamble + 1, "NUMPY", 5), 0, "%s is not a .npy file", path);
    const long at = 10 + (preamble[8] | preamble[9] << 8) + 4 * p->index;
    uint32_t v;
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    cr_assert_eq(fread(&v, sizeof v, 1, f), 1, "%s has no value %ld", path, p->index);
    v = p->flip ? v ^ p->bits : p->bits;
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    cr_assert_eq(fwrite(&v, sizeof v, 1, f), 1);
    fclose(f);
    free(path);
}

enum { NUM_ROWS = sizeof rows / sizeof rows[0] };
static size_t row_index[NUM_ROWS];

/* Criterion runs each case in a process of its own, where the rows' pointers would not hold:
 * a case gets the index of its row. */
ParameterizedTestParameters(malformed, input)
{
    for (size_t i = 0; i < NUM_ROWS; i++)
        row_index[i] = i;
    return cr_make_param_array(size_t, row_index, NUM_ROWS);
}

ParameterizedTest(size_t *index, malformed, input)
{
    const malformed *row = &rows[*index];
    char *dir = test_tmpdir(), *out = NULL;
    if (row->setup != NO_SETUP) {
        char *c = test_tiny_corpus(dir), args[4096];
        snprintf(args, sizeof args, "train '%s' -K 2 -n 2 -q --device cpu -o '%s/m'%s", c, dir,
                 setup_options[row->setup]);
        cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
        free(out);
        free(c);
    }
    for (int i = 0; i < 3 && row->files[i].name; i++) {
        const input_file *f = &row->files[i];
        char *name = expand(f->name, dir), *path = NULL, *text = f->len ? NULL : expand(f->content, dir);
        cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
        char *filler = f->content ? NULL : malloc(f->len); /* no content: len bytes of one letter */
        if (filler)
            memset(filler, 'a', f->len);
        const char *bytes = text ? text : f->content ? f->content : filler;
        const size_t len = text ? strlen(text) : f->len;
        if (f->how == GZIPPED) {
            gzFile g = gzopen(path, "wb");
            cr_assert(g && gzwrite(g, bytes, (unsigned)len) == (int)len && gzclose(g) == Z_OK, "%s", path);
        } else {
            FILE *fp = fopen(path, f->how == APPENDED ? "ab" : "wb");
            cr_assert(fp, "%s", path);
            fwrite(bytes, 1, len, fp);
            fclose(fp);
        }
        free(filler);
        free(text);
        free(path);
        free(name);
    }
    for (int i = 0; i < 2 && row->pokes[i].name; i++)
        poke_npy(dir, &row->pokes[i]);
    if (row->setup != NO_SETUP && !(row->files[0].name && strstr(row->files[0].name, "manifest.txt"))) {
        /* What the readers' own checks say: a model folder as an older ldagpu wrote it, without
         * the manifest that would refuse any file changed here first (model/manifest.h). */
        char *manifest = NULL;
        cr_assert(asprintf(&manifest, "%s/m/manifest.txt", dir) > 0);
        unlink(manifest);
        free(manifest);
    }
    if (row->env) {
        char *env = strdup(row->env), *eq = strchr(env, '=');
        *eq = '\0';
        cr_assert_eq(setenv(env, eq + 1, 1), 0);
        free(env);
    }
    char *args = expand(row->args, dir), *needle = expand(row->needle, dir);
    int rc = test_run_ldagpu_within(args, 30, &out);
    cr_assert_eq(rc, row->status, "%s (%s): ldagpu %s: exit %d, expected %d: %s", row->what, row->finding, args, rc,
                 row->status, out);
    cr_assert(strstr(out, needle), "%s (%s): ldagpu %s: '%s' not in: %s", row->what, row->finding, args, needle,
              out);
    if (row->status != 0)
        cr_assert(strchr(out, '\n') == out + strlen(out) - 1, "%s: not one line: %s", row->what, out);
    free(out);
    free(args);
    free(needle);
    test_rmdir(dir);
    free(dir);
}

/* docs/malformed-input.md lists every row (its second part is scripts/malformed-table.py's
 * output): a row added here and not there fails. */
Test(malformed, every_row_is_in_the_document)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/malformed-input.md", test_root());
    char *doc = test_read_file(path);
    cr_assert(doc, "no %s", path);
    for (size_t i = 0; i < NUM_ROWS; i++) {
        char cell[512];
        snprintf(cell, sizeof cell, "\n| %s | `ldagpu ", rows[i].what);
        cr_assert(strstr(doc, cell), "row '%s' is not in %s: run scripts/malformed-table.py", rows[i].what, path);
    }
    free(doc);
}
