/* zplan.h — how the GPU draws z, decided once for a run: which kernel, how many warps share
 * a document group, whether θ is staged in shared memory, what the kernel does besides
 * drawing (keeping the counts, forming mean-for-mode's θ), the memory it needs, and why.
 *
 * lda_zplan_make is the only place these choices are made: from the run's parameters, the
 * layout (how many document groups a launch has) and the device's limits. The CUDA backend
 * sizes its memory from the plan and launches from it, the test harness runs the kernel the
 * plan names, and `train` and `bench` print it, so a user sees which kernel ran and why.
 * It is plain C (no CUDA), so the choices are tested on machines without a GPU. */
#ifndef LDA_ZPLAN_H
#define LDA_ZPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend/layout.h"
#include "core/error.h"
#include "core/hd.h"
#include "core/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Warps a block in the butterfly kernels that read θ from global memory (split and
 * θ-collapsed): 4 leaves each block a small slice of shared memory for its block totals. */
#define LDA_ZPLAN_WARPS_PER_BLOCK 4u
/* Warps a block in the staged kernels, one block an SM at K = 1024 (θ of a group is 128 KiB):
 * as many as the registers allow (168 a thread in float, no stack frame; 8 in double).
 * Measured on the H100 at K = 1024: 4 warps 4.40 ms, 8 2.52 ms, 12 1.98 ms of z. */
#define LDA_ZPLAN_STAGED_WARPS_FLOAT 12u
#define LDA_ZPLAN_STAGED_WARPS_DOUBLE 8u
/* Threads a block of the one-document-per-thread kernels (naive, transpose, stored, sparse). */
#define LDA_ZPLAN_PER_DOCUMENT_THREADS 128u
/* Warps a group when θ is read from global memory and --split is auto: the fastest of the
 * explicit splits on an H100 for wiki43k (results/README.md). The log-likelihood kernel,
 * which walks the same layout, uses it too. */
#define LDA_ZPLAN_DEFAULT_SPLIT 32u
/* The staged kernel runs one group a block and one block an SM (its 12 warps take every
 * register), so a launch takes at least as long as its longest group, on one SM; with split
 * warps a group's rows spread over the GPU. Staging pays when a launch's rows fill the SMs
 * for long enough: fill = (rows of the launch) / (SMs × rows of its longest group), the
 * waves of the longest group the rows make. Measured on the H100 (K = 256 and 1024,
 * uncollapsed and mean-for-mode; DEVELOPERS.md has the table): staged was faster at every
 * fill from 0.81 up (wiki43k 1.62, wikimix 1.41, --refresh 2 0.81) and slower at every
 * fill to 0.41 (--refresh 4 and 8); at 0.71 it was faster at K = 256 and up to 8% slower
 * at K = 1024. */
#define LDA_ZPLAN_STAGED_MIN_FILL 0.6

typedef enum {
    LDA_ZKERNEL_CPU = 0,      /* the CPU reference (no GPU kernel) */
    LDA_ZKERNEL_STAGED,       /* butterfly, θ given: one block a group, θ staged in shared memory */
    LDA_ZKERNEL_SPLIT,        /* butterfly, θ given: warps_per_group warps a group, θ from global memory */
    LDA_ZKERNEL_COLLAPSED,    /* butterfly, θ collapsed: one warp a group, counts changed token by token */
    LDA_ZKERNEL_PER_DOCUMENT, /* naive, transpose, butterfly-stored: one document a thread */
    LDA_ZKERNEL_SPARSE,       /* sparse (θ collapsed): the word tables built, then one document a thread */
} lda_zkernel;

/* What a plan needs to know of the device. */
typedef struct {
    size_t max_smem_per_block; /* bytes a block may opt in to */
    int sm_count;
} lda_gpu_limits;

