/* device_bytes.c — the device memory of a CUDA run, array by array; see device_bytes.h. */
#include "backend/device_bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/optimize_priors.h"
#include "backend/sampler_sparse.h"
#include "core/phi_chunks.h"

static void add(lda_device_bytes *b, const char *name, uint64_t bytes)
{
    if (bytes == 0)
        return;
    b->total += bytes;
    if (b->count < LDA_DEVICE_BYTES_MAX_ROWS)
        b->rows[b->count++] = (lda_device_bytes_row){name, bytes};
    else /* never with today's rows: the last one takes the rest, so the total stays the rows' sum */
        b->rows[b->count - 1].bytes += bytes;
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

/* The sparse draw's scratch (sampler_sparse.h), its parts apart: the word tables, the slots'
 * lists (a cut document's pieces apart from the other documents: each piece's list has room
 * for its whole document's topics), and the word lists. */
static void add_sparse_scratch(lda_device_bytes *b, const lda_layout *L, const lda_zplan *plan)
{
    lda_sparse_scratch sc;
    lda_sparse_scratch_plan(L, plan->K, plan->precision, (lda_word_lists)plan->sparse_word_lists, plan->word_list_room,
                            &sc);
    if (sc.total_bytes != plan->scratch_bytes) { /* a plan made otherwise: its scratch whole */
        add(b, "z draw's scratch", plan->scratch_bytes);
        return;
    }
    uint64_t piece_entries = 0;
    for (size_t c = 0; c < L->num_cut_docs; c++)
        for (size_t i = L->cut_offsets[c]; i < L->cut_offsets[c + 1]; i++) {
            const uint32_t s = L->cut_slots[i];
            piece_entries += lda_sparse_list_capacity(plan->K, L->slot_len[s], L->slot_doc_len[s]);
        }
    const uint64_t list_bytes = sc.lengths_at - sc.lists_at, piece_bytes = 2 * piece_entries * sizeof(uint32_t);
    const uint64_t slots_end = sc.word_offsets_at ? sc.word_offsets_at : sc.total_bytes;
    add(b, "word tables", sc.offsets_at);
    add(b, "lists of whole documents", list_bytes - piece_bytes);
    add(b, "lists of cut documents' pieces", piece_bytes);
    add(b, "lists' offsets and lengths", (sc.lists_at - sc.offsets_at) + (slots_end - sc.lengths_at));
    if (sc.word_offsets_at)
        add(b, "word lists", sc.total_bytes - sc.word_offsets_at);
}

void lda_device_bytes_plan(const lda_layout *L, const lda_params *p, const lda_zplan *plan, lda_device_bytes *out)
{
    const uint64_t K = p->num_topics, V = L->vocab_size, positions = L->num_positions;
    const int sparse = plan->kernel == LDA_ZKERNEL_SPARSE;
    const size_t window = lda_device_window_slots(L->num_slots, (uint32_t)K);
    memset(out, 0, sizeof *out);
    add(out, "words", positions * sizeof(uint32_t));
    add(out, "z", positions * sizeof(uint32_t));
    if (!plan->z_marks_changes) /* else z's word carries the topic a draw replaced */
        add(out, "z_prev", positions * sizeof(uint32_t));
    add(out, "warp offsets and lengths", (L->num_warps + 1) * sizeof(size_t) + L->num_warps * sizeof(uint32_t));
    add(out, "slot arrays", L->num_slots * (5 * sizeof(uint32_t) + sizeof(uint64_t)));
    add(out, "cut documents' pieces", (L->num_cut_docs + 1) * sizeof(size_t) + L->num_pieces * sizeof(uint32_t));
    add(out, "join chunks (at most)", (L->num_pieces / LDA_JOIN_CHUNK + L->num_cut_docs + 1) * sizeof(struct cut_chunk));
    if (sparse) { /* n[m,k] as lists, in the scratch; read a window of rows at a time */
        add(out, "window of n[m,k] rows", window * K * sizeof(uint32_t));
        add(out, "cut documents' lists", (L->num_cut_docs + 1) * sizeof(uint64_t) + L->num_cut_docs * sizeof(uint32_t) +
                                             2 * lda_cut_list_entries(L, (uint32_t)K) * sizeof(uint32_t));
    } else {
        add(out, "cut documents' counts", 2 * L->num_cut_docs * K * sizeof(uint32_t)); /* at a pass's start, change */
        add(out, "n[m,k]", L->num_slots * K * sizeof(uint32_t));
    }
    add(out, p->theta_collapsed ? "window of θ rows" : "θ", (p->theta_collapsed ? window : L->num_slots) * K * sizeof(float));
    add(out, "φ", V * K * sizeof(float));
    add(out, "n[w,k]", V * K * sizeof(uint32_t));
    add(out, "topic arrays (n[k], scales, priors)", K * (sizeof(uint32_t) + sizeof(double)) +
                                                        K * (sizeof(float) + 2 * sizeof(double)));
    if (p->optimize_interval)
        add(out, "count histograms",
            (K + 1) * LDA_HIST_CAP * sizeof(uint32_t) + (L->num_tokens / LDA_HIST_CAP + 1) * 12 + 16);
    add(out, "φ column partials", lda_phi_chunks((uint32_t)V) * K * sizeof(double));
    add(out, "evaluation partials", lda_eval_partials(L->num_warps, L->num_slots, (uint32_t)V) * sizeof(double));
    if (sparse)
        add_sparse_scratch(out, L, plan);
    else
        add(out, "z draw's scratch", plan->scratch_bytes);
    if (p->shards > 1) /* a shard's own counts apart from the totals (become_shard; its shared documents'
                          rows, a few cut documents', are left out: their count is not known yet) */
        add(out, "a shard's own n[w,k], n[k]", (V + 1) * K * sizeof(uint32_t));
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
