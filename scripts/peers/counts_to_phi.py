#!/usr/bin/env python3
"""φ of another program's word-topic counts, for `ldagpu eval --phi` (scripts/cpu-peers.sh).

usage: counts_to_phi.py VOCAB K BETA OUT.npy counts FILE          ("word topic count" lines)
       counts_to_phi.py VOCAB K BETA OUT.npy warplda MODEL WVOCAB (WarpLDA's .model and its
                                                                   .vocab from its format tool)

φ[k, w] = (n[k, w] + β) / (n[k] + V β) over the V words of VOCAB (one a line; the columns' order),
the mean of the counts as ldagpu's collapsed model forms its own φ; a word the program never saw
has count 0. Written as K × V float32 .npy. Needs NumPy.
"""
import sys

import numpy as np


def read_counts(path, word_id, K):
    n = np.zeros((K, len(word_id)), dtype=np.float64)
    with open(path, encoding="utf-8") as f:
        for line in f:
            word, topic, count = line.split()
            n[int(topic), word_id[word]] += int(count)
    return n


def read_warplda(model, wvocab, word_id, K):
    with open(wvocab, encoding="utf-8") as f:
        words = [w.rstrip("\n") for w in f]
    n = np.zeros((K, len(word_id)), dtype=np.float64)
    with open(model) as f:
        v, k, _alpha, _beta = f.readline().split()
        if int(k) != K or int(v) != len(words):
            sys.exit(f"counts_to_phi.py: {model} has V = {v}, K = {k}; expected {len(words)} and {K}")
        for i, line in enumerate(f):
            fields = line.split()
            w = word_id[words[i]]
            for entry in fields[1:]:
                topic, count = entry.split(":")
                n[int(topic), w] += int(count)
    return n


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__.split("\n\n")[1])
    vocab_path, K, beta, out, kind = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
    with open(vocab_path, encoding="utf-8") as f:
        vocab = [w.rstrip("\n") for w in f if w.strip()]
    word_id = {w: i for i, w in enumerate(vocab)}
    if kind == "counts":
        n = read_counts(sys.argv[6], word_id, K)
    elif kind == "warplda":
        n = read_warplda(sys.argv[6], sys.argv[7], word_id, K)
    else:
        sys.exit(f"counts_to_phi.py: unknown kind '{kind}' (counts or warplda)")
    phi = (n + beta) / (n.sum(axis=1, keepdims=True) + len(vocab) * beta)
    np.save(out, phi.astype("<f4"))


if __name__ == "__main__":
    main()
