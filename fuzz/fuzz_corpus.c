/* fuzz_corpus.c — the text corpus readers in every format and through detection, with their own
 * vocabulary or a model's fixed one (the binary reader has its own target, fuzz_binary.c). Input:
 * byte 0 picks the format (bits 0-1: auto, text, uci, ldac; bit 2 set: mallet or named, by bit 0),
 * whether the vocabulary is fixed and, for text, the tokenizer (bit 6: a token pattern with the
 * case kept, or pretokenized, by bit 7); byte 1 is the length of the vocabulary file, taken
 * from the end; the rest is the corpus. A text format named explicitly is read with --force-text,
 * so that the tokenizers see any bytes; auto goes through the not-text check (text_sniff.h). */
#include "fuzz_input.h"

#include "corpus/corpus_read.h"

static char *fixed_words[] = {"alpha", "beta", "gamma", "delta"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready++)
        fuzz_setup();
    if (size < 2)
        return 0;
    uint8_t mode = data[0];
    size_t vocab_len = data[1] < size - 2 ? data[1] : size - 2;
    fuzz_file text, vocab;
    fuzz_file_open(&text, data + 2, size - 2 - vocab_len);
    fuzz_file_open(&vocab, data + size - vocab_len, vocab_len);
    corpus_options opt;
    corpus_options_default(&opt);
    opt.format = mode & 0x04 ? (mode & 1 ? CORPUS_FORMAT_NAMED : CORPUS_FORMAT_MALLET)
                             : (corpus_format)(mode % CORPUS_FORMAT_BINARY); /* the formats before it */
    opt.vocab_path = vocab.path;
    opt.force_text = corpus_format_is_text(opt.format);
    opt.min_df = 1 + (mode >> 4 & 1);
    opt.min_word_len = 1 + (mode >> 5 & 1);
    opt.stopwords_path = mode & 0x80 ? "none" : NULL;
    if (mode & 0x40) {
        opt.token_pattern = mode & 0x80 ? "[\\p{L}\\p{N}_+-]+" : NULL;
        opt.pretokenized = !(mode & 0x80);
        opt.lowercase = !(mode & 0x80);
    }
    if (mode & 0x08) {
        opt.fixed_vocab = fixed_words;
        opt.fixed_vocab_size = 4;
    }
    lda_error err = {0};
    fuzz_check_read(corpus_read(text.path, &opt, &err), &err);
    fuzz_file_close(&text);
    fuzz_file_close(&vocab);
    return 0;
}
