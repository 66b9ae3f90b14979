/* corpus_text.c — raw text, one document per line (less a named format's fields, text_fields.h).
 *
 * What a word is: by default the built-in tokenizer below; with a token pattern, the pattern's
 * matches (token_pattern.h); pretokenized, what whitespace separates (pretokenized.h). Those
 * two count a word's characters (lda_utf8_chars) for min_word_len, and a NUL byte splits what
 * they find (vocabulary words are C strings). Words are lowercased unless
 * opt->lowercase is 0; stop words match whatever the case (a word kept in its case is a stop
 * word when its lowercase form is one, found once for each new word).
 *
 * Built-in tokenizer (UTF-8): a word is a letter (Unicode general category L*, any script) followed by
 * letters and combining marks (M*: accents written apart, the vowel signs of Indic scripts),
 * lowercased by the simple Unicode mapping (unicode.h), a final σ written ς. Everything else
 * separates words: digits, punctuation, spaces, symbols, and each byte that does not start a
 * valid UTF-8 sequence (so invalid input reads the same every time, as if those bytes were
 * spaces). ASCII text tokenizes as it always has: runs of a-z, A-Z. Words of fewer than
 * min_word_len letters (characters, not bytes; marks not counted) and stop words are
 * dropped. Runs of letters of scripts written without spaces (Chinese, Japanese, Thai) are
 * single words: such text must be segmented beforehand. One pass reads the file and gives each word a provisional id (its first
 * appearance) while counting its total occurrences and document frequency; then pruning
 * picks the vocabulary (min_df, max_df, max_vocab), sorts it alphabetically so ids do not
 * depend on document order, and the tokens are rewritten in place.
 *
 * Stop words are put into the word map first, so they own the lowest provisional ids and a
 * single lookup per token both finds the word and tells whether it is a stop word.
 *
 * With a fixed vocabulary the map holds the vocabulary's words with their own ids (stop
 * words after them) and nothing is pruned. A vocabulary word is kept even if it is a stop
 * word or short: the model knows it, so using it can only help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_binary.h"
#include "corpus/corpus_internal.h"
#include "corpus/pretokenized.h"
#include "corpus/stopwords.h"
#include "corpus/text_fields.h"
#include "corpus/token_pattern.h"
#include "corpus/unicode.h"
#include "util/gzlines.h"

typedef struct {
    size_t count;    /* occurrences in the whole corpus */
    size_t df;       /* documents containing the word */
    size_t last_doc; /* 1 + the last document counted in df (0: none yet) */
} word_stats;

typedef struct {
    const corpus_options *opt;
    strmap *words;
    corpus_builder b;
    /* Provisional ids below stop_end are stop words. With a fixed vocabulary, ids below
     * vocab_end are its words and the stop words come after. */
    uint32_t stop_end, vocab_end;
    word_stats *stats; /* by provisional id; not used with a fixed vocabulary */
    size_t stats_cap;
    /* Where the words went, for the note on an empty corpus. */
    size_t words_seen, too_short, stop_words, unknown, pruned;
    size_t *input_unknown, input_unknown_cap; /* fixed vocabulary: unknown tokens by input document */
    char *word;      /* the current word, lowercased (its UTF-8 may be longer than the input's) */
    size_t word_cap;
    token_pattern *pattern; /* opt->token_pattern compiled; NULL: not a pattern */
    size_t doc;             /* the document of the words a pattern or whitespace finds */
    int line_has_nul;       /* whether their line holds a NUL byte (which splits words) */
    /* Words kept in their case: whether each word id (>= stop_end) is a stop word lowercased. */
    unsigned char *cased_stop;
    size_t cased_stop_cap;
    char *lower; /* room for a word lowercased, to look it up among the stop words */
    size_t lower_cap;
} text_reader;

/* Grows *array of *cap elements of `size` bytes to hold at least `need`, doubling from
 * `first`; the new elements are zero. */
static int grow_zeroed(void **array, size_t *cap, size_t need, size_t size, size_t first, const char *what,
                       lda_error *err)
{
    size_t n = *cap ? *cap : first;
    while (n < need)
        n *= 2;
    char *grown = realloc(*array, n * size);
    if (!grown) {
        lda_error_fail(err, "out of memory (%s of %zu)", what, n);
        return -1;
    }
    memset(grown + *cap * size, 0, (n - *cap) * size);
    *array = grown;
    *cap = n;
    return 0;
}

