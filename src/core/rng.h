/* rng.h — counter-based random numbers keyed on (seed, purpose, iteration, index).
 *
 * Every random number ldagpu uses is a pure function of the seed and of *what it is for*:
 * the purpose (initial topic, z draw, θ Gamma draw, ...), the iteration, and an index (the
 * token's position in the user's corpus, or m*K+k for θ[m,k]). So results do not depend on
 * the thread count, on the order work is scheduled, or on the backend, and an interrupted
 * run resumes on exactly the stream it left.
 *
 * The generator is Philox4x32-10 (Salmon et al., SC'11). On the GPU it is curand's own
 * curand_Philox4x32_10(); on the host the same function is written out below, and a GPU
 * test checks the two agree bit for bit.
 *
 * Counter layout (128 bits): x = draw block within the stream, y = iteration,
 * z = index bits 0..31, w = index bits 32..55 | purpose << 24. Key = the 64-bit seed. */
#ifndef LDA_RNG_H
#define LDA_RNG_H

#include <stdint.h>

#include "core/hd.h"

#if defined(__CUDACC__)
#include <curand_philox4x32_x.h>
#endif

enum lda_rng_purpose {
    LDA_RNG_Z_INIT = 1, /* initial topic of each token */
    LDA_RNG_Z = 2,      /* the z draw of each token */
    LDA_RNG_THETA = 3,  /* Gamma variates for θ[m,k] */
    LDA_RNG_PHI = 4,    /* Gamma variates for φ[w,k] */
    LDA_RNG_SPLIT = 5,  /* held-out document selection */
    LDA_RNG_HELDOUT = 6, /* the seed of each held-out evaluation (heldout.h) */
    LDA_RNG_GEN_LENGTH = 7,  /* ldagpu generate (synth/): each document's length */
    LDA_RNG_GEN_PHI = 8,     /* ... each planted topic's word distribution */
    LDA_RNG_GEN_THETA = 9,   /* ... each document's topic proportions */
    LDA_RNG_GEN_TOKENS = 10, /* ... each document's topics and words, one Philox block a token */
    LDA_RNG_SAMPLE_START = 11, /* each token's first topic drawn from a sample's topics (--sample-start) */
    LDA_RNG_CVB_START = 12,    /* a pair's first topic, then each token's drawn from its γ (--cvb-start) */
    LDA_RNG_TEST = 15,  /* reserved for tests */
};

typedef struct {
    uint32_t v[4];
} lda_u32x4;

#define LDA_PHILOX_M0 0xD2511F53u
#define LDA_PHILOX_M1 0xCD9E8D57u
#define LDA_PHILOX_W0 0x9E3779B9u
#define LDA_PHILOX_W1 0xBB67AE85u

/* Philox4x32-10 written out for the host; the device uses curand's. */
LDA_HD lda_u32x4 lda_philox_host(lda_u32x4 c, uint32_t k0, uint32_t k1)
{
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)LDA_PHILOX_M0 * c.v[0];
        uint64_t p1 = (uint64_t)LDA_PHILOX_M1 * c.v[2];
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        lda_u32x4 n = {{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
        c = n;
        k0 += LDA_PHILOX_W0;
        k1 += LDA_PHILOX_W1;
    }
    return c;
}

LDA_HD lda_u32x4 lda_philox(lda_u32x4 c, uint64_t seed)
{
#if defined(__CUDA_ARCH__)
    uint4 r = curand_Philox4x32_10(make_uint4(c.v[0], c.v[1], c.v[2], c.v[3]),
                                   make_uint2((uint32_t)seed, (uint32_t)(seed >> 32)));
    lda_u32x4 out = {{r.x, r.y, r.z, r.w}};
    return out;
#else
    return lda_philox_host(c, (uint32_t)seed, (uint32_t)(seed >> 32));
#endif
}

LDA_HD lda_u32x4 lda_rng_counter(uint32_t purpose, uint32_t iteration, uint64_t index, uint32_t block)
{
    lda_u32x4 c = {{block, iteration, (uint32_t)index,
                    (uint32_t)((index >> 32) & 0xFFFFFFu) | (purpose << 24)}};
    return c;
}

/* The first 32 random bits of a stream: one draw per (purpose, iteration, index). */
LDA_HD uint32_t lda_rng_once(uint64_t seed, uint32_t purpose, uint32_t iteration, uint64_t index)
{
    return lda_philox(lda_rng_counter(purpose, iteration, index, 0), seed).v[0];
}

/* A stream of 32-bit words for draws that need a variable count (Gamma rejection). */
typedef struct {
    uint64_t seed;
    lda_u32x4 ctr;
    lda_u32x4 out;
    int used; /* words of out already handed out */
} lda_rng;

LDA_HD void lda_rng_init(lda_rng *r, uint64_t seed, uint32_t purpose, uint32_t iteration, uint64_t index)
{
    r->seed = seed;
    r->ctr = lda_rng_counter(purpose, iteration, index, 0);
    r->used = 4;
}

/* Hands out the words of each Philox block in order. The block is shifted rather than
 * indexed by `used`: a run-time index would put the whole stream into GPU local memory. */
LDA_HD uint32_t lda_rng_next(lda_rng *r)
{
    if (r->used == 4) {
        r->out = lda_philox(r->ctr, r->seed);
        r->ctr.v[0]++;
        r->used = 0;
    }
    uint32_t x = r->out.v[0];
    r->out.v[0] = r->out.v[1];
    r->out.v[1] = r->out.v[2];
    r->out.v[2] = r->out.v[3];
    r->used++;
    return x;
}

/* Uniforms in [0,1): exact conversions, so host and device agree to the bit. */
LDA_HD float lda_uniform_float(uint32_t x)
{
    return (float)(x >> 8) * 5.9604644775390625e-8f; /* 2^-24 */
}

LDA_HD double lda_uniform_double(uint32_t x)
{
    return (double)x * 2.3283064365386963e-10; /* 2^-32 */
}

/* Uniform in (0,1], for logarithms. */
LDA_HD double lda_uniform_open0(uint32_t x)
{
    return ((double)x + 1.0) * 2.3283064365386963e-10;
}

#endif
