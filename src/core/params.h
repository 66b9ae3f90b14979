/* params.h — the settings of a training run, and the tables of named choices.
 *
 * Each choice the user can make by name (update rule, precision, device, ...) is one enum
 * and one table of {name, value, help}; the CLI help, the option parser, the model file and
 * the dispatch all read the same table, so a new variant is added in one place. */
#ifndef LDA_PARAMS_H
#define LDA_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;
    int value;
    const char *help;
} lda_choice;

typedef enum { LDA_UPDATE_DRAW = 0, LDA_UPDATE_MEAN = 1 } lda_update;
typedef enum { LDA_PRECISION_FLOAT = 0, LDA_PRECISION_DOUBLE = 1 } lda_precision;
typedef enum { LDA_DEVICE_AUTO = 0, LDA_DEVICE_CPU = 1, LDA_DEVICE_CUDA = 2 } lda_device;
/* z-sampling kernels: the GPU's (Steele & Tristan), the CPU always running its dense
 * reference for them; and sparse, which both backends run for the θ-collapsed models. */
typedef enum {
    LDA_SAMPLER_BUTTERFLY = 0,        /* Algorithm 7, table rebuilt in registers, rows split over warps */
    LDA_SAMPLER_BUTTERFLY_STORED = 1, /* Algorithm 7 as published: the whole table in per-thread memory */
    LDA_SAMPLER_TRANSPOSE = 2,        /* Algorithm 4 with the register transpose of Fig. 2 */
    LDA_SAMPLER_NAIVE = 3,            /* Algorithm 1 with the binary search of Algorithm 3 */
    LDA_SAMPLER_SPARSE = 4,           /* θ collapsed: document-sparse part + the word's dense part (sparse_draw.h) */
    LDA_SAMPLER_AUTO = 5,             /* train's and bench's default: lda_params_resolve_sampler's choice */
    LDA_SAMPLER_SPARSELDA = 6,        /* the collapsed model on the CPU: SparseLDA, counts moving token by token */
    LDA_SAMPLER_ALIAS = 7,            /* the collapsed model on the CPU: word by word, alias tables (sampler_alias.h) */
    LDA_SAMPLER_MH = 8,               /* alias's walk, word counts live in a block, a Metropolis–Hastings step (ibid.) */
} lda_sampler;

/* The collapsed model's draws that run on the CPU only (sparselda, alias, mh): made for φ the
 * counts' mean, documents drawn whole. */
int lda_sampler_cpu_only(lda_sampler s);
/* --optimize-mode: when the priors are learned (backend/optimize_priors.h says why once is the
 * default). Values are stored in model.conf by name. */
typedef enum {
    LDA_OPTIMIZE_ONCE = 0,  /* at the first multiple of the interval after the burn-in, then held */
    LDA_OPTIMIZE_EVERY = 1, /* at every multiple of the interval after the burn-in (Mallet's) */
} lda_optimize_mode;
/* --stream-tokens: whether the tokens stay in host memory and pass through the GPU a chunk at a
 * time (backend/stream_plan.h). Not recorded: the model is the same either way. */
typedef enum { LDA_STREAM_OFF = 0, LDA_STREAM_AUTO = 1, LDA_STREAM_ON = 2 } lda_stream_mode;
/* --phi-estimate: the φ a collapsed model writes (train/phi_expected.h). Stored in model.conf by
 * name; a model.conf without the key wrote the counts' mean. */
typedef enum {
    LDA_PHI_ESTIMATE_COUNTS = 0,   /* the mean of the last sample's counts */
    LDA_PHI_ESTIMATE_EXPECTED = 1, /* the mean of the expected counts given the other tokens' topics */
    LDA_PHI_ESTIMATE_AUTO = 2,     /* train's default: lda_params_resolve_phi_estimate's choice */
    LDA_PHI_ESTIMATE_CVB = 3,      /* the expected counts after passes of CVB0 from the last sample (train/phi_cvb.h) */
} lda_phi_estimate;
/* --phi-estimate auto takes cvb for the collapsed model on the CPU up to this K, where it was
 * measured (K = 100: docs/samplers.md, "The topics written"); expected above it. */