static int grow_stats(text_reader *t, size_t need, lda_error *err)
{
    return grow_zeroed((void **)&t->stats, &t->stats_cap, need, sizeof *t->stats, 4096, "word statistics", err);
}

/* A word of `letters` letters of document doc, building the corpus's own vocabulary. */
static inline int take_word(text_reader *t, const char *w, size_t len, size_t letters, size_t doc, lda_error *err)
{
    if (letters < (size_t)t->opt->min_word_len) {
        t->too_short++;
        return 0;
    }
    uint32_t id;
    if (strmap_intern(t->words, w, len, &id, err) < 0)
        return -1;
    if (id < t->stop_end) {
        t->stop_words++;
        return 0;
    }
    if (id >= t->stats_cap && grow_stats(t, (size_t)id + 1, err) < 0)
        return -1;
    word_stats *s = &t->stats[id];
    s->count++;
    if (s->last_doc != doc + 1) {
        s->last_doc = doc + 1;
        s->df++;
    }
    return corpus_builder_add(&t->b, id, 1, err);
}

/* Whether w, lowercased, is a stop word (which the map holds from vocab_end to stop_end). */
static int is_stop_word_lowercased(text_reader *t, const char *w, size_t len, lda_error *err)
{
    if (lda_utf8_lower_room(&t->lower, &t->lower_cap, len, err) < 0)
        return -1;
    uint32_t id;
    return strmap_find(t->words, t->lower, lda_utf8_lower(w, len, t->lower, NULL), &id) && id >= t->vocab_end &&
           id < t->stop_end;
}

/* take_word for words kept in their case: a new word is looked up lowercased among the stop
 * words once, and what it was remembered by its id; a word that is not a stop word is then
 * take_word's (a second lookup, which the default, lowercased, path does not pay). */
static int take_cased_word(text_reader *t, const char *w, size_t len, size_t letters, size_t doc, lda_error *err)
{
    if (letters < (size_t)t->opt->min_word_len) {
        t->too_short++;
        return 0;
    }
    const uint32_t known = strmap_size(t->words);
    uint32_t id;
    if (strmap_intern(t->words, w, len, &id, err) < 0)
        return -1;
    if (id >= known) { /* new: its statistics (zero for a stop word: never in the vocabulary) and its flag */
        int stop = is_stop_word_lowercased(t, w, len, err);
        if (stop < 0 || (id >= t->stats_cap && grow_stats(t, (size_t)id + 1, err) < 0) ||
            (id >= t->cased_stop_cap && grow_zeroed((void **)&t->cased_stop, &t->cased_stop_cap, (size_t)id + 1, 1,
                                                    4096, "stop-word flags", err) < 0))
            return -1;
        t->cased_stop[id] = (unsigned char)stop;
    }
    if (id < t->stop_end || t->cased_stop[id]) {
        t->stop_words++;
        return 0;
    }
    return take_word(t, w, len, letters, doc, err);
}

/* Counts an unknown token of input document doc. */
static int count_unknown(text_reader *t, size_t doc, lda_error *err)
{
    if (doc >= t->input_unknown_cap &&
        grow_zeroed((void **)&t->input_unknown, &t->input_unknown_cap, doc + 1, sizeof *t->input_unknown, 1024,
                    "unknown-token counts of documents", err) < 0)
        return -1;
    t->input_unknown[doc]++;
    t->unknown++;
    return 0;
}

/* A word of `letters` letters of document doc, looked up in the fixed vocabulary. */
static inline int take_fixed_word(text_reader *t, const char *w, size_t len, size_t letters, size_t doc, lda_error *err)
{
    uint32_t id;
    int stop;
    if (strmap_find(t->words, w, len, &id)) {
        if (id < t->vocab_end)
            return corpus_builder_add(&t->b, id, 1, err);
        t->stop_words++;
    } else if (letters < (size_t)t->opt->min_word_len) {
        t->too_short++;
    } else if (!t->opt->lowercase && (stop = is_stop_word_lowercased(t, w, len, err)) != 0) {
        if (stop < 0)
            return -1;
        t->stop_words++;
    } else {
        return count_unknown(t, doc, err);
    }
    return 0;
}

