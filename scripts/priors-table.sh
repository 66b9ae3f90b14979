#!/bin/sh
# Symmetric against learned priors: held-out log-likelihood per token (document completion, 10% of
# the documents) of the same model trained with the default symmetric α and β, with priors learned
# once (--optimize-mode once, the default) and learned at every interval (--optimize-mode every,
# Mallet's), on wiki5k, wiki43k and wikimix at K = 50, 256 and 1024. Each learned figure is
# printed as its difference from the symmetric one of the same seed (the seed also picks the
# held-out documents), with the spread between seeds beside it.
#
# usage: scripts/priors-table.sh OUTDIR
# env: DEVICE=cuda|cpu (default cuda), MODEL=collapsed, KS="50 256 1024", SEEDS="1 2",
#      ITERATIONS=300, INTERVAL=10, CORPORA, CORPUS_DIR, LDAGPU, THREADS (as scripts/models-table.sh)
# Writes OUTDIR/{symmetric,once,every}/runs.csv and prints OUTDIR/priors.md.
set -eu
[ $# -eq 1 ] || { echo "usage: scripts/priors-table.sh OUTDIR" >&2; exit 2; }
out=$1
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export DEVICE="${DEVICE:-cuda}" KS="${KS:-50 256 1024}" SEEDS="${SEEDS:-1 2}" ITERATIONS="${ITERATIONS:-300}"
export MODELS="${MODEL:-collapsed}"
OPTIMIZE=0 "$here/scripts/models-table.sh" "$out/symmetric" > "$out/symmetric.log" 2>&1 ||
    { cat "$out/symmetric.log" >&2; exit 1; }
for mode in once every; do
    OPTIMIZE="${INTERVAL:-10}" LDAGPU_TRAIN_EXTRA="--optimize-mode $mode" \
        "$here/scripts/models-table.sh" "$out/$mode" > "$out/$mode.log" 2>&1 || { cat "$out/$mode.log" >&2; exit 1; }
done

# One row per corpus and K: the symmetric figure, then each mode's difference (mean over seeds,
# and the smallest and largest of the per-seed differences).
awk -F, '
FNR == 1 { kind = FILENAME; sub(/\/runs\.csv$/, "", kind); sub(/.*\//, "", kind); next }
{
    key = $1 " | " $3; seed = $7
    if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
    v[kind, key, seed] = $10; seeds[seed] = 1
}
END {
    printf "| corpus | K | symmetric | learned once | learned every interval |\n|---|---|---|---|---|\n"
    for (i = 1; i <= nk; i++) {
        key = keys[i]; n = 0; sum = 0
        for (s in seeds) if ((("symmetric", key, s) in v)) { n++; sum += v["symmetric", key, s] }
        printf "| %s | %.3f |", key, n ? sum / n : 0
        for (m = 1; m <= 2; m++) {
            mode = m == 1 ? "once" : "every"; n = 0; sum = 0; lo = 1e9; hi = -1e9
            for (s in seeds)
                if (((mode, key, s) in v) && (("symmetric", key, s) in v)) {
                    d = v[mode, key, s] - v["symmetric", key, s]; n++; sum += d
                    if (d < lo) lo = d; if (d > hi) hi = d
                }
            if (n) printf " %+.3f (%+.3f to %+.3f) |", sum / n, lo, hi; else printf " |"
        }
        printf "\n"
    }
}' "$out/symmetric/runs.csv" "$out/once/runs.csv" "$out/every/runs.csv" | tee "$out/priors.md"