#define LDA_PHI_CVB_UP_TO_K 128
/* --phi-passes' default: the passes of CVB0 --phi-estimate cvb makes (docs/samplers.md says why). */
#define LDA_PHI_CVB_PASSES 20
/* The model versions Steele & Tristan compare; each is a pair (θ collapsed?, update rule). */
typedef enum {
    LDA_MODEL_UNCOLLAPSED = 0,     /* θ and φ drawn */
    LDA_MODEL_MEAN_FOR_MODE = 1,   /* θ and φ set to their means */
    LDA_MODEL_THETA_COLLAPSED = 2, /* θ integrated out (exact, per document), φ drawn */
    LDA_MODEL_COLLAPSED = 3,       /* θ integrated out, φ the mean of the previous counts (approximate) */
    LDA_MODEL_PHI_MEAN = 4,        /* θ drawn, φ the mean of the counts: uncollapsed's speed, collapsed's φ */
} lda_model_kind;

/* The model train recommends (--help, and a line when a run trains another): with --sampler auto
 * (sparse) it has the best held-out fit in the least time of the models, on the CPU and the GPU
 * (held-out log-likelihood a token after 100 iterations: wiki5k at K = 50 on the CPU −8.584 in
 * 8.7 s against uncollapsed's −8.711 in 18.5 s; wiki43k at K = 1024 on the H100 −8.138 against
 * −8.370). The default stays uncollapsed: the paper's sampler, which this program was built to run. */
#define LDA_MODEL_RECOMMENDED LDA_MODEL_COLLAPSED

extern const lda_choice lda_update_choices[];
extern const lda_choice lda_precision_choices[];
extern const lda_choice lda_device_choices[];
extern const lda_choice lda_sampler_choices[];
extern const lda_choice lda_model_choices[];
extern const lda_choice lda_optimize_mode_choices[];
extern const lda_choice lda_stream_choices[];
extern const lda_choice lda_phi_estimate_choices[];

/* Value of NAME in a NULL-terminated table, or -1. */
int lda_choice_parse(const lda_choice *table, const char *name);
/* Name of VALUE in the table ("?" if absent). */
const char *lda_choice_name(const lda_choice *table, int value);
/* "a|b|c" into buf. */
const char *lda_choice_list(const lda_choice *table, char *buf, size_t size);

typedef struct {
    uint32_t num_topics;   /* K */
    double alpha;          /* symmetric document-topic prior; <= 0: the default (lda_params_alpha) */
    double beta;           /* symmetric topic-word prior */
    uint32_t iterations;   /* iterations to run (after any resumed ones) */
    uint64_t seed;
    lda_update update;
    lda_precision precision;
    lda_device device;
    lda_sampler sampler;
    int theta_collapsed;   /* z draws use n[m,k] + α, updated token by token (see --model) */
    int phi_mean;          /* φ is the mean of the counts whatever `update` says (--model phi-mean) */
    uint32_t split;        /* butterfly, θ given: LDA_SPLIT_AUTO, LDA_SPLIT_STAGED, or N warps a document group */
    uint32_t refresh;      /* parts an iteration's z draw is made in, φ brought up to date after each */
    uint32_t piece_length; /* documents longer than this are drawn as pieces (backend/layout.h); 0: never;
                              LDA_PIECE_LENGTH_AUTO: lda_params_piece_length's choice */
    uint32_t start_topics; /* each document's tokens start in this many topics it draws (core/z_start.h); 0: each
                              token's uniform over K; LDA_START_TOPICS_AUTO: lda_params_start_topics's choice */
    uint32_t sample_start; /* iterations on a sample of the documents whose topics start the run (train/sample_start.h);
                              0: none; LDA_SAMPLE_START_AUTO: lda_params_sample_start's choice */
    uint32_t cvb_start;    /* passes of collapsed variational Bayes whose γ start the run (train/cvb_start.h); 0: none;
                              LDA_CVB_START_AUTO: lda_params_cvb_start's choice */
    uint32_t optimize_interval; /* learn α (per topic) and β every N iterations (0: never) ... */
    uint32_t optimize_burn_in;  /* ... once this many are done (backend/optimize_priors.h) */
    int optimize_mode;          /* lda_optimize_mode: learned once, or at every interval as Mallet does */
    int threads;           /* CPU worker threads; 0: one per core */
    uint32_t shards;       /* backends the documents are split over (--gpus; backend/shards.h); 0 or 1:
                              one. Not recorded: any count trains the same model */
    int shard_devices;     /* 1: shard g runs on CUDA device g (--gpus); 0: every shard on the one device
                              (LDAGPU_SHARDS, the test switch) */
    int cuda_device;       /* the CUDA device a backend runs on; -1: the current one */
    int over_ranks;        /* shard g is MPI process g's (mpirun; util/ranks.h), shards the processes */
    int shards_by_memory;  /* 1: the shards are split by memory even where it does not bind (backend/shards.h;
                              LDAGPU_SHARD_SPLIT=memory, a test switch) */
    int stream_tokens;     /* lda_stream_mode (--stream-tokens); not recorded */
    int phi_counts_only;   /* 1: the GPU's collapsed draw forms φ from the counts even on a corpus large
                              beside V × K (backend/zplan.h; the backend sets it where the tokens stream);
                              not recorded: either form draws the same model */
    int phi_estimate;      /* lda_phi_estimate: the φ written and scored (--phi-estimate) */
    uint32_t phi_passes;   /* --phi-estimate cvb's passes (--phi-passes; train/phi_cvb.h) */
    uint32_t eval_every;   /* evaluate every N iterations (0: only at the end) */
    int freeze_phi;        /* inference: φ is given (set_phi) and never updated */
    int sparse_long_lists; /* the sparse draw's compilation by its lists (backend/zplan.h): -1 the layout's
                              choice; 0 or 1 as the whole layout chose, given to every shard, whose
                              own layout could choose otherwise (the two agree in distribution only) */
} lda_params;