typedef struct {
    lda_zkernel kernel;
    lda_sampler sampler;
    lda_precision precision;
    int theta_collapsed;
    uint32_t K;
    uint32_t warps_per_group;  /* token rows of a group are shared by this many warps */
    uint32_t threads_per_block;
    size_t groups_per_launch;  /* document groups in the largest --refresh part */
    double fill;               /* its rows over (SMs × rows of its longest group): LDA_ZPLAN_STAGED_MIN_FILL */
    int fused_counts;          /* the kernel keeps n[m,k], n[w,k], n[k] current (no count kernel) */
    int fused_theta_mean;      /* ... and forms θ = (n+α)/(N+Kα) while staging it (mean-for-mode) */
    int phi_from_counts;       /* the sparse draw forms φ's mean from n[w,k] as it reads it (no φ written) */
    int z_marks_changes;       /* the sparse draw writes a changed token's z as its topic | (old topic + 1) << 16
                                  and the count update takes the old topic from there and clears it: no z_prev
                                  (LDA_ZPLAN_Z_MARKS_MOST_K) */
    int counts_by_word;        /* the count update files each changed token under its word, in φ's room, and
                                  then adds each word's changes to its row (LDA_ZPLAN_COUNTS_BY_WORD_MOST_K) */
    int sparse_long_lists;     /* the sparse draw's kernel for long lists (LDA_ZPLAN_LONG_LISTS), else short */
    int sparse_word_lists;     /* lda_word_lists (backend/sampler_sparse.h): its draw reads n[w,k] as word lists */
    uint32_t word_list_ratio;  /* ... where a word's list is at most this many times the document's */
    uint32_t word_list_doc_most; /* ... and the document's has at most this many topics */
    uint32_t word_list_room;   /* the most topics a word's list holds: the longest the draw reads,
                                  min(K, word_list_ratio × word_list_doc_most); a word with more is
                                  not listed, and the draw gathers its counts, the same numbers */
    uint32_t word_side_quarters; /* CPU: the word side of the draw (core/sparse_draw.h) where a word's
                                    list is at most this / 4 times the document's; 0: none */
    uint32_t sparselda_parts;  /* CPU, --sampler sparselda: the parts of a pass (LDA_ZPLAN_SPARSELDA_PARTS) */
    uint32_t alias_block_warps; /* CPU, --sampler alias and mh: the most warps of a block (LDA_ZPLAN_*_BLOCK_WARPS) */
    int totals_in_smem;        /* butterfly block totals in shared memory (else global scratch) */
    size_t smem_bytes;         /* dynamic shared memory a block */
    size_t scratch_bytes;      /* global scratch the kernel needs */
    char why[384];             /* one line: the kernel and the reason it was chosen */
} lda_zplan;

/* The sparse draw has two compilations of one draw (cuda/zsample_sparse.cuh), the same topics
 * where the weights are integers: for long lists, the lanes' loop free to run its loads ahead,
 * and the lanes' sums carried along a run of one word's tokens (58 registers); for short ones,
 * more warps resident (40). The plan takes the long one where at least LDA_ZPLAN_LONG_LIST_SHARE of
 * the tokens are in slots whose list may reach LDA_ZPLAN_LONG_LIST topics (wikimix at K >= 1024;
 * never wiki43k, whose documents stop at 445 tokens). */
#define LDA_ZPLAN_LONG_LIST 1024u
/* The largest K whose topic and old topic + 1 share z's 32 bits (zplan's z_marks_changes): the
 * sparse draw then needs no z_prev, a copy of z (4 bytes a token; 4 GB at 10^9 tokens). */
#define LDA_ZPLAN_Z_MARKS_MOST_K 65535u
#define LDA_ZPLAN_LONG_LIST_SHARE 0.1
/* (From lists of 256 instead, so that both corpora take the long lists' form at K = 256, it was
 * slower on both, with pieces of 256 or 512: wikimix 1.45 -> 1.62 ms, wiki43k 1.06 -> 1.44, H100,
 * one run; results/sparse/ab-session13-h100.txt.) */
/* (One form draws every group. The long lists' form for the groups with a slot whose list may
 * reach 64, 256 or 1024 topics and the short lists' for the others, in two launches, was slower
 * on wikimix, collapsed, the H100, in one run: K = 1024 / 4096 / 10,000 took 2.59 / 4.05 / 5.10,
 * 2.69 / 4.18 / 5.28 and 2.77 / 4.75 / 5.60 ms against 2.55 / 3.94 / 4.98 with one launch;
 * results/sparse/ab-session10-h100.txt.) */
/* With φ read from memory (θ-collapsed: φ drawn) the long lists' one is also taken from this K
 * on, whatever the lists: φ's rows are then 16 KiB and more, and the loop's loads running ahead
 * gain more than the warps resident. wiki43k, θ-collapsed, on the H100: 5.69 against 6.13 ms at
 * K = 4096, 10.89 against 11.49 at 10,000; at 1024, 2.55 against 2.23 (the short lists' one);
 * collapsed (φ formed from the counts) 3.24 against 3.04 at 4096 (results/sparse/ab-session9-h100.txt). */
