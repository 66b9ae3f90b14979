#!/bin/sh
# The sparse sampler against the dense ones (issue: "a sparsity-aware sampler"): `ldagpu bench`
# on wiki43k and wikimix at K = 256, 1024, 4096 and 10,000, the θ-collapsed models with
# --sampler butterfly and sparse, and uncollapsed (butterfly) as the reference; then one
# training run of each corpus at K = 10,000 with sparse, for the device memory it plans
# ("GiB of state" in its log). The sparse draw's cost follows the topics of each document, which
# fall from the random start's min(K, length) over the first iterations, so the points are
# timed after WARMUP iterations (default 30), not bench's 2.
# Writes OUTDIR/sparse.csv (bench's rows, a corpus column first) and prints a table of ms an
# iteration by (model, sampler, K) and corpus.
# usage: scripts/sparse-bench.sh OUTDIR [CORPORA_DIR]     (CORPORA_DIR: default .corpora)
# env: LDAGPU (binary, default ./ldagpu), K (default 256,1024,4096,10000), WARMUP (30),
#      DEVICE (cuda), CORPORA_LIST (default "wiki43k wikimix"), TRAIN_K (the memory run's K, 10000).
set -eu
out=${1:?usage: scripts/sparse-bench.sh OUTDIR [CORPORA_DIR]}
dir=${2:-.corpora}
bin=${LDAGPU:-./ldagpu}
mkdir -p "$out"
csv="$out/sparse.csv"
: > "$csv"
for name in ${CORPORA_LIST:-wiki43k wikimix}; do
    docword="$dir/$name/docword.$name.txt.gz"
    [ -f "$docword" ] || { echo "sparse-bench: no $docword, skipped" >&2; continue; }
    "$bin" bench "$docword" -K "${K:-256,1024,4096,10000}" --device "${DEVICE:-cuda}" -w "${WARMUP:-30}" \
        --samplers butterfly,sparse --models uncollapsed,theta-collapsed,collapsed \
        -o "$out/bench-$name.csv" 2> "$out/bench-$name.log"
    if [ ! -s "$csv" ]; then head -1 "$out/bench-$name.csv" | sed 's/^/corpus,/' > "$csv"; fi
    tail -n +2 "$out/bench-$name.csv" | sed "s/^/$name,/" >> "$csv"
    model=$(mktemp -d)
    log="$out/train-memory-$name.log"
    "$bin" train "$docword" -K "${TRAIN_K:-10000}" -n 5 --model collapsed --sampler sparse --device "${DEVICE:-cuda}" -q \
        --doc-topics none -o "$model/m" 2> "$log" || true
    sed -n "s/.*, \([0-9.]* GiB of state\).*/$name, K=${TRAIN_K:-10000}, sparse: \1/p" "$log"
    rm -rf "$model"
done
# corpus,K,sampler,precision,model,...,ms_median (col 8),...,tokens_per_s (col 14)
awk -F, 'NR > 1 { key = $5 " " $3 " K=" $2; ms[key, $1] = $8; if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
                  if (!($1 in cseen)) { cseen[$1] = 1; corp[++m] = $1 } }
    END {
        printf "| model, sampler, K |"; for (j = 1; j <= m; j++) printf " %s ms |", corp[j]; printf "\n|---|"
        for (j = 1; j <= m; j++) printf "---|"; printf "\n"
        for (i = 1; i <= n; i++) { printf "| %s |", keys[i]; for (j = 1; j <= m; j++) printf " %s |", ms[keys[i], corp[j]]; printf "\n" }
    }' "$csv"