void lda_params_default(lda_params *p);

/* The most shards (--gpus) a run may be split into. */
#define LDA_MAX_SHARDS 64u

/* --piece-length: documents longer than this many tokens are cut into pieces of at most
 * that many (backend/layout.h), so that no warp waits for one long document. auto (the
 * default), measured on the H100 (results/README.md, "Document lengths"):
 *  - θ given: 512. Exact whatever the length; 512 was the fastest of 128, 256, 512 on
 *    wiki43k, wikimix and a corpus of 10^6-token documents (fewer, longer pieces mean fewer
 *    θ rows and stagings; shorter ones no better balance).
 *  - θ collapsed: 256. A piece's tokens are drawn in order by one lane, so the longest piece
 *    bounds the z kernel (collapsed, K = 1024: 16.5 ms at 512, 11.8 at 256, 8.8 at 128 on
 *    wiki43k), while the held-out log-likelihood after 100 iterations was the same at 256 as
 *    at 512 and uncut (−8.130 / −8.137 on wiki43k, −8.562 / −8.571 on wikimix) and 0.01
 *    lower at 128.
 *  - θ collapsed with --sampler sparse at K >= LDA_PIECE_LENGTH_SPARSE_LARGE_K, and with φ the
 *    mean (collapsed) from LDA_PIECE_LENGTH_SPARSE_MEAN_FROM_K: 512. There a
 *    token's work follows its document's topics, not K, and fewer pieces mean fewer lists to
 *    join after a pass and less room for them: K = 10,000, collapsed, 4.45 ms against 4.81 on
 *    wiki43k, 6.11 against 6.49 on wikimix; at 4096 3.00 / 4.55 against 3.05 / 4.57
 *    (results/sparse/ab-session9-h100.txt). At K = 1024, collapsed, a piece, which sees its document's
 *    other pieces as they were when the pass began, costs held-out log-likelihood: 512 against
 *    256 after 100 iterations, wiki43k +0.010 a token (six seeds, every one better: no
 *    document is cut), wikimix −0.000 (four seeds, −0.012 to +0.013); after 300 iterations
 *    +0.008 (five of six better) and +0.002 (six seeds, −0.002 to +0.009); bench 1.33 against
 *    1.36 ms on wiki43k, 2.17 against 2.15 on wikimix. At K = 256 pieces of 512 gain as much
 *    but make wikimix 1.54 ms an iteration instead of 1.45 (a 512-token piece is its warp's
 *    longest chain), so 256 stays there; so it does for θ-collapsed at 1024 (φ drawn), which 512
 *    made slower on wiki43k (2.08 against 1.95 ms) with its held-out figure not measured
 *    (results/sparse/ab-session12-h100.txt).
 *  - --sampler sparselda, alias and mh (the CPU's): 0, documents never cut. A CPU thread draws a document
 *    whatever its length, and a piece would see its document's other pieces as they were when
 *    the pass began, which the sampler's exact draw is there to avoid. */