#define LDA_ZPLAN_LONG_LIST_PHI_READ 4096
/* The collapsed model's φ, the mean of the counts, is formed from n[w,k] by the draw as it reads
 * it (phi_from_counts: no V × K array written an iteration) unless K >= LDA_ZPLAN_PHI_WRITTEN_FROM_K
 * and the corpus holds at least V × K / LDA_ZPLAN_PHI_WRITTEN_SHARE tokens (K / 4 tokens a word
 * on average). There the mean's pass over V × K is small beside the draw, and the draw gathers
 * φ[w,k] alone where it gathered n[w,k] and read k's scale. Measured on the H100 in one run each
 * (collapsed, 10^9 generated tokens, V = 10^5, the generator's α; results/scale/phi-written-1e9/):
 * at K = 10^4, iteration 25 in 1.0056 s against 1.0230 (z 0.895 against 0.916 s; the mean's pass
 * 3.4 ms), twice; 42.31 GiB against 46.04 (no word lists: at 10^4 tokens a word they are as long
 * as the documents' lists are short, and no token read them) and set up in 12 s against 25. At
 * K = 1024, iteration 15 in 0.4625 s against 0.4728. Below K = 1024 it was not measured. On
 * wiki43k and wikimix (about 60 tokens a word) writing φ cost 1.1 to 1.4 ms an iteration at
 * K = 10^4 and lost the word lists, so there the counts' form stays. Tokens streamed from the host
 * need the counts' form (stream_plan.c); lda_params.phi_counts_only asks for it. */
#define LDA_ZPLAN_PHI_WRITTEN_SHARE 4u
/* Where φ's mean is written an iteration, φ's V × K words are dead from the end of the draw to the
 * mean's pass, and the count update files each changed token's two topics there under its word
 * (backend/word_changes.h, cuda/word_changes.cu); a second kernel then adds up each word's changes
 * in shared memory (K of them: 48 KiB at this K) and adds them to its row of n[w,k]. The atomics
 * on n[w,k] were two random sectors of a 4 GB array a changed token. Measured on the H100 in one
 * run (10^9 generated tokens, K = 10^4): iteration 30 1.0022 -> 0.9467 s (updates 0.094 -> 0.039),
 * iteration 100 0.9631 s; at K = 1024 no change, n[w,k] 0.4 GB (results/scale/counts-by-word-1e9/). */
#define LDA_ZPLAN_COUNTS_BY_WORD_MOST_K 12288u
#define LDA_ZPLAN_PHI_WRITTEN_FROM_K 1024u
/* The collapsed model's long lists' draw (φ formed from n[w,k]) keeps each word's non-zero
 * n[w,k] as a list (cuda/word_lists.cuh) from K = LDA_ZPLAN_WORD_LISTS_FROM_K on and, at the
 * first token of a run of one word, reads it in step with the document's list instead of
 * gathering n[w,k] for each listed topic from the V × K counts (a 32-byte sector from memory
 * for each 4-byte count): where the word's list is at most LDA_ZPLAN_WORD_LIST_RATIO times
 * the document's, and the document's has at most K / LDA_ZPLAN_WORD_LIST_DOC_SHARE topics (a
 * denser one's gathers fall on most of φ's row, few sectors apart, and its merge is long).
 * Measured on the H100 in one run each (wikimix, collapsed, ms an iteration after 30, and the
 * first 30 iterations' seconds; results/sparse/ab-session10-h100.txt):
 *   K = 4096: gathered 4.58 (0.317 s); ratio 4 with share 1, 2, 4, 8, 16, 32: 4.06, 4.06, 4.04,
 *   3.89, 3.90, 4.10 (0.359, 0.326, 0.284, 0.272, 0.280, 0.292 s); ratio 2 and 8: 4.14, 4.03.
 *   K = 10,000: gathered 6.10 (0.514 s); share 8: 4.96 (0.427 s); 4.92 to 4.98 for the others.
 *   K = 1024: gathered 2.50; from the lists, share 8 or 16, 2.83 and 2.74: φ's counts
 *   (160 MiB) are mostly in L2 there, and the merge's chain of loads is the longer wait. */
