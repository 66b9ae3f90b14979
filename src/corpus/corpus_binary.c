/* corpus_binary.c — writing and reading ldagpu's binary corpus; see corpus_binary.h.
 *
 * The arrays are the corpus struct's own (size_t offsets and indexes are 64-bit on the hosts
 * ldagpu builds for), so writing is one fwrite an array and reading one read an array into
 * its final buffer. Nothing is trusted before it is checked: the declared counts must add up
 * to the file's size before anything is allocated, and the contents are checked after the
 * checksum, so a file damaged on disk says "checksum" and a well-formed file with impossible
 * contents says which value is wrong. */
#include "corpus/corpus_binary.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "corpus/corpus_internal.h"
#include "corpus/text_fields.h"
#include "util/atomic_file.h"
#include "util/memory.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary corpus is written as the host lays out its arrays: a little-endian host"
#endif
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "offsets and indexes are written as the host's size_t");

enum {
    HEADER_BYTES_V1 = 64,
    HEADER_BYTES = 80, /* version 2: the name and label bytes */
    CHECKSUM_BYTES = 4,
    NOTE_MAX = 1 << 20,    /* a note is a few lines; more is a damaged header */
    READ_CHUNK = 8 << 20,  /* read and checksummed while still in cache */
};

typedef struct {
    uint32_t version, header_bytes, vocab_size, source_format;
    uint64_t num_input_docs, num_docs, num_tokens, vocab_bytes, note_bytes, names_bytes, labels_bytes;
} header;

