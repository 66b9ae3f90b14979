/* vector_clones.h — LDA_VECTOR_CLONES: a hot loop compiled for AVX-512 and AVX2 as well, the
 * machine's best chosen when the program starts (GCC's target_clones on x86-64 Linux with glibc;
 * elsewhere nothing). The build targets x86-64-v2 so that one binary runs on every x86-64
 * machine, and a loop bound by its arithmetic gains from the wider vectors: a CVB pass of wikimix
 * at K = 100 on 2 cores took about 25% less (docs/samplers.md).
 *
 * Only for loops whose bits do not depend on the vector width: elementwise arithmetic, and sums
 * written in a fixed order (the build is ISO C, -std=c11, where GCC does not fuse a multiply and
 * an add into one rounding, -ffp-contract=off). */
#ifndef LDA_VECTOR_CLONES_H
#define LDA_VECTOR_CLONES_H

#include <limits.h> /* glibc's defines __GLIBC__: the clones are chosen through its ifunc */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define LDA_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LDA_VECTOR_CLONES
#endif

#endif
