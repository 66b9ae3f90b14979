#!/usr/bin/env python3
"""The peers' one split of a UCI corpus (scripts/cpu-peers.sh), written once in every input format.

usage: split.py DOCWORD(.gz) VOCAB(.gz) FRACTION SEED OUTDIR

A document is held out when random.Random(SEED)'s next draw, taken in document order, is below
FRACTION. Writes into OUTDIR:
  vocab.txt         the vocabulary, one word a line (word i of the UCI file on line i): every
                    system's word ids and φ's columns go through it
  train.docword     the training documents, UCI (ldagpu train --vocab vocab.txt)
  train.txt         the same, one document a line of its words (Mallet, tomotopy)
  train.yahoo       the same as "ID ID word word ..." lines (WarpLDA's format tool)
  heldout.docword   the held-out documents, UCI, one token a line in an order shuffled by the seed
                    (document completion estimates θ on a document's first half and scores the
                    second: the UCI file's order would put the words of one end of the alphabet
                    in each half)
  split.txt         "key value" lines: documents, tokens and words of each part
Only the standard library: no NumPy needed here.
"""
import gzip
import random
import sys


def lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            yield line.rstrip("\n")


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__.split("\n\n")[1])
    docword, vocab_path, fraction, seed, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    vocab = [w.strip() for w in lines(vocab_path)]
    while vocab and not vocab[-1]:
        vocab.pop()
    it = lines(docword)
    num_docs, num_words, _nnz = (int(next(it)) for _ in range(3))
    if num_words != len(vocab):
        sys.exit(f"split.py: {docword} declares {num_words} words, {vocab_path} lists {len(vocab)}")
    docs = [[] for _ in range(num_docs)]  # (word id, count) pairs in file order
    for line in it:
        if line.strip():
            d, w, c = (int(x) for x in line.split())
            docs[d - 1].append((w - 1, c))
    rng = random.Random(seed)
    held = [rng.random() < fraction for _ in range(num_docs)]
    with open(f"{out}/vocab.txt", "w", encoding="utf-8") as f:
        f.write("".join(w + "\n" for w in vocab))
    train = [d for d in range(num_docs) if not held[d] and docs[d]]
    heldout = [d for d in range(num_docs) if held[d] and docs[d]]

    with open(f"{out}/train.docword", "w") as f:
        f.write(f"{len(train)}\n{num_words}\n{sum(len(docs[d]) for d in train)}\n")
        for i, d in enumerate(train, 1):
            f.write("".join(f"{i} {w + 1} {c}\n" for w, c in docs[d]))
    with open(f"{out}/train.txt", "w", encoding="utf-8") as txt, \
            open(f"{out}/train.yahoo", "w", encoding="utf-8") as yahoo:
        for i, d in enumerate(train):
            words = " ".join(" ".join([vocab[w]] * c) for w, c in docs[d])
            txt.write(words + "\n")
            yahoo.write(f"d{i} d{i} {words}\n")
    shuffle = random.Random(seed + 1)
    held_tokens = 0
    with open(f"{out}/heldout.docword", "w") as f:
        rows = []
        for i, d in enumerate(heldout, 1):
            tokens = [w for w, c in docs[d] for _ in range(c)]
            shuffle.shuffle(tokens)
            held_tokens += len(tokens)
            rows.extend(f"{i} {w + 1} 1\n" for w in tokens)
        f.write(f"{len(heldout)}\n{num_words}\n{len(rows)}\n")
        f.write("".join(rows))
    train_tokens = sum(c for d in train for _, c in docs[d])
    with open(f"{out}/split.txt", "w") as f:
        f.write(f"train_documents {len(train)}\ntrain_tokens {train_tokens}\n"
                f"heldout_documents {len(heldout)}\nheldout_tokens {held_tokens}\nwords {num_words}\n"
                f"fraction {fraction}\nseed {seed}\n")


if __name__ == "__main__":
    main()
