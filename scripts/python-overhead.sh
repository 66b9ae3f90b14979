#!/bin/sh
# What training from Python costs beyond the command line: LDA.fit on a scipy.sparse matrix of
# wiki43k (read from its UCI files beforehand, not timed) against `ldagpu train` on the same UCI
# files, same settings and iterations, on the CPU. Times each end to end (the CLI: reading the
# gzip file, training, writing the model; Python: the arrays handed over and checked, training,
# φ and θ copied into numpy), best of RUNS, and prints both, their ratio (the target: within
# 1.05) and the iterations' own seconds of each; the two φ are compared byte for byte.
# usage: scripts/python-overhead.sh [CORPORA_DIR]        (default .corpora; wiki43k/ inside)
# env: LDAGPU (binary, default ./ldagpu), LDAGPU_LIBRARY (default ./libldagpu.so), PYTHON
#      (default /usr/bin/python3), K (100), ITERATIONS (10), MODEL (collapsed), THREADS (all
#      cores), RUNS (1).
set -eu
dir=${1:-.corpora}
docword="$dir/wiki43k/docword.wiki43k.txt.gz"
vocab="$dir/wiki43k/vocab.wiki43k.txt.gz"
[ -f "$docword" ] && [ -f "$vocab" ] || { echo "python-overhead: no $docword and $vocab" >&2; exit 2; }
bin=${LDAGPU:-./ldagpu}
export LDAGPU_LIBRARY="$(realpath "${LDAGPU_LIBRARY:-./libldagpu.so}")"
K=${K:-100} N=${ITERATIONS:-10} MODEL=${MODEL:-collapsed} THREADS=${THREADS:-$(nproc)} RUNS=${RUNS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

best_cli=
i=0
while [ "$i" -lt "$RUNS" ]; do
    start=$(date +%s.%N)
    "$bin" train "$docword" --vocab "$vocab" -K "$K" -n "$N" -m "$MODEL" -j "$THREADS" --device cpu -e 0 \
        --force -o "$work/cli" 2> "$work/cli.log"
    end=$(date +%s.%N)
    t=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
    best_cli=$(echo "$t $best_cli" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }')
    i=$((i + 1))
done
cli_iter=$(sed -n 's/.* iterations in \([0-9.]*\) s .*/\1/p' "$work/cli.log")

PYTHONPATH="$(pwd)/python" "${PYTHON:-/usr/bin/python3}" - "$docword" "$vocab" "$work" "$K" "$N" "$MODEL" "$THREADS" \
    "$RUNS" "$best_cli" "$cli_iter" <<'EOF'
import gzip, sys, time
import numpy as np
import scipy.sparse
import ldagpu

docword, vocab_path, work, K, N, model, threads, runs, cli, cli_iter = sys.argv[1:]
with gzip.open(docword, "rb") as f:
    D, V, nnz = (int(f.readline()) for _ in range(3))
    triples = np.array(f.read().split(), dtype=np.int64).reshape(-1, 3)
X = scipy.sparse.csr_matrix((triples[:, 2], (triples[:, 0] - 1, triples[:, 1] - 1)), shape=(D, V))
with gzip.open(vocab_path, "rt", encoding="utf-8") as f:
    vocab = [w.rstrip("\n") for w in f]
best, iter_seconds = None, 0.0
for _ in range(int(runs)):
    seconds = []
    lda = ldagpu.LDA(n_topics=int(K), model=model, n_iter=int(N), threads=int(threads), device="cpu", eval_every=0,
                     progress=lambda p: seconds.append(p.seconds))
    start = time.perf_counter()
    lda.fit(X, vocabulary=vocab)
    t = time.perf_counter() - start
    if best is None or t < best:
        best, iter_seconds = t, sum(seconds)
lda.save(work + "/py", force=True)
same = open(work + "/py/phi.npy", "rb").read() == open(work + "/cli/phi.npy", "rb").read()
cli = float(cli)
print("wiki43k: %d documents, %d tokens; K=%s, %s iterations, model %s, %s threads, CPU" % (D, X.sum(), K, N, model,
                                                                                        threads))
print("ldagpu train (end to end):  %.2f s  (iterations %s s)" % (cli, cli_iter or "?"))
print("LDA.fit from scipy.sparse:  %.2f s  (iterations %.2f s)" % (best, iter_seconds))
print("ratio fit / train: %.3f   (target <= 1.05)" % (best / cli))
print("phi byte-identical: %s" % ("yes" if same else "NO"))
sys.exit(0 if same else 1)
EOF