/* A word of any tokenizer, `chars` characters long, of document doc. */
static inline int take(text_reader *t, const char *w, size_t len, size_t chars, size_t doc, lda_error *err)
{
    t->words_seen++;
    return t->opt->fixed_vocab ? take_fixed_word(t, w, len, chars, doc, err)
           : t->opt->lowercase ? take_word(t, w, len, chars, doc, err)
                               : take_cased_word(t, w, len, chars, doc, err);
}

/* A word as a pattern or whitespace found it, without a NUL byte, in document t->doc. */
static int take_found_word(text_reader *t, const char *w, size_t len, lda_error *err)
{
    size_t chars;
    if (t->opt->lowercase) { /* t->word holds twice the line (tokenize_line) */
        len = lda_utf8_lower(w, len, t->word, &chars);
        w = t->word;
    } else {
        chars = lda_utf8_chars(w, len);
    }
    return take(t, w, len, chars, t->doc, err);
}

/* What a pattern or whitespace found (token_fn): a NUL byte separates words, which the
 * vocabulary keeps as C strings. */
static int take_found(void *vt, const char *w, size_t len, lda_error *err)
{
    text_reader *t = vt;
    const char *nul;
    while (t->line_has_nul && (nul = memchr(w, '\0', len))) {
        if (nul > w && take_found_word(t, w, (size_t)(nul - w), err) < 0)
            return -1;
        len -= (size_t)(nul - w) + 1;
        w = nul + 1;
    }
    return len ? take_found_word(t, w, len, err) : 0;
}

/* The character at s[0..len): its length in bytes (1 for a byte that starts no valid UTF-8
 * sequence, which is no word character), its lowercase form (when lowercasing; else itself)
 * and what kind of word character it is. ASCII takes the short way. */
static inline size_t next_char(const char *s, size_t len, const int lowercase, uint32_t *lower, lda_word_kind *kind)
{
    unsigned char c = (unsigned char)s[0];
    if (c < 0x80) {
        int letter = (unsigned char)((c | 0x20) - 'a') < 26;
        *kind = letter ? LDA_LETTER : LDA_NOT_WORD;
        *lower = letter && lowercase ? (uint32_t)(c | 0x20) : c;
        return 1;
    }
    uint32_t cp;
    size_t n = lda_utf8_decode((const unsigned char *)s, len, &cp);
    if (n == 0) {
        *kind = LDA_NOT_WORD;
        *lower = 0xFFFD;
        return 1;
    }
    *kind = lda_unicode_word_kind(cp);
    *lower = *kind == LDA_LETTER && lowercase ? lda_unicode_lower(cp) : cp;
    return n;
}

/* The built-in tokenizer: splits a line into words (lowercased when `lowercase`, a constant at
 * each call so that the compiler makes the two loops) and takes each. */
static inline int tokenize_builtin(text_reader *t, const char *line, size_t len, size_t doc, const int lowercase,
                                   lda_error *err)
{
    int fixed = t->opt->fixed_vocab != NULL;
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        lda_word_kind kind;
        size_t n = next_char(line + i, len - i, lowercase, &cp, &kind);
        if (kind != LDA_LETTER) { /* a word starts with a letter */
            i += n;
            continue;
        }
        size_t bytes = 0, letters = 0, last = 0;
        uint32_t last_cp = 0;
        while (kind != LDA_NOT_WORD) {
            letters += kind == LDA_LETTER;
            last = bytes;
            last_cp = cp;
            bytes += lda_utf8_encode(cp, t->word + bytes);
            i += n;
            if (i == len)
                break;
            n = next_char(line + i, len - i, lowercase, &cp, &kind);
        }
        if (lowercase && last_cp == LDA_SMALL_SIGMA && letters > 1) /* σ ending a word is written ς */
            bytes = last + lda_utf8_encode(LDA_FINAL_SIGMA, t->word + last);
        int status;
        if (!lowercase) {
            status = take(t, t->word, bytes, letters, doc, err);
        } else {
            t->words_seen++;
            status = fixed ? take_fixed_word(t, t->word, bytes, letters, doc, err)
                           : take_word(t, t->word, bytes, letters, doc, err);
        }
        if (status < 0)
            return -1;
    }
    return 0;
}

