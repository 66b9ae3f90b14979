/* fuzz_corpus.c — the corpus readers in every format and through detection, with their own
 * vocabulary or a model's fixed one. Input: byte 0 picks the format (auto, text, uci, ldac)
 * and whether the vocabulary is fixed; byte 1 is the length of the vocabulary file, taken
 * from the end; the rest is the corpus. */
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
    opt.format = (corpus_format)(mode % CORPUS_FORMAT_COUNT);
    opt.vocab_path = vocab.path;
    opt.min_df = 1 + (mode >> 4 & 1);
    opt.min_word_len = 1 + (mode >> 5 & 3);
    opt.stopwords_path = mode & 0x80 ? "none" : NULL;
    if (mode & 0x08) {
        opt.fixed_vocab = fixed_words;
        opt.fixed_vocab_size = 4;
    }
    lda_error err = {0};
    corpus *c = corpus_read(text.path, &opt, &err);
    if (c) {
        /* What every reader promises (corpus.h). */
        size_t unknown = 0;
        for (size_t d = 0; c->input_unknown && d < c->num_input_docs; d++)
            unknown += c->input_unknown[d];
        if (c->num_tokens == 0 || c->doc_offsets[c->num_docs] != c->num_tokens ||
            c->num_docs + c->num_empty_docs != c->num_input_docs || (c->input_unknown && unknown != c->num_unknown_tokens))
            __builtin_trap();
        for (size_t i = 0; i < c->num_tokens; i++)
            if (c->words[i] >= c->vocab_size)
                __builtin_trap();
        corpus_free(c);
    } else if (!err.msg[0] || (err.status != LDA_EXIT_BAD_INPUT && err.status != LDA_EXIT_FAILURE)) {
        __builtin_trap(); /* a failure must say why */
    }
    fuzz_file_close(&text);
    fuzz_file_close(&vocab);
    return 0;
}
