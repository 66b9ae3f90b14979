/* device_bytes.c — the device memory of a CUDA run, array by array; see device_bytes.h. */
#include "backend/device_bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/optimize_priors.h"
#include "backend/sampler_sparse.h"
#include "backend/word_changes.h"
#include "core/phi_chunks.h"

/* What a row's bytes grow with, over the layout's warps (lda_device_bytes_warps). */
typedef enum {
    BY_WARP,          /* a warp */
    BY_SLOT,          /* a slot, padding included */
    BY_PIECE,         /* a real slot */
    BY_POSITION,      /* a token position (the warp's rows × 32) */
    BY_CUT_DOC,       /* a cut document, in its first piece's warp */
    BY_CUT_ENTRY,     /* an entry of a cut document's list room (min(K, its tokens)), likewise */
    BY_WHOLE_ENTRY,   /* an entry of the sparse draw's list of an uncut slot */
    BY_PIECE_ENTRY,   /* ... of a cut document's piece */
    BY_COUNT
} grows_by;

/* The rows being sized, and what of them grows with what (bytes each, summed over the rows). */
typedef struct {
    lda_device_bytes *out;
    uint32_t K;
    uint64_t count[BY_COUNT]; /* the layout's warps, slots, ... */
    uint64_t each[BY_COUNT];  /* the rows' bytes a warp, a slot, ... */
} sizing;

static void add(sizing *s, const char *name, uint64_t bytes)
{
    lda_device_bytes *b = s->out;
    if (bytes == 0)
        return;
    b->total += bytes;
    if (b->count < LDA_DEVICE_BYTES_MAX_ROWS)
        b->rows[b->count++] = (lda_device_bytes_row){name, bytes};
    else /* never with today's rows: the last one takes the rest, so the total stays the rows' sum */
        b->rows[b->count - 1].bytes += bytes;
}

/* A row of `fixed` bytes plus `each` bytes a unit of `by`: its total, and its growth noted. */
static void add_by(sizing *s, const char *name, uint64_t fixed, grows_by by, uint64_t each)
{
    s->each[by] += each;
    add(s, name, fixed + each * s->count[by]);
}

/* The same with two terms. */
static void add_by2(sizing *s, const char *name, uint64_t fixed, grows_by by, uint64_t each, grows_by by2,
                    uint64_t each2)
{
    s->each[by] += each;
    s->each[by2] += each2;
    add(s, name, fixed + each * s->count[by] + each2 * s->count[by2]);
}

size_t lda_device_window_slots(size_t num_slots, uint32_t K)
{
    size_t slots = ((size_t)32 << 20) / ((size_t)K * sizeof(float)) / 32 * 32;
    if (slots < 32)
        slots = 32;
    return slots < num_slots ? slots : (num_slots + 31) / 32 * 32;
}

static uint64_t cut_list_room(const lda_layout *L, uint32_t K, size_t c)
{
    const uint32_t doc_len = L->slot_doc_len[L->cut_slots[L->cut_offsets[c]]];
    return doc_len < K ? doc_len : K;
}

uint64_t *lda_cut_list_offsets(const lda_layout *L, uint32_t K)
{
    uint64_t *offsets = malloc((L->num_cut_docs + 1) * sizeof *offsets);
    if (!offsets)
        return NULL;
    offsets[0] = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        offsets[c + 1] = offsets[c] + cut_list_room(L, K, c);
    return offsets;
}

uint64_t lda_cut_list_entries(const lda_layout *L, uint32_t K)
{
    uint64_t n = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        n += cut_list_room(L, K, c);
    return n;
}

size_t lda_eval_partials(size_t num_warps, size_t num_slots, uint32_t V)
{
    size_t most = num_warps * LDA_ZPLAN_DEFAULT_SPLIT; /* the butterfly kernel's, a split of each warp */
    if (num_slots > most)
        most = num_slots; /* the per-token kernel's, a slot each */
    if (lda_phi_chunks(V) > most)
        most = lda_phi_chunks(V);
    return most + 1;
}

/* A window of `window` rows of row_bytes each (θ or n[m,k] formed a window at a time): where it
 * covers every slot it grows with them (a shard's window then covers its own slots), else it is
 * the same in every range of warps. */
static void add_window(sizing *s, const char *name, size_t window, uint64_t row_bytes)
{
    if (window >= s->count[BY_SLOT])
        add_by(s, name, (window - s->count[BY_SLOT]) * row_bytes, BY_SLOT, row_bytes);
    else
        add(s, name, window * row_bytes);
}

/* The sparse draw's scratch (sampler_sparse.h), its parts apart: the word tables, the slots'
 * lists (a cut document's pieces apart from the other documents: each piece's list has room
 * for its whole document's topics), and the word lists. */
