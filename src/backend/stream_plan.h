/* stream_plan.h — the tokens of a collapsed sparse run kept in pinned host memory and passed
 * through the GPU a chunk of warps at a time (corpora larger than the device's memory).
 * docs/scale.md, "Tokens streamed from host memory", says how the draw, the counts and the joins
 * of cut documents work over chunks; this is its arithmetic, in plain C so that it is tested without
 * a GPU: what a chunk carries, where the chunks begin and end, what stays on the device, and
 * whether a run streams at all.
 *
 * A chunk is a contiguous range of the layout's warps (as a shard is, shards.h), so its words,
 * z and slots' lists are contiguous in the in-memory arrays and its slots keep their random
 * keys (slot_token_base): the draws are those of the in-memory run. On the device a chunk holds
 * its positions' words and z, its slots' lists (whole documents' and cut documents' pieces')
 * and their lengths. All of it comes in (words, z, lists, lengths) and but the words goes back;
 * a piece's list is formed on the device from its document's list, which stays there with the
 * word side, so the pieces' lists neither travel nor stay on the host.
 *
 * The host keeps a chunk in a narrower form than the device draws from: z in 16 bits (K <= 65535,
 * and z holds plain topics between passes) and each whole document's list packed, an entry a
 * 32-bit word (topic << 16 | count: a whole document has at most 65,535 tokens, which
 * lda_stream_layout_refusal checks), with room for min(K, its tokens) entries (between passes a
 * list holds only its non-zero topics, count_lists.cuh), where the device's list has room for the
 * draw's additions. The chunk crosses the bus in that form and is unpacked on the device before
 * its draw, packed after it (cuda/stream_pack.cu). */
#ifndef LDA_STREAM_PLAN_H
#define LDA_STREAM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "backend/zplan.h"
#include "core/error.h"
#include "core/hd.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chunk buffers on the device: one copied in, one drawn, one copied out at a time. */
#define LDA_STREAM_BUFFERS 3u
/* Room a chunk's array may need beyond its bytes for its start's alignment (the device
 * arrays' 256-byte alignment), for each of its 6 arrays (words, z, topics, counts, the packed
 * lists, z in 16 bits; the lengths' are in the slots' 4 bytes' rounding). */
#define LDA_STREAM_ALIGN 256u
#define LDA_STREAM_ARRAYS 6u
/* The packed form of a list entry on the host (above): topic and count in 16 bits each. */
#define LDA_STREAM_PACKED_MOST 65535u
LDA_HD uint32_t lda_stream_pack_entry(uint32_t topic, uint32_t count)
{
    return topic << 16 | count;
}
LDA_HD uint32_t lda_stream_packed_topic(uint32_t entry)
{
    return entry >> 16;
}
LDA_HD uint32_t lda_stream_packed_count(uint32_t entry)
{
    return entry & 0xFFFFu;
}
/* Device memory a streamed plan leaves free beside the resident arrays and the buffers, a
 * share of the resident bytes: the allocations' rounding and the runtime's own. Measured on the
 * H100: a plan that left none ran out of memory allocating its last buffer (11 GiB resident). */
static inline uint64_t lda_stream_slack(uint64_t resident_bytes)
{
    return resident_bytes / 32;
}
/* The environment variable that forces chunks of this many warps (the tests' several small
 * chunks on a corpus that fits); read by lda_stream_forced_warps alone. */
#define LDA_STREAM_CHUNK_WARPS_ENV "LDAGPU_STREAM_CHUNK_WARPS"

typedef struct {
    size_t first_warp, end_warp; /* warps first_warp .. end_warp - 1 of the layout */
    uint64_t device_bytes;       /* its room on the device (lda_stream_chunk_bytes) */
    uint64_t copy_in, copy_out;  /* bytes copied to the device before its draw, and back after */
} lda_stream_chunk;