#ifndef LDA_ZPLAN_WORD_LISTS_FROM_K
#define LDA_ZPLAN_WORD_LISTS_FROM_K 4096u
#endif
#ifndef LDA_ZPLAN_WORD_LIST_RATIO
#define LDA_ZPLAN_WORD_LIST_RATIO 4u
#endif
#ifndef LDA_ZPLAN_WORD_LIST_DOC_SHARE
#define LDA_ZPLAN_WORD_LIST_DOC_SHARE 8u
#endif

/* The CPU's sparse draw of the collapsed model (φ the mean of the counts) takes the word side
 * (core/sparse_draw.h) for a token whose word lists at most LDA_ZPLAN_CPU_WORD_SIDE_QUARTERS / 4
 * times its document's topics: its document part summed over the word's topics, each n[m,k] read
 * from the document's row, plus the document's floor. On the GPU the same split was slower
 * (the warp's lookups, and the registers they took from the documents' pass): wikimix 2.43
 * against 2.38 ms at K = 1024, 4.44 against 4.26 at 10,000 on the H100
 * (results/sparse/ab-session11-h100.txt; the kernel is in the history, 9994fff). */
#ifndef LDA_ZPLAN_CPU_WORD_SIDE_QUARTERS
#define LDA_ZPLAN_CPU_WORD_SIDE_QUARTERS 2u
#endif

/* --sampler sparselda draws the documents in this many parts (backend/sampler_sparselda.h),
 * whatever the threads, so that any number of threads gives the same model: each part's
 * tokens see its own earlier moves, not the other parts' of the same pass. */
#ifndef LDA_ZPLAN_SPARSELDA_PARTS
#define LDA_ZPLAN_SPARSELDA_PARTS 8u
#endif

/* --sampler mh draws the documents in blocks of this many warps of the layout, each block's
 * tokens word by word (backend/sampler_alias.h); its blocks are its model. */
#ifndef LDA_ZPLAN_MH_BLOCK_WARPS
#define LDA_ZPLAN_MH_BLOCK_WARPS 32u
#endif
/* --sampler alias draws them so too, in blocks of at most this many warps and of at most
 * 1 / (LDA_ZPLAN_ALIAS_BLOCKS_A_WORKER × its workers) of the corpus's tokens (but one warp,
 * whatever it holds), so that the longest documents are drawn as several tasks and the workers
 * share the pass: wikimix's first 1,024 documents (the layout puts the longest first) hold 58% of
 * its tokens, so with blocks of 32 warps one of two workers drew them alone. alias's blocks do not
 * change its model (a document's draws read only its own counts and the pass's tables; the same
 * z, θ and φ to the byte). Measured on the 2-core development machine (wikimix, K = 1024, 2
 * threads, ms an iteration over iterations 11-20, alternating runs): 32 warps 248-257; at most
 * 1/4, 1/8, 1/16, 1/32 and 1/64 of the tokens 206-208, 204-215, 221-223, 229-236 and 248-250
 * (smaller blocks shorten the runs of one word, whose rows are set and put back each run). With
 * at most 1/8 a block, a cap of 32 warps against 1,024 (`ldagpu bench`, iterations 61-70 or
 * 41-50, alternating): wiki43k at K = 1024 158-175 against 150-159 ms, wikimix 187-188 against
 * 180-181, wikimix at K = 100 145-146 against 143-149: the block's documents' lists leave L2, but
 * a frequent word's row is set once a block, not 40 times a pass. The cap bounds a worker's
 * scratch. */
#ifndef LDA_ZPLAN_ALIAS_BLOCK_WARPS
#define LDA_ZPLAN_ALIAS_BLOCK_WARPS 1024u
#endif
#ifndef LDA_ZPLAN_ALIAS_BLOCKS_A_WORKER
#define LDA_ZPLAN_ALIAS_BLOCKS_A_WORKER 4u
#endif


/* The most tokens a GPU run takes, the one rule (lda_gpu_max_tokens). The sparse draw
 * (--sampler sparse) on one GPU, its tokens in device memory or streamed from the host, indexes
 * positions, list entries and random keys in 64 bits (docs/scale.md, "Memory and limits", lists
 * what was checked) and checks after every pass that no topic's 32-bit total n[k] wrapped
 * (cuda/topic_totals.cu): it takes a corpus's most, LDA_GPU_MAX_TOKENS. Every other GPU run takes
 * at most LDA_GPU_MAX_TOKENS_UNCHECKED: its n[k] are 32-bit and unchecked (several GPUs also sum
 * theirs unchecked), so one topic past 2^32 - 1 tokens would wrap. (The CPU backend checks its
 * counts and takes a corpus's most: corpus.h.) */
