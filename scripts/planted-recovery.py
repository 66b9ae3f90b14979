#!/usr/bin/env python3
"""Planted topics recovered by a model: each planted topic (a row of `ldagpu generate`'s
PATH.phi.npy) matched to its nearest learned topic (a row of the model's phi.npy).

usage: planted-recovery.py PLANTED.phi.npy MODEL/phi.npy [MAX_TV]

Nearest by Hellinger distance, sqrt(1 - sum_w sqrt(p_w q_w)): the sums of every pair are one
matrix product (K = 1024 over 50,000 words: 20 s with the reference BLAS on 2 cores, less with
an optimized one), where total variation for every pair would be K^2 V absolute differences.
A planted topic counts as recovered when its nearest learned topic is within MAX_TV in total
variation (half the L1 distance; default 0.15, the criterion of tests/planted.c's
planted_expect_matched). Prints key=value lines: topics, recovered, the mean and median of both
distances, and how many distinct learned topics the matches use (fewer than the planted topics:
some learned topics stand for two or more planted ones).
"""
import sys

import numpy as np


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split("\n\n")[1])
    planted = np.load(sys.argv[1]).astype(np.float64)
    learned = np.load(sys.argv[2]).astype(np.float64)
    max_tv = float(sys.argv[3]) if len(sys.argv) == 4 else 0.15
    if planted.ndim != 2 or learned.ndim != 2 or planted.shape[1] != learned.shape[1]:
        sys.exit(f"planted-recovery: {sys.argv[1]} is {planted.shape}, {sys.argv[2]} is {learned.shape}: "
                 "not topics over the same words")
    # Rows as distributions: the files hold them normalized, up to float32 rounding.
    planted /= planted.sum(axis=1, keepdims=True)
    learned /= learned.sum(axis=1, keepdims=True)
    # Bhattacharyya coefficients, P x K, in float32: a sum of V terms off by ~1e-6 relatively,
    # far below the distances compared, and half the time of float64 with a plain BLAS.
    affinity = (np.sqrt(planted).astype(np.float32) @ np.sqrt(learned).astype(np.float32).T).astype(np.float64)
    nearest = affinity.argmax(axis=1)
    hellinger = np.sqrt(np.clip(1.0 - affinity[np.arange(len(planted)), nearest], 0.0, None))
    tv = 0.5 * np.abs(planted - learned[nearest]).sum(axis=1)
    print(f"topics={len(planted)}")
    print(f"learned_topics={len(learned)}")
    print(f"max_tv={max_tv}")
    print(f"recovered={int((tv <= max_tv).sum())}")
    print(f"recovered_fraction={(tv <= max_tv).mean():.4f}")
    print(f"hellinger_mean={hellinger.mean():.4f}")
    print(f"hellinger_median={np.median(hellinger):.4f}")
    print(f"tv_mean={tv.mean():.4f}")
    print(f"tv_median={np.median(tv):.4f}")
    print(f"distinct_matches={len(np.unique(nearest))}")


if __name__ == "__main__":
    main()