static void add_sparse_scratch(sizing *s, const lda_layout *L, const lda_zplan *plan)
{
    lda_sparse_scratch sc;
    lda_sparse_scratch_plan(L, plan->K, plan->precision, (lda_word_lists)plan->sparse_word_lists, plan->word_list_room,
                            &sc);
    if (sc.total_bytes != plan->scratch_bytes) { /* a plan made otherwise: its scratch whole */
        add(s, "z draw's scratch", plan->scratch_bytes);
        return;
    }
    uint64_t piece_entries = 0, all_entries = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++) {
            const uint32_t t = L->cut_slots[i];
            piece_entries += lda_sparse_list_capacity(plan->K, L->slot_len[t], L->slot_doc_len[t]);
        }
    for (size_t t = 0; t < L->num_slots; t++)
        all_entries += lda_sparse_list_capacity(plan->K, L->slot_len[t], L->slot_doc_len[t]);
    s->count[BY_WHOLE_ENTRY] = all_entries - piece_entries;
    s->count[BY_PIECE_ENTRY] = piece_entries;
    const uint64_t list_bytes = sc.lengths_at - sc.lists_at, entry = 2 * sizeof(uint32_t); /* a topic, a count */
    const uint64_t slots_end = sc.word_offsets_at ? sc.word_offsets_at : sc.total_bytes;
    const uint64_t slot_bytes = (sc.lists_at - sc.offsets_at) + (slots_end - sc.lengths_at); /* offsets, lengths */
    add(s, "word tables", sc.offsets_at);
    add_by(s, "lists of whole documents", list_bytes - entry * all_entries, BY_WHOLE_ENTRY, entry); /* + alignment */
    add_by(s, "lists of cut documents' pieces", 0, BY_PIECE_ENTRY, entry);
    add_by(s, "lists' offsets and lengths", slot_bytes - 12 * L->num_slots, BY_SLOT, 12);
    if (sc.word_offsets_at)
        add(s, "word lists", sc.total_bytes - sc.word_offsets_at);
}

/* The rows of the plan (device_bytes.h), and in s what each grows with. */
static void size_rows(const lda_layout *L, const lda_params *p, const lda_zplan *plan, lda_device_bytes *out,
                      sizing *s)
{
    const uint64_t K = p->num_topics, V = L->vocab_size;
    const int sparse = plan->kernel == LDA_ZKERNEL_SPARSE;
    const size_t window = lda_device_window_slots(L->num_slots, (uint32_t)K);
    memset(out, 0, sizeof *out);
    *s = (sizing){out, (uint32_t)K, {0}, {0}};
    s->count[BY_WARP] = L->num_warps;
    s->count[BY_SLOT] = L->num_slots;
    s->count[BY_PIECE] = L->num_pieces;
    s->count[BY_POSITION] = L->num_positions;
    s->count[BY_CUT_DOC] = L->num_cut_docs;
    s->count[BY_CUT_ENTRY] = lda_cut_list_entries(L, (uint32_t)K);
    add_by(s, "words", 0, BY_POSITION, sizeof(uint32_t));
    add_by(s, "z", 0, BY_POSITION, sizeof(uint32_t));
    if (!plan->z_marks_changes) /* else z's word carries the topic a draw replaced */
        add_by(s, "z_prev", 0, BY_POSITION, sizeof(uint32_t));
    add_by(s, "warp offsets and lengths", sizeof(size_t), BY_WARP, sizeof(size_t) + sizeof(uint32_t));
    add_by(s, "slot arrays", 0, BY_SLOT, 5 * sizeof(uint32_t) + sizeof(uint64_t));
    add_by2(s, "cut documents' pieces", sizeof(size_t), BY_CUT_DOC, sizeof(size_t), BY_PIECE, sizeof(uint32_t));
    add_by(s, "join chunks (at most)", (L->num_pieces / LDA_JOIN_CHUNK + 1) * sizeof(struct cut_chunk), BY_CUT_DOC,
           sizeof(struct cut_chunk));
    if (sparse) { /* n[m,k] as lists, in the scratch; read a window of rows at a time */
        add_window(s, "window of n[m,k] rows", window, K * sizeof(uint32_t));
        add_by2(s, "cut documents' lists", sizeof(uint64_t), BY_CUT_DOC, sizeof(uint64_t) + sizeof(uint32_t),
                BY_CUT_ENTRY, 2 * sizeof(uint32_t));
    } else {
        add_by(s, "cut documents' counts", 0, BY_CUT_DOC, 2 * K * sizeof(uint32_t)); /* at a pass's start, change */
        add_by(s, "n[m,k]", 0, BY_SLOT, K * sizeof(uint32_t));
    }
    if (p->theta_collapsed)
        add_window(s, "window of θ rows", window, K * sizeof(float));
    else
        add_by(s, "θ", 0, BY_SLOT, K * sizeof(float));
    add(s, "φ", V * K * sizeof(float));
    add(s, "n[w,k]", V * K * sizeof(uint32_t));
    if (plan->counts_by_word) /* the rooms' offsets and fill, the adding kernel's chunks (word_changes.h) */
        add(s, "count update's rooms",
            (2 * V + 1) * sizeof(uint32_t) +
                lda_word_changes_most_chunks((uint32_t)V, V * K, LDA_WORD_CHANGES_CHUNK) * sizeof(lda_word_chunk));
    add(s, "topic arrays (n[k], scales, priors)", K * (sizeof(uint32_t) + sizeof(double)) +
                                                     K * (sizeof(float) + 2 * sizeof(double)));
    if (p->optimize_interval)
        add(s, "count histograms",
            (K + 1) * LDA_HIST_CAP * sizeof(uint32_t) + (L->num_tokens / LDA_HIST_CAP + 1) * 12 + 16);
    add(s, "φ column partials", lda_phi_chunks((uint32_t)V) * K * sizeof(double));
    add(s, "evaluation partials", lda_eval_partials(L->num_warps, L->num_slots, (uint32_t)V) * sizeof(double));
    if (sparse) /* the predictive term from the lists: each word's Σ_k α_k φ[w,k] */
        add(s, "evaluation's word sums", V * sizeof(double));
    if (sparse)
        add_sparse_scratch(s, L, plan);
    else if (L->num_slots) /* a document's rows (the per-document kernels) or a launch's: by the slots */
        add_by(s, "z draw's scratch", plan->scratch_bytes % L->num_slots, BY_SLOT, plan->scratch_bytes / L->num_slots);
    else
        add(s, "z draw's scratch", plan->scratch_bytes);
    if (p->shards > 1) /* a shard's own counts apart from the totals (become_shard; its shared documents'
                          rows, a few cut documents', are left out: their count is not known yet) */
        add(s, "a shard's own n[w,k], n[k]", (V + 1) * K * sizeof(uint32_t));
}