#define LDA_GPU_MAX_TOKENS CORPUS_MAX_TOKENS
#define LDA_GPU_MAX_TOKENS_UNCHECKED ((uint64_t)UINT32_MAX)
uint64_t lda_gpu_max_tokens(const lda_params *p);

/* The plan of a run; -1 with err (bad input) for a combination that cannot run, e.g. a
 * sampler without θ-collapsed weights, --refresh with another sampler than butterfly,
 * --split staged where θ of a group does not fit in shared memory, or a layout of more than
 * lda_gpu_max_tokens tokens (the whole layout's, under --gpus: the counts are summed). */
/* Whether the plan writes the collapsed model's φ (the mean of the counts) an iteration where
 * it could form it from the counts (LDA_ZPLAN_PHI_WRITTEN_SHARE). */
int lda_zplan_writes_counts_mean(const lda_params *p, const lda_zplan *z);
int lda_zplan_make(const lda_params *p, const lda_layout *L, const lda_gpu_limits *gpu, lda_zplan *plan,
                   lda_error *err);

/* The refusals that hold on every backend (--sampler sparse with θ given), so a run can say
 * so before it reads its corpus; both plans make them too. -1 with err (bad input); an internal
 * error for auto, which every run resolves first (lda_params_resolve_sampler). */
int lda_zplan_check(const lda_params *p, lda_error *err);

/* --sampler auto resolved (lda_params_resolve_sampler), but for the collapsed model on the CPU
 * (--device cpu, or auto where no GPU is found): alias, at every K. alias costs about half the
 * CPU time of sparse and sparselda (results/cpu-peers/alias-wiki43k.md); with the token's own
 * topic off the word side it learns as much an iteration as mh on wiki43k and wikimix at K = 100
 * and 1024 (more at K = 1024 on both from 50 iterations), where mh costs 1.1-1.7x its time an
 * iteration (results/cpu-peers/alias-own.md, mh.md). Every run resolves its sampler here. */
void lda_zplan_resolve_sampler(lda_params *p);

/* The plan of a CPU run (kernel LDA_ZKERNEL_CPU), so every backend has one to print; -1 with
 * err (bad input) for --sampler sparse with θ given. */
int lda_zplan_cpu(const lda_params *p, int threads, lda_zplan *plan, lda_error *err);

/* A plan that draws z and nothing else (the test harness checks the draw alone: it builds
 * the sparse tables itself, since no φ update runs). */
void lda_zplan_draw_only(lda_zplan *plan);

/* Whether LDA_ZPLAN_LONG_LIST_SHARE of L's tokens are in slots whose list may reach
 * LDA_ZPLAN_LONG_LIST topics at K: the sparse draw's long lists' compilation (unless
 * params.sparse_long_lists says). */
int lda_zplan_long_lists(const lda_layout *L, uint32_t K);

/* A sparse plan's word lists (word_lists: an lda_word_lists, backend/sampler_sparse.h) and the
 * scratch for L that holds them: none; by its tokens, read where the rule above says; whole
 * rows, read at every run's first token (any counts: the tests'). lda_zplan_make sets its own. */
void lda_zplan_set_word_lists(const lda_layout *L, int word_lists, lda_zplan *plan);

/* "staged", "split", ... */
const char *lda_zkernel_name(lda_zkernel kernel);

#ifdef __cplusplus
}
#endif

/* Shared memory of one butterfly block: θ of the group when staged (32 × K floats), then each
 * warp's block totals ((K / 32) × 32 reals), then, staged, the block's changes to n[k]. The
 * kernels lay their shared memory out by the same function. */
LDA_HD size_t lda_butterfly_smem_bytes(uint32_t K, uint32_t warps, int staged, size_t real_size)
{
    return (staged ? (size_t)LDA_WARP * K * sizeof(float) : 0) + (size_t)warps * (K / LDA_WARP) * LDA_WARP * real_size +
           (staged ? (size_t)K * sizeof(uint32_t) : 0);
}

#endif
