#!/bin/sh
# Time to quality (issue "Quality you can compare"): trains on a corpus (wiki43k) at K=1024
# and K=256 with every model version, 100 iterations, alpha = 50/K, beta = 0.01, evaluating
# every EVAL iterations, and keeps each run's log.csv (wall seconds of training, predictive
# and joint per-token log-likelihood) as OUTDIR/K<K>-<variant>.csv; then plots joint LL
# against training time with the peers' reference figures (scripts/plot-quality.sh).
# Variants: each model as the paper runs it (one z pass per φ update), and each model with
# --refresh R (REFRESH, default 8: z drawn in R parts, counts and φ brought up to date after
# each), named <model>-r<R>. REFRESH=1 runs only the first set. The θ-collapsed models also run
# with --sampler sparse, named <model>-sparse (SPARSE=0: not). Every run holds out HOLDOUT of
# the documents (default 0.1; 0: none) and scores them by document completion at each
# evaluation, so the plots show held-out log-likelihood too.
# usage: scripts/time-to-quality.sh CORPUS OUTDIR
# env: EVAL=5, KS="1024 256", REFRESH=8, DEVICE=cuda, SPARSE=1, HOLDOUT=0.1
set -eu
[ $# -eq 2 ] || { echo "usage: scripts/time-to-quality.sh CORPUS OUTDIR" >&2; exit 2; }
corpus=$1
out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
ldagpu=${LDAGPU:-$here/ldagpu}
refresh=${REFRESH:-8}
mkdir -p "$out"
run() { # K NAME ARGS...
    K=$1 name=$2
    shift 2
    dir=$(mktemp -d)
    "$ldagpu" train "$corpus" -K "$K" -n 100 -e "${EVAL:-5}" --device "${DEVICE:-cuda}" -q -o "$dir/model" \
        --holdout "${HOLDOUT:-0.1}" --doc-topics none "$@" \
        2> "$out/K$K-$name.log"
    cp "$dir/model/log.csv" "$out/K$K-$name.csv"
    rm -rf "$dir"
    tail -n 1 "$out/K$K-$name.log" >&2
}
for K in ${KS:-1024 256}; do
    for model in uncollapsed mean-for-mode theta-collapsed collapsed phi-mean; do
        run "$K" "$model" --model "$model" --sampler butterfly
        [ "$refresh" -gt 1 ] && run "$K" "$model-r$refresh" --model "$model" --sampler butterfly --refresh "$refresh"
        case $model in theta-collapsed | collapsed) [ "${SPARSE:-1}" = 0 ] || run "$K" "$model-sparse" --model "$model" --sampler sparse ;; esac
    done
done
if command -v gnuplot >/dev/null 2>&1; then
    "$here/scripts/plot-quality.sh" "$out"
else
    echo "time-to-quality: gnuplot not found; plot with scripts/plot-quality.sh $out" >&2
fi