/* What warps first .. end - 1 of L take on the device at K topics: words and z at their
 * positions (4 bytes each), each slot's list of lda_sparse_list_capacity entries (a topic and
 * a count, 4 bytes each) and its length (4 bytes); their host form as it lands (z in 2 bytes a
 * position, the whole documents' packed entries, 4 bytes each); and each array's alignment. */
uint64_t lda_stream_chunk_bytes(const lda_layout *L, uint32_t K, size_t first, size_t end);

/* A slot's room in the host's packed lists: min(K, its tokens) for a whole document, none for a
 * piece of a cut document. lda_stream_host_entries sums it over warps first .. end - 1;
 * lda_stream_host_offsets writes where each slot's starts (num_slots + 1 offsets). */
uint64_t lda_stream_host_room(const lda_layout *L, uint32_t K, size_t slot);
uint64_t lda_stream_host_entries(const lda_layout *L, uint32_t K, size_t first, size_t end);
void lda_stream_host_offsets(const lda_layout *L, uint32_t K, uint64_t *offsets);

/* Why L's tokens cannot be streamed (NULL: they can): a whole document of more than
 * LDA_STREAM_PACKED_MOST tokens, whose counts the packed form cannot hold. A phrase. */
const char *lda_stream_layout_refusal(const lda_layout *L);

/* The bytes of those warps that cross the bus each way in an iteration, in the host's form: in,
 * words, z (2 bytes), the whole documents' packed lists and the slots' lengths; out, the same
 * but the words. */
void lda_stream_chunk_copies(const lda_layout *L, uint32_t K, size_t first, size_t end, uint64_t *in,
                             uint64_t *out);

/* Splits L's warps into contiguous chunks in order, each as many warps as fit in `room` bytes
 * (lda_stream_chunk_bytes), or exactly `warps` warps each (the last fewer) where warps > 0.
 * The chunks into *chunks (malloc'ed), their number into *count. -1 with err where one warp
 * alone needs more than room (its 32 documents' tokens and lists) or out of memory. */
int lda_stream_chunks(const lda_layout *L, uint32_t K, uint64_t room, size_t warps, lda_stream_chunk **chunks,
                      size_t *count, lda_error *err);

/* LDA_STREAM_CHUNK_WARPS_ENV's warps (0: unset); -1 with err (bad input) for a value that is
 * not a positive whole number. */
int lda_stream_forced_warps(size_t *warps, lda_error *err);

/* The cut documents with pieces in warps first .. end - 1 of a layout, and those pieces:
 * document docs[j] (a cut document of the layout) has the chunk's pieces slots[offsets[j] ..
 * offsets[j + 1]), in the order of the layout's cut documents and their pieces. What the
 * streamed join takes for a chunk: a warp a document to start and list its row, a warp a piece
 * to add and to give (docs/scale.md, "Tokens streamed from host memory"). */
typedef struct {
    size_t num_docs;
    uint32_t *docs;
    size_t *offsets; /* num_docs + 1 */
    uint32_t *slots;
} lda_stream_chunk_pieces;

int lda_stream_chunk_pieces_make(const lda_layout *L, size_t first, size_t end, lda_stream_chunk_pieces *out,
                                 lda_error *err);
void lda_stream_chunk_pieces_free(lda_stream_chunk_pieces *pieces);

/* The join of cut documents over chunks, the CPU reference of the streamed draw's (a chunk
 * boundary may split a cut document). n: rows of num_slots × K; base, next: rows of
 * num_cut_docs × K. lda_stream_join_chunk adds the changes of a chunk's pieces, n's row less
 * base's (base NULL: the row itself, after a recount), into their documents' rows of next, as
 * the kernels will: next's row less (the chunk's pieces) × base's, plus the pieces' rows. With
 * next begun as base (or zero), after every chunk next is what lda_layout_join_cut_counts makes
 * base, whatever the order of the chunks (modulo 2^32). lda_stream_give_chunk then sets each
 * of a chunk's pieces' rows to its document's row of `from`. */
void lda_stream_join_chunk(const lda_stream_chunk_pieces *pieces, uint32_t K, const uint32_t *n, const uint32_t *base,
                           uint32_t *next);