#define LDA_PIECE_LENGTH_AUTO UINT32_MAX

/* --start-topics auto: the sparse start (core/z_start.h) of this many topics a document for the
 * collapsed model (where it was measured), the uniform start for the rest; a frozen φ (inference, the
 * held-out evaluation) always starts uniform, so the evaluator is the same for every model.
 * Measured: docs/samplers.md, "The start". */
#define LDA_START_TOPICS_AUTO UINT32_MAX
#define LDA_START_TOPICS_COLLAPSED 16
uint32_t lda_params_start_topics(const lda_params *p);
/* --sample-start auto: LDA_SAMPLE_START_ITERATIONS iterations on every LDA_SAMPLE_START_STRIDE-th
 * document for the collapsed model on the CPU from K = LDA_SAMPLE_START_FROM_K (where it was
 * measured: docs/samplers.md, "The start from a sample"; at K = 100 the held-out levels came no
 * sooner) where the sample holds at least LDA_SAMPLE_START_MIN_DOCS documents (a smaller one was
 * not measured), else none; a frozen φ never. num_docs: the documents trained on. */
#define LDA_SAMPLE_START_AUTO UINT32_MAX
#define LDA_SAMPLE_START_ITERATIONS 30
#define LDA_SAMPLE_START_STRIDE 10
#define LDA_SAMPLE_START_MIN_DOCS 1000
#define LDA_SAMPLE_START_FROM_K 1024
uint32_t lda_params_sample_start(const lda_params *p, size_t num_docs);
/* --cvb-start auto: LDA_CVB_START_PASSES passes for the collapsed model on the CPU up to
 * K = LDA_CVB_START_UP_TO_K (where it was measured, at K = 100: docs/samplers.md, "The start from
 * collapsed variational Bayes"; its bytes and its pass's cost grow with K) where the corpus holds
 * at least LDA_CVB_START_MIN_DOCS documents (a smaller one was not measured), unless the other
 * start is asked for by number; else none; a frozen φ never. Asked for by number, it turns the
 * sample start's auto off. Where auto's start would not fit in memory the run starts at random
 * (train/trainer.c). num_docs: the documents trained on. */
#define LDA_CVB_START_AUTO UINT32_MAX
#define LDA_CVB_START_PASSES 25
#define LDA_CVB_START_UP_TO_K 128
#define LDA_CVB_START_MIN_DOCS 1000
uint32_t lda_params_cvb_start(const lda_params *p, size_t num_docs);
/* Whether lda_params_cvb_start's passes are auto's choice rather than asked for. */
int lda_params_cvb_start_is_auto(const lda_params *p);
/* Refuses (input error) --cvb-start N and --sample-start M both given nonzero. */
int lda_params_check_starts(const lda_params *p, lda_error *err);
/* --optimize-burn-in: iterations before the priors are first learned (Mallet's default is 200
 * for runs of 1,000 and more; runs here are often 100). */
#define LDA_OPTIMIZE_BURN_IN_DEFAULT 50
#define LDA_STRINGIFY_(x) #x
#define LDA_STRINGIFY(x) LDA_STRINGIFY_(x) /* a number of a #define as text, for help texts */
#define LDA_PIECE_LENGTH_THETA_GIVEN 512u
#define LDA_PIECE_LENGTH_THETA_COLLAPSED 256u
#define LDA_PIECE_LENGTH_SPARSE_LARGE_K 4096
#define LDA_PIECE_LENGTH_SPARSE_MEAN_FROM_K 1024
#define LDA_PIECE_LENGTH_SPARSE_AT_LARGE_K 512u

/* The piece length a run uses: --piece-length, or the model's auto choice. */
uint32_t lda_params_piece_length(const lda_params *p);

/* --refresh R: an iteration draws z in R parts, part c being the warps q with q mod R = c
 * (so every part has documents of every length), and after each part the counts and φ are
 * brought up to date, so later parts see the earlier parts' draws. With collapsed φ this
 * shrinks the staleness of the word counts R-fold; with drawn φ it is still a Gibbs sampler
 * (a different scan order over the same conditionals). θ is updated once, at the end: a
 * document's counts only change in its own part. φ after part c of iteration i is drawn
 * from the random stream of "iteration" lda_phi_stream(i, c, R): the last part's is i, as
 * with R = 1 (so the φ a run starts or resumes from does not depend on R), the earlier
 * parts' come from the upper half of the 32-bit range, which iterations never reach. */