/* Splits a line into words and takes each. */
static int tokenize_line(text_reader *t, const char *line, size_t len, size_t doc, lda_error *err)
{
    /* Room for any word of the line lowercased. */
    if (lda_utf8_lower_room(&t->word, &t->word_cap, len, err) < 0)
        return -1;
    t->doc = doc;
    t->line_has_nul = (t->pattern || t->opt->pretokenized) && memchr(line, '\0', len);
    if (t->pattern)
        return token_pattern_each(t->pattern, line, len, gzlines_path(t->b.src), gzlines_lineno(t->b.src), take_found,
                                  t, err);
    if (t->opt->pretokenized)
        return pretokenized_each(line, len, take_found, t, err);
    return t->opt->lowercase ? tokenize_builtin(t, line, len, doc, 1, err) : tokenize_builtin(t, line, len, doc, 0, err);
}

/* A file that is not UTF-8 text reads as an empty or a strange corpus; what its first line
 * shows is said instead: UTF-16 or UTF-32 (their byte-order marks), or a binary corpus that was
 * compressed (gzlines decompressed it, so its magic shows). */
static int refuse_not_text(const char *path, const char *line, size_t len, lda_error *err)
{
    static const struct {
        const char *start;
        size_t len;
        const char *what;
    } marks[] = {{"\xff\xfe\0\0", 4, "UTF-32"}, {"\0\0\xfe\xff", 4, "UTF-32"}, {"\xff\xfe", 2, "UTF-16"},
                 {"\xfe\xff", 2, "UTF-16"}};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (len >= marks[i].len && memcmp(line, marks[i].start, marks[i].len) == 0) {
            lda_error_input(err, "%s: %s text (it starts with a %s byte-order mark); ldagpu reads UTF-8: convert it "
                            "first (iconv -f %s -t UTF-8)", path, marks[i].what, marks[i].what, marks[i].what);
            return -1;
        }
    if (len >= 8 && memcmp(line, CORPUS_BINARY_MAGIC, 8) == 0) {
        lda_error_input(err, "%s: a compressed ldagpu binary corpus; a binary corpus is read uncompressed: decompress "
                        "it first", path);
        return -1;
    }
    return 0;
}

static int read_lines(text_reader *t, const char *path, lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return -1;
    t->b.src = r; /* a file of billions of words is refused when its tokens outgrow memory */
    char *line;
    size_t len;
    int failed = corpus_token_budget(&t->b.max_tokens, err) < 0;
    while (!failed && (line = gzlines_next(r, &len, err))) {
        const char *text; /* the line less a named format's fields (text_fields.h) */
        size_t text_len;
        failed = (gzlines_lineno(r) == 1 && refuse_not_text(path, line, len, err) < 0) ||
                 text_fields_take(t->b.c, t->opt->format, r, line, len, &text, &text_len, err) < 0 ||
                 tokenize_line(t, text, text_len, t->b.c->num_input_docs, err) < 0 ||
                 corpus_builder_end_doc(&t->b, err) < 0;
    }
    failed = failed || gzlines_failed(r);
    t->b.src = NULL;
    gzlines_close(r);
    return failed ? -1 : 0;
}

typedef struct {
    const char *word;
    size_t count;
    uint32_t id;
} ranked_word;

static int by_count_then_word(const void *a, const void *b)
{
    const ranked_word *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->word, y->word);
}

static int by_word(const void *a, const void *b)
{
    return strcmp(((const ranked_word *)a)->word, ((const ranked_word *)b)->word);
}

/* The words that survive min_df, max_df and max_vocab, alphabetically; *n gets how many. */
static ranked_word *choose_vocabulary(const text_reader *t, size_t *n, lda_error *err)
{
    uint32_t size = strmap_size(t->words);
    ranked_word *kept = lda_malloc_array(size, sizeof *kept, "the vocabulary", err);
    if (!kept)
        return NULL;
    double max_docs = t->opt->max_df * (double)t->b.c->num_input_docs;
    size_t k = 0;
    for (uint32_t id = t->stop_end; id < size; id++) {
        const word_stats *s = &t->stats[id];
        if (s->df >= t->opt->min_df && (double)s->df <= max_docs)
            kept[k++] = (ranked_word){strmap_key(t->words, id), s->count, id};
    }
    if (t->opt->max_vocab > 0 && k > t->opt->max_vocab) {
        qsort(kept, k, sizeof *kept, by_count_then_word);
        k = t->opt->max_vocab;
    }
    qsort(kept, k, sizeof *kept, by_word);
    *n = k;
    return kept;
}