void lda_device_bytes_plan(const lda_layout *L, const lda_params *p, const lda_zplan *plan, lda_device_bytes *out)
{
    sizing s;
    size_rows(L, p, plan, out, &s);
}

uint64_t lda_device_bytes_warps(const lda_layout *L, const lda_params *p, const lda_zplan *plan, uint64_t *per_warp)
{
    lda_device_bytes b;
    sizing s;
    size_rows(L, p, plan, &b, &s);
    const uint64_t *each = s.each;
    const int lists = each[BY_WHOLE_ENTRY] || each[BY_PIECE_ENTRY];
    for (size_t q = 0; q < L->num_warps; q++)
        per_warp[q] = each[BY_WARP] + each[BY_SLOT] * LDA_WARP +
                      each[BY_POSITION] * (L->warp_offset[q + 1] - L->warp_offset[q]);
    for (size_t t = 0; t < L->num_slots; t++) {
        per_warp[t / LDA_WARP] += L->slot_doc[t] != LDA_NO_DOC ? each[BY_PIECE] : 0;
        if (lists)
            per_warp[t / LDA_WARP] += each[BY_WHOLE_ENTRY] * lda_sparse_list_capacity(s.K, L->slot_len[t], L->slot_doc_len[t]);
    }
    for (size_t c = 0; c < L->num_cut_docs; c++) {
        per_warp[L->cut_slots[L->cut_offsets[c]] / LDA_WARP] += each[BY_CUT_DOC] + each[BY_CUT_ENTRY] * cut_list_room(L, s.K, c);
        for (size_t i = L->cut_offsets[c]; lists && i < L->cut_offsets[c + 1]; i++) {
            const uint32_t t = L->cut_slots[i]; /* a piece's entries move from the whole documents' row to the pieces' */
            const uint64_t room = lda_sparse_list_capacity(s.K, L->slot_len[t], L->slot_doc_len[t]);
            per_warp[t / LDA_WARP] += each[BY_PIECE_ENTRY] * room - each[BY_WHOLE_ENTRY] * room; /* mod 2^64: exact */
        }
    }
    uint64_t sum = 0;
    for (size_t q = 0; q < L->num_warps; q++)
        sum += per_warp[q];
    return b.total - sum;
}

void lda_device_bytes_describe(const lda_device_bytes *b, uint64_t tokens, size_t most, char *buf, size_t size)
{
    const double gib = 1073741824.0, per = tokens ? (double)tokens : 1.0;
    lda_device_bytes_row rows[LDA_DEVICE_BYTES_MAX_ROWS];
    for (size_t i = 0; i < b->count; i++) { /* largest first; equal ones in the plan's order */
        size_t j = i;
        for (; j > 0 && rows[j - 1].bytes < b->rows[i].bytes; j--)
            rows[j] = rows[j - 1];
        rows[j] = b->rows[i];
    }
    size_t used = 0;
#define PUT(...) \
    (used += (size_t)snprintf(buf + (used < size ? used : size), used < size ? size - used : 0, __VA_ARGS__))
    PUT("%.2f GiB, %.1f B a token", b->total / gib, b->total / per);
    uint64_t rest = 0;
    for (size_t i = 0; i < b->count; i++) {
        if (i >= most || rows[i].bytes * 200 < b->total) {
            rest += rows[i].bytes;
            continue;
        }
        PUT("%s %s %.2f GiB (%.1f B)", i ? ";" : ":", rows[i].name, rows[i].bytes / gib, rows[i].bytes / per);
    }
    if (rest)
        PUT("; the rest %.2f GiB (%.1f B)", rest / gib, rest / per);
#undef PUT
}