static uint64_t pad8(uint64_t n)
{
    return (n + 7) & ~(uint64_t)7;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put_u64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The bytes after the header and the note, checksum included: what the counts declare. */
static uint64_t body_bytes(uint64_t docs, uint64_t tokens, uint64_t strings_bytes)
{
    return 8 * (docs + 1) + 8 * docs + 4 * tokens + strings_bytes + CHECKSUM_BYTES;
}

/* Version 1 while there are no names: a file older readers still read. */
static int has_names(const corpus_binary_shape *shape)
{
    return shape->names_bytes || shape->labels_bytes;
}

/* ---- writing ---- */

int corpus_binary_put(corpus_binary_writer *w, const void *data, size_t n, lda_error *err)
{
    if (n > w->expected - w->written) {
        lda_error_fail(err, "internal error: %s: more bytes than its header declares", w->path);
        return -1;
    }
    if (n == 0) /* crc32_z(crc, NULL, 0) would restart the checksum */
        return 0;
    if (fwrite(data, 1, n, w->f) != n) {
        lda_error_fail(err, "cannot write %s: %s", w->path, strerror(errno));
        return -1;
    }
    w->crc = (uint32_t)crc32_z(w->crc, data, n);
    w->written += n;
    return 0;
}

int corpus_binary_begin(corpus_binary_writer *w, FILE *f, const char *path, const corpus_binary_shape *shape,
                        const char *note, lda_error *err)
{
    const size_t note_len = note ? strlen(note) : 0;
    const uint32_t header_bytes = has_names(shape) ? HEADER_BYTES : HEADER_BYTES_V1;
    unsigned char h[HEADER_BYTES] = {0}, zeros[8] = {0};
    memcpy(h, CORPUS_BINARY_MAGIC, 8);
    put_u32(h + 8, has_names(shape) ? CORPUS_BINARY_VERSION : 1);
    put_u32(h + 12, header_bytes);
    put_u64(h + 16, shape->num_input_docs);
    put_u64(h + 24, shape->num_docs);
    put_u64(h + 32, shape->num_tokens);
    put_u32(h + 40, shape->vocab_size);
    put_u32(h + 44, (uint32_t)shape->source_format);
    put_u64(h + 48, shape->vocab_bytes);
    put_u64(h + 56, note_len);
    put_u64(h + 64, shape->names_bytes);
    put_u64(h + 72, shape->labels_bytes);
    *w = (corpus_binary_writer){f, path, (uint32_t)crc32_z(0, Z_NULL, 0), 0, 0};
    w->expected = header_bytes + pad8(note_len) +
                  body_bytes(shape->num_docs, shape->num_tokens,
                             shape->vocab_bytes + shape->names_bytes + shape->labels_bytes) - CHECKSUM_BYTES;
    return corpus_binary_put(w, h, header_bytes, err) || corpus_binary_put(w, note, note_len, err) ||
                   corpus_binary_put(w, zeros, pad8(note_len) - note_len, err)
               ? -1
               : 0;
}

int corpus_binary_end(corpus_binary_writer *w, lda_error *err)
{
    if (w->written != w->expected) {
        lda_error_fail(err, "internal error: %s: %llu bytes written, its header declares %llu", w->path,
                       (unsigned long long)w->written, (unsigned long long)w->expected);
        return -1;
    }
    unsigned char crc[CHECKSUM_BYTES];
    put_u32(crc, w->crc);
    if (fwrite(crc, 1, sizeof crc, w->f) != sizeof crc) {
        lda_error_fail(err, "cannot write %s: %s", w->path, strerror(errno));
        return -1;
    }
    return 0;
}

int corpus_binary_write(const char *path, const corpus *c, corpus_format source_format, const char *note,
                        lda_error *err)
{
    corpus_binary_shape shape = {c->num_input_docs, c->num_docs, c->num_tokens, c->vocab_size, 0, source_format,
                                 c->names ? c->names->size : 0, c->labels ? c->labels->size : 0};
    for (uint32_t w = 0; w < c->vocab_size; w++)
        shape.vocab_bytes += strlen(c->vocab[w]) + 1;
    lda_atomic_file af;
    if (lda_atomic_open(&af, path, err))
        return -1;
    corpus_binary_writer w;
    int failed = corpus_binary_begin(&w, af.f, path, &shape, note, err) ||
                 corpus_binary_put(&w, c->doc_offsets, (c->num_docs + 1) * sizeof(size_t), err) ||
                 corpus_binary_put(&w, c->input_index, c->num_docs * sizeof(size_t), err) ||
                 corpus_binary_put(&w, c->words, c->num_tokens * sizeof(uint32_t), err);
    for (uint32_t i = 0; i < c->vocab_size && !failed; i++)
        failed = corpus_binary_put(&w, c->vocab[i], strlen(c->vocab[i]) + 1, err);
    failed = failed || (c->names && corpus_binary_put(&w, c->names->bytes, c->names->size, err)) ||
             (c->labels && corpus_binary_put(&w, c->labels->bytes, c->labels->size, err));
    if (failed || corpus_binary_end(&w, err)) {
        lda_atomic_abort(&af);
        return -1;
    }
    return lda_atomic_commit(&af, err);
}

/* ---- reading ---- */

int corpus_binary_sniff(const char *path)
{
    char magic[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int is = fread(magic, 1, sizeof magic, f) == sizeof magic && memcmp(magic, CORPUS_BINARY_MAGIC, 8) == 0;
    fclose(f);
    return is;
}

/* An open binary corpus: its descriptor, size, and the running checksum of what was read. */
typedef struct {
    const char *path;
    int fd;
    uint64_t size;
    uint32_t crc;
    header h;
} source;

static int read_exactly(source *s, void *buf, size_t n, lda_error *err)
{
    for (size_t done = 0; done < n;) {
        ssize_t got = read(s->fd, (char *)buf + done, n - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0)
                lda_error_input(err, "%s: truncated (the file ended while being read)", s->path);
            else
                lda_error_input(err, "%s: %s", s->path, strerror(errno));
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

/* Reads n bytes into buf (NULL: read and discarded, for the note), adding them to the checksum
 * a chunk at a time while they are still in cache. */
static int take(source *s, void *buf, uint64_t n, lda_error *err)
{
    unsigned char scratch[16 * 1024];
    for (uint64_t done = 0; done < n;) {
        size_t chunk = buf ? (size_t)(n - done < READ_CHUNK ? n - done : READ_CHUNK)
                           : (size_t)(n - done < sizeof scratch ? n - done : sizeof scratch);
        unsigned char *at = buf ? (unsigned char *)buf + done : scratch;
        if (read_exactly(s, at, chunk, err))
            return -1;
        s->crc = (uint32_t)crc32_z(s->crc, at, chunk);
        done += chunk;
    }
    return 0;
}

static int damaged(const source *s, lda_error *err, const char *what)
{
    lda_error_input(err, "%s: damaged binary corpus: %s", s->path, what);
    return -1;
}

/* The header, checked against the file's size before anything is allocated from it. */
static int open_source(source *s, const char *path, lda_error *err)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    s->crc = (uint32_t)crc32_z(0, Z_NULL, 0);
    struct stat sb;
    if ((s->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(s->fd, &sb) != 0) {
        lda_error_input(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        lda_error_input(err, "%s: %s", path, S_ISDIR(sb.st_mode) ? strerror(EISDIR) : "not a regular file (a binary corpus is read by its size)");
        return -1;
    }
    s->size = (uint64_t)sb.st_size;
    unsigned char b[HEADER_BYTES] = {0};
    const uint64_t head = s->size < HEADER_BYTES_V1 ? s->size : HEADER_BYTES_V1, magic = head < 8 ? head : 8;
    if (take(s, b, head, err))
        return -1;
    if (head >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        lda_error_input(err, "%s is compressed with gzip: decompress it first (gunzip); a binary corpus is read "
                        "uncompressed", path);
        return -1;
    }
    if (head == 0 || memcmp(b, CORPUS_BINARY_MAGIC, magic)) {
        lda_error_input(err, "%s: not an ldagpu binary corpus (it does not start with the %d-byte header '%s')", path,
                        HEADER_BYTES_V1, CORPUS_BINARY_MAGIC);
        return -1;
    }
    if (s->size < HEADER_BYTES_V1 + CHECKSUM_BYTES) { /* its start is one: cut short */
        lda_error_input(err, "%s: truncated: %llu bytes, fewer than the %d-byte header and the checksum of a binary "
                        "corpus", path, (unsigned long long)s->size, HEADER_BYTES_V1);
        return -1;
    }
    header *h = &s->h;
    *h = (header){get_u32(b + 8), get_u32(b + 12), get_u32(b + 40), get_u32(b + 44), get_u64(b + 16),
                  get_u64(b + 24), get_u64(b + 32), get_u64(b + 48), get_u64(b + 56), 0, 0};
    if (h->version < 1 || h->version > CORPUS_BINARY_VERSION) {
        lda_error_input(err, "%s: binary corpus version %u; this ldagpu reads versions 1 to %u", path, h->version,
                        CORPUS_BINARY_VERSION);
        return -1;
    }
    if (h->header_bytes != (h->version == 1 ? HEADER_BYTES_V1 : HEADER_BYTES))
        return damaged(s, err, "its header size is wrong");
    if (h->version > 1 && (s->size < HEADER_BYTES + CHECKSUM_BYTES ||
                           take(s, b + HEADER_BYTES_V1, HEADER_BYTES - HEADER_BYTES_V1, err))) {
        lda_error_input(err, "%s: truncated: %llu bytes, fewer than its header takes", path,
                        (unsigned long long)s->size);
        return -1;
    }
    h->names_bytes = get_u64(b + 64);
    h->labels_bytes = get_u64(b + 72);
    if (h->source_format == CORPUS_FORMAT_AUTO || h->source_format >= CORPUS_FORMAT_COUNT)
        return damaged(s, err, "unknown source format");
    /* Each count bounded by the size first, so the sum below cannot overflow. */
    const uint64_t size = s->size;
    const int fits = h->num_docs <= size / 16 && h->num_tokens <= size / 4 && h->vocab_bytes <= size &&
                     h->note_bytes <= size && h->names_bytes <= size && h->labels_bytes <= size;
    const uint64_t declared =
        fits ? h->header_bytes + pad8(h->note_bytes) +
                   body_bytes(h->num_docs, h->num_tokens, h->vocab_bytes + h->names_bytes + h->labels_bytes)
             : 0;
    if (!fits || declared > size) {
        lda_error_input(err, "%s: truncated: %llu bytes, fewer than its header declares (%llu documents, %llu "
                        "tokens, %llu bytes of vocabulary)", path, (unsigned long long)size,
                        (unsigned long long)h->num_docs, (unsigned long long)h->num_tokens,
                        (unsigned long long)h->vocab_bytes);
        return -1;
    }
    if (declared < size) {
        char what[128];
        snprintf(what, sizeof what, "%llu bytes, more than the %llu its header declares", (unsigned long long)size,
                 (unsigned long long)declared);
        return damaged(s, err, what);
    }
    return 0;
}

static void close_source(source *s)
{
    if (s->fd >= 0)
        close(s->fd);
}

int corpus_binary_read_note(const char *path, char **note, corpus_format *source_format, lda_error *err)
{
    source s;
    *note = NULL;
    int rc = -1;
    if (open_source(&s, path, err) == 0) {
        if (s.h.note_bytes > NOTE_MAX)
            damaged(&s, err, "its note is longer than any ldagpu writes");
        else if ((*note = lda_malloc((size_t)s.h.note_bytes + 1, "a binary corpus's note", err)) &&
                 read_exactly(&s, *note, (size_t)s.h.note_bytes, err) == 0) {
            (*note)[s.h.note_bytes] = '\0';
            *source_format = (corpus_format)s.h.source_format;
            rc = 0;
        }
    }
    close_source(&s);
    if (rc) {
        free(*note);
        *note = NULL;
    }
    return rc;
}

/* The vocabulary strings of the blob: exactly V, each non-empty and NUL-terminated. */
static int split_vocab(const source *s, const char *blob, corpus *c, lda_error *err)
{
    const uint64_t V = s->h.vocab_size, B = s->h.vocab_bytes;
    if (!(c->vocab = lda_calloc(V ? V : 1, sizeof *c->vocab, "the vocabulary", err)))
        return -1;
    uint64_t at = 0;
    for (uint32_t w = 0; w < V; w++) {
        const char *end = at < B ? memchr(blob + at, '\0', B - at) : NULL;
        if (!end || end == blob + at) {
            char what[96];
            snprintf(what, sizeof what, "word %u of its %llu is %s", w, (unsigned long long)V,
                     end ? "empty" : "missing");
            return damaged(s, err, what);
        }
        if (!(c->vocab[w] = strdup(blob + at))) {
            lda_error_fail(err, "out of memory (the vocabulary)");
            return -1;
        }
        c->vocab_size = w + 1; /* freed with the corpus from here on */
        at = (uint64_t)(end - blob) + 1;
    }
    return at == B ? 0 : damaged(s, err, "bytes after the last word of its vocabulary");
}

/* The names (is_name) or labels in *blob: none when it is empty, else one an input document,
 * each one a name or label may be (text_fields.h). Once they are counted right, *blob is the
 * list's (NULL here), and *out is the corpus's, to be freed with it. */
static int split_names(const source *s, char **blob, uint64_t bytes, int is_name, lda_string_list **out,
                       lda_error *err)
{
    char why[TEXT_FIELDS_WHY_MAX + 64], problem[TEXT_FIELDS_WHY_MAX];
    if (bytes == 0)
        return 0;
    const size_t count = lda_string_list_count_in(*blob, (size_t)bytes);
    if (count != s->h.num_input_docs) {
        if (count == SIZE_MAX)
            snprintf(why, sizeof why, "its %ss do not end with a NUL", is_name ? "name" : "label");
        else
            snprintf(why, sizeof why, "it holds %zu %ss for its %llu input documents", count,
                     is_name ? "name" : "label", (unsigned long long)s->h.num_input_docs);
        return damaged(s, err, why);
    }
    *out = lda_string_list_adopt(*blob, (size_t)bytes, err);
    *blob = NULL; /* the list's, or freed with it */
    if (!*out)
        return -1;
    for (size_t i = 0; i < count; i++) {
        const char *t = lda_string_list_get(*out, i);
        if (text_field_problem(t, strlen(t), is_name, problem)) {
            snprintf(why, sizeof why, "input document %zu: %s", i, problem);
            return damaged(s, err, why);
        }
    }
    return 0;
}

/* What every corpus promises (corpus.h), checked value by value. */
static int check_contents(const source *s, const corpus *c, lda_error *err)
{
    char what[160];
    const size_t D = c->num_docs, N = c->num_tokens;
    if (c->doc_offsets[0] != 0 || c->doc_offsets[D] != N) {
        snprintf(what, sizeof what, "its document offsets run from %zu to %zu, not from 0 to its %zu tokens",
                 c->doc_offsets[0], c->doc_offsets[D], N);
        return damaged(s, err, what);
    }
    for (size_t d = 0; d < D; d++) {
        const size_t start = c->doc_offsets[d], end = c->doc_offsets[d + 1];
        if (end <= start || end - start > CORPUS_MAX_DOC_TOKENS) {
            snprintf(what, sizeof what, "document %zu spans tokens %zu to %zu (at least 1, at most %llu)", d, start,
                     end, (unsigned long long)CORPUS_MAX_DOC_TOKENS);
            return damaged(s, err, what);
        }
        if (c->input_index[d] >= c->num_input_docs || (d && c->input_index[d] <= c->input_index[d - 1])) {
            snprintf(what, sizeof what, "document %zu's input index %zu does not rise from the last, below %zu", d,
                     c->input_index[d], c->num_input_docs);
            return damaged(s, err, what);
        }
    }
    uint32_t largest = 0;
    for (size_t i = 0; i < N; i++)
        largest = c->words[i] > largest ? c->words[i] : largest;
    if (N && largest >= c->vocab_size) {
        size_t i = 0;
        while (c->words[i] < c->vocab_size)
            i++;
        snprintf(what, sizeof what, "token %zu has word id %u, beyond its vocabulary of %u words", i, c->words[i],
                 c->vocab_size);
        return damaged(s, err, what);
    }
    return 0;
}

/* The arrays, read straight into the corpus; the checksum compared; the contents checked. */
static int read_body(source *s, corpus *c, lda_error *err)
{
    const header *h = &s->h;
    char *blob = NULL, *names = NULL, *labels = NULL;
    unsigned char stored[CHECKSUM_BYTES];
    int rc = -1;
    if (!(c->doc_offsets = lda_malloc_array(h->num_docs + 1, sizeof(size_t), "document offsets", err)) ||
        !(c->input_index = lda_malloc_array(h->num_docs ? h->num_docs : 1, sizeof(size_t), "document indexes", err)) ||
        !(c->words = lda_malloc_array(h->num_tokens ? h->num_tokens : 1, sizeof(uint32_t), "tokens", err)) ||
        !(blob = lda_malloc(h->vocab_bytes ? h->vocab_bytes : 1, "the vocabulary", err)) ||
        !(names = lda_malloc(h->names_bytes ? h->names_bytes : 1, "document names", err)) ||
        !(labels = lda_malloc(h->labels_bytes ? h->labels_bytes : 1, "document labels", err)))
        goto out;
    if (take(s, NULL, pad8(h->note_bytes), err) ||
        take(s, c->doc_offsets, (h->num_docs + 1) * sizeof(size_t), err) ||
        take(s, c->input_index, h->num_docs * sizeof(size_t), err) ||
        take(s, c->words, h->num_tokens * sizeof(uint32_t), err) || take(s, blob, h->vocab_bytes, err) ||
        take(s, names, h->names_bytes, err) || take(s, labels, h->labels_bytes, err) ||
        read_exactly(s, stored, sizeof stored, err))
        goto out;
    if (get_u32(stored) != s->crc) {
        char what[128];
        snprintf(what, sizeof what, "its checksum does not match its contents (stored %08x, computed %08x)",
                 get_u32(stored), s->crc);
        damaged(s, err, what);
        goto out;
    }
    rc = split_vocab(s, blob, c, err) || check_contents(s, c, err) ||
                 split_names(s, &names, h->names_bytes, 1, &c->names, err) ||
                 split_names(s, &labels, h->labels_bytes, 0, &c->labels, err)
             ? -1
             : 0;
out:
    free(blob);
    free(names);
    free(labels);
    return rc;
}

/* The memory the corpus will take (its arrays, and what any reader keeps per input document,
 * CORPUS_INPUT_DOC_BYTES), against what is available: a header may declare billions of empty
 * documents at no cost in the file. */
static int check_memory(const source *s, lda_error *err)
{
    const header *h = &s->h;
    const double need = 4.0 * (double)h->num_tokens + 16.0 * (double)h->num_docs +
                        (double)CORPUS_INPUT_DOC_BYTES * (double)h->num_input_docs + 2.0 * (double)h->vocab_bytes +
                        8.0 * (double)h->vocab_size + (double)h->names_bytes + (double)h->labels_bytes +
                        16.0 * (double)h->num_input_docs * (h->names_bytes > 0);
    char what[128];
    snprintf(what, sizeof what, "the corpus declares %llu tokens and %llu input documents",
             (unsigned long long)h->num_tokens, (unsigned long long)h->num_input_docs);
    return lda_memory_check(s->path, what, need < 0x1p64 ? (uint64_t)need : UINT64_MAX, err);
}

corpus *corpus_binary_read(const char *path, lda_error *err)
{
    source s;
    corpus *c = NULL;
    if (open_source(&s, path, err) == 0) {
        const header *h = &s.h;
        if (h->num_tokens > CORPUS_MAX_TOKENS)
            lda_error_input(err, "%s: %llu tokens; a corpus has at most %llu", path, (unsigned long long)h->num_tokens,
                            (unsigned long long)CORPUS_MAX_TOKENS);
        else if (h->num_input_docs > UINT32_MAX)
            lda_error_input(err, "%s: %llu input documents; a corpus has at most %u", path,
                            (unsigned long long)h->num_input_docs, UINT32_MAX);
        else if (h->num_docs > h->num_input_docs)
            damaged(&s, err, "more documents kept than input documents");
        else if (2 * (uint64_t)h->vocab_size > h->vocab_bytes) /* a word is a byte at least, and its NUL */
            damaged(&s, err, "its vocabulary has fewer bytes than its words need");
        else if (h->labels_bytes && !h->names_bytes)
            damaged(&s, err, "it has labels and no names");
        else if (check_memory(&s, err) == 0 && (c = lda_calloc(1, sizeof *c, "a corpus", err))) {
            *c = (corpus){.num_docs = h->num_docs, .num_input_docs = h->num_input_docs,
                          .num_empty_docs = h->num_input_docs - h->num_docs, .num_tokens = h->num_tokens,
                          .format = (corpus_format)h->source_format};
            if (read_body(&s, c, err)) {
                corpus_free(c);
                c = NULL;
            }
        }
    }
    close_source(&s);
    return c;
}