/* Prunes the vocabulary and rewrites the tokens with the final (alphabetical) ids. */
static int prune_vocabulary(text_reader *t, lda_error *err)
{
    size_t n;
    ranked_word *kept = choose_vocabulary(t, &n, err);
    if (!kept)
        return -1;
    corpus *c = t->b.c;
    uint32_t *map = lda_malloc_array(strmap_size(t->words), sizeof *map, "a vocabulary map", err);
    c->vocab = lda_calloc(n, sizeof *c->vocab, "the vocabulary", err);
    int failed = !map || !c->vocab;
    for (size_t i = 0; !failed && i < n; i++) {
        c->vocab[i] = strdup(kept[i].word);
        if (!c->vocab[i]) {
            lda_error_fail(err, "out of memory (copying the vocabulary)");
            failed = 1;
        } else {
            c->vocab_size = (uint32_t)i + 1;
        }
    }
    if (!failed) {
        for (uint32_t id = 0; id < strmap_size(t->words); id++)
            map[id] = CORPUS_NO_WORD;
        for (size_t i = 0; i < n; i++)
            map[kept[i].id] = (uint32_t)i;
        t->pruned = corpus_remap_words(c, map, NULL);
    }
    free(map);
    free(kept);
    return failed ? -1 : 0;
}

/* The word map to start from: stop words alone, or the fixed vocabulary then stop words. */
static int load_word_map(text_reader *t, lda_error *err)
{
    const corpus_options *opt = t->opt;
    t->words = opt->fixed_vocab ? fixed_vocab_map(opt, err) : strmap_new(1 << 16, err);
    if (!t->words)
        return -1;
    t->vocab_end = strmap_size(t->words);
    stopword_list stop;
    if (stopword_list_load(&stop, opt, err) < 0)
        return -1;
    int failed = 0;
    for (size_t i = 0; !failed && i < stop.count; i++) {
        uint32_t id;
        failed = strmap_intern(t->words, stop.words[i], strlen(stop.words[i]), &id, err) < 0;
    }
    stopword_list_free(&stop);
    t->stop_end = strmap_size(t->words);
    return failed ? -1 : 0;
}

static void write_note(const text_reader *t, char note[CORPUS_NOTE_MAX])
{
    const corpus_options *opt = t->opt;
    int n = snprintf(note, CORPUS_NOTE_MAX, "of %zu words read, %zu were shorter than %d "
                     "letters, %zu stop words", t->words_seen, t->too_short, opt->min_word_len,
                     t->stop_words);
    if (n < 0 || n >= CORPUS_NOTE_MAX)
        return;
    if (opt->fixed_vocab)
        snprintf(note + n, CORPUS_NOTE_MAX - (size_t)n, ", %zu not in the fixed vocabulary",
                 t->unknown);
    else
        snprintf(note + n, CORPUS_NOTE_MAX - (size_t)n, ", %zu removed by min_df %zu / max_df "
                 "%g / max_vocab %zu", t->pruned, opt->min_df, opt->max_df, opt->max_vocab);
}

corpus *corpus_read_text(const char *path, const corpus_options *opt,
                         char note[CORPUS_NOTE_MAX], lda_error *err)
{
    text_reader t = {.opt = opt};
    if (opt->token_pattern && !(t.pattern = token_pattern_compile(opt->token_pattern, err)))
        return NULL;
    if (corpus_builder_init(&t.b, CORPUS_FORMAT_TEXT, err) < 0) {
        token_pattern_free(t.pattern);
        return NULL;
    }
    int failed = load_word_map(&t, err) < 0 || read_lines(&t, path, err) < 0;
    if (!failed && opt->fixed_vocab) {
        corpus *c = t.b.c;
        c->num_unknown_tokens = t.unknown;
        failed = !(c->input_unknown = lda_calloc(c->num_input_docs, sizeof *c->input_unknown, "unknown-token counts",
                                                 err)) ||
                 corpus_adopt_fixed_vocab(c, opt, err) < 0;
        for (size_t d = 0; !failed && d < c->num_input_docs && d < t.input_unknown_cap; d++)
            c->input_unknown[d] = t.input_unknown[d];
    } else if (!failed) {
        failed = prune_vocabulary(&t, err) < 0;
    }
    strmap_free(t.words);
    free(t.stats);
    free(t.input_unknown);
    free(t.word);
    free(t.cased_stop);
    free(t.lower);
    token_pattern_free(t.pattern);
    if (failed) {
        corpus_builder_discard(&t.b);
        return NULL;
    }
    write_note(&t, note);
    return corpus_builder_finish(&t.b);
}