void lda_stream_give_chunk(const lda_stream_chunk_pieces *pieces, uint32_t K, uint32_t *n, const uint32_t *from);

/* Why a run's z pass cannot go a chunk of warps at a time (NULL: it can): only the collapsed
 * model's sparse draw (φ formed from the counts) on one device, z marking its changes (K <=
 * LDA_ZPLAN_Z_MARKS_MOST_K: no z_prev to carry) and --refresh 1. A phrase, for "...: PHRASE". */
const char *lda_stream_refusal(const lda_params *p, const lda_zplan *plan);
/* The part of it the settings decide, before the z plan is made (--device cpu, another model
 * or sampler named, --refresh, several GPUs). */
const char *lda_stream_refusal_params(const lda_params *p);

/* The device bytes a chunked pass adds to what stays: the pass's own n[w,k] and n[k], and the
 * cut documents' lists as the pass leaves them beside those it began with, with their lengths. */
uint64_t lda_stream_pass_bytes(const lda_layout *L, uint32_t K, uint64_t cut_list_entries);

typedef struct {
    int streamed;             /* the tokens stay on the host and pass through in chunks */
    uint64_t in_memory_bytes; /* the in-memory plan's total (device_bytes.h) */
    uint64_t resident_bytes;  /* what stays on the device when streamed: the in-memory plan less
                                 what the chunks carry, plus the pass's own n[w,k] and n[k] and
                                 the cut documents' lists as the pass leaves them */
    uint64_t chunk_room;      /* a chunk buffer's bytes, each array the largest chunk's: LDA_STREAM_BUFFERS of them */
    uint64_t host_bytes;      /* pinned host memory: every position's z (2 bytes), the whole documents'
                                 packed lists, the slots' lengths and list offsets (the words are the
                                 layout's own, registered) */
    uint64_t copy_in, copy_out; /* an iteration's, each way */
    lda_stream_chunk *chunks; /* malloc'ed (lda_stream_plan_free) */
    size_t num_chunks;
    lda_stream_mode mode;     /* as asked */
    size_t forced_warps;      /* the chunks' forced size (0: by room) */
    uint64_t free_bytes;      /* the device's free memory the choice weighed */
    char why[400];            /* one line: streamed or not, and the numbers that decided it */
} lda_stream_plan;

/* The run's choice: off never streams; on always (the caller has checked that the run can);
 * auto streams where in_memory_bytes exceed free_bytes. Not streamed, forced_warps > 0 still
 * cuts the pass into chunks of that many warps, in device memory (the GPU's test of the chunks'
 * arithmetic): chunks and num_chunks are set, and in_memory_bytes must then include
 * lda_stream_pass_bytes. Streamed, the chunk room is what the
 * device has beside the resident arrays, split in LDA_STREAM_BUFFERS, but no more than all the
 * warps need (one chunk); forced_warps > 0 forces chunks of that many warps. cut_list_entries:
 * the cut documents' lists' entries (lda_cut_list_entries), V and K the word side's shape.
 * -1 with err (a run failure) where the resident arrays and the buffers do not fit. */
int lda_stream_plan_make(const lda_layout *L, uint32_t K, lda_stream_mode mode, uint64_t in_memory_bytes,
                         uint64_t cut_list_entries, uint64_t free_bytes, size_t forced_warps, lda_stream_plan *plan,
                         lda_error *err);
/* A streamed plan's chunks made again where the buffers would not fit the device's free memory
 * as measured once the resident arrays are allocated (free_bytes: what is left for the buffers
 * and the chunks' small arrays; the resident sizing is the plan's estimate, and the runtime takes
 * its own), its line with them; a forced size or an unstreamed plan is left as it is. -1 with err
 * (a run failure) where not even a sixty-fourth of the planned buffers fit. */
int lda_stream_plan_refit(const lda_layout *L, uint32_t K, uint64_t free_bytes, lda_stream_plan *plan,
                          lda_error *err);
void lda_stream_plan_free(lda_stream_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