/* Warps (document groups) in part `part` of `parts`: those q < num_warps with q mod parts = part. */
static inline size_t lda_part_warps(size_t num_warps, uint32_t part, uint32_t parts)
{
    return part < num_warps ? (num_warps - part + parts - 1) / parts : 0;
}

static inline uint32_t lda_phi_stream(uint32_t iteration, uint32_t part, uint32_t refresh)
{
    return part + 1 == refresh ? iteration : 0x80000000u + iteration * (refresh - 1) + part;
}
/* --sampler auto (train's and bench's default): sparse where θ is collapsed (theta-collapsed,
 * collapsed; collapsed at K = 1024 on the H100: 1.3 ms an iteration against the dense
 * butterfly's 11; on the CPU at K = 50, wiki5k, 100 iterations in 8.7 s against the uncollapsed
 * model's 18.5); butterfly where θ is given (uncollapsed, mean-for-mode, phi-mean), which sparse
 * cannot draw. A run's sampler is resolved once its
 * model is known, before anything depends on it (the trainer, bench, every backend made), so
 * what runs and what model.conf records is a named sampler, never auto. */
void lda_params_resolve_sampler(lda_params *p);

/* --phi-estimate auto (train's default), given whether the run trains on the CPU: for the collapsed
 * model on the CPU, cvb up to K = LDA_PHI_CVB_UP_TO_K (train/phi_cvb.h) and expected above it,
 * each a few iterations' time once a run (train/phi_expected.h); the counts elsewhere, and on the GPU,
 * where that pass on the host would cost hundreds of iterations. The other models have only the
 * counts (lda_params_check_phi_estimate). */
void lda_params_resolve_phi_estimate(lda_params *p, int on_cpu);
/* 0, or -1 with err (an input error) where expected is asked of a model other than collapsed. */
int lda_params_check_phi_estimate(const lda_params *p, lda_error *err);

/* --model NAME sets theta_collapsed and update; lda_params_model names the pair. */
void lda_params_set_model(lda_params *p, lda_model_kind model);
lda_model_kind lda_params_model(const lda_params *p);

/* --split: how the butterfly sampler with θ given shares a document group's token rows.
 * auto (the default) lets backend/zplan.c choose; staged asks for one block of warps a group
 * with the group's θ copied to shared memory; N for N warps a group reading θ from global
 * memory (1: the paper's one-warp loop). */
#define LDA_SPLIT_AUTO 0u
#define LDA_SPLIT_STAGED UINT32_MAX
#define LDA_SPLIT_MAX 1024u

/* "auto", "staged" or the number, into buf. */
const char *lda_split_name(uint32_t split, char buf[16]);

/* How θ is updated after the z draws: with θ collapsed θ is only an estimate for output
 * and evaluation, the mean; otherwise the update rule. */
lda_update lda_theta_update(const lda_params *p);
/* How φ is updated: the update rule, or the mean (--model phi-mean). */
lda_update lda_phi_update(const lda_params *p);

/* alpha as used: the user's value, or, when unset, a prior mass of LDA_ALPHA_MASS_* spread over
 * the K topics. Measured on the H100/H200 (results/defaults/, scripts/models-table.sh; wiki5k,
 * wiki43k and wikimix, K = 50 to 1024, 100 and 300 iterations, 2-3 seeds, held-out by document
 * completion): where φ is the mean of the counts (collapsed, phi-mean, mean-for-mode) a mass of 20
 * beat the paper's 50 on every corpus and K, by 0.01-0.27 a token (wiki5k at K = 1024 a tie,
 * -0.002 at 100 iterations and +0.016 at 300); where φ is drawn (uncollapsed, theta-collapsed) it
 * did not: 0.03-0.05 worse on wiki5k at K = 1024, so those keep the paper's 50 (and 10 was worse
 * still there for every model). */
#define LDA_ALPHA_MASS_PHI_DRAWN 50.0
#define LDA_ALPHA_MASS_PHI_MEAN 20.0
double lda_params_alpha(const lda_params *p);

#ifdef __cplusplus
}
#endif

#endif
