#!/bin/sh
# The table of models in the README's "Choosing settings": each model trained on the same
# corpora with the same split, held-out log-likelihood per token (document completion, the
# same held-out documents for every model) and seconds of training, on one device.
#
# usage: scripts/models-table.sh OUTDIR
# env:
#   DEVICE=cpu|cuda        where to train (default cpu)
#   CORPORA="wiki5k wiki43k wikimix"   names under CORPUS_DIR (default ../shared/corpora, else
#                          .corpora): wiki5k is read as raw text (NAME.txt.gz), the others as UCI
#   KS="50"                numbers of topics
#   MODELS="collapsed theta-collapsed phi-mean uncollapsed mean-for-mode"  each MODEL or
#                          MODEL:SAMPLER (without one the program's default sampler for the model)
#   ALPHAS="default"       per-topic alpha values: a number, "default" (the program's), or
#                          "N/K" (N divided by K, e.g. 5/K, Mallet's default sum of 5)
#   SEEDS="1"              one run per seed
#   OPTIMIZE="0"           --optimize-interval values (0: symmetric priors; N: learned every N
#                          iterations after --optimize-burn-in, the program's default)
#   ITERATIONS=100 HOLDOUT=0.1 THREADS (CPU threads; default all) LDAGPU (default ./ldagpu)
#   LDAGPU_TRAIN_EXTRA     further train options for every run (word-split)
# Writes OUTDIR/runs.csv (one row a run) and prints a Markdown table (OUTDIR/table.md): one row
# per model and alpha, per corpus and K the held-out figure (mean over seeds, and its spread
# when there are several) and the seconds of training (iterations only: the corpus read and
# the evaluations are not counted).
set -eu
[ $# -eq 1 ] || { echo "usage: scripts/models-table.sh OUTDIR" >&2; exit 2; }
out=$1
here=$(cd "$(dirname "$0")/.." && pwd)
ldagpu=${LDAGPU:-$here/ldagpu}
device=${DEVICE:-cpu}
dir=${CORPUS_DIR:-}
if [ -z "$dir" ]; then
    if [ -d "$here/../shared/corpora" ]; then dir=$here/../shared/corpora; else dir=$here/.corpora; fi
fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=$out/runs.csv
echo "corpus,device,topics,model,sampler,alpha,seed,iterations,train_seconds,heldout,optimize_interval" > "$runs"

# Each corpus read once into ldagpu's binary form, so that reading costs every run the same.
corpus_file() { # NAME -> path of its binary corpus
    name=$1
    bin=$work/$name.ldab
    if [ ! -f "$bin" ]; then
        if [ -f "$dir/$name/$name.txt.gz" ] && [ "$name" = wiki5k ]; then
            src=$dir/$name/$name.txt.gz
        else
            src=$dir/$name/docword.$name.txt.gz
        fi
        "$ldagpu" format "$src" -o "$bin" >/dev/null 2>"$work/format.log" ||
            { cat "$work/format.log" >&2; exit 1; }
    fi
    echo "$bin"
}

alpha_value() { # SPEC K -> the -a argument, empty for the default
    case $1 in
        default) echo "" ;;
        */K) awk -v n="${1%/K}" -v k="$2" 'BEGIN { printf "%.9g", n / k }' ;;
        *) echo "$1" ;;
    esac
}

for name in ${CORPORA:-wiki5k wiki43k wikimix}; do
    corpus=$(corpus_file "$name")
    for K in ${KS:-50}; do
        for spec in ${MODELS:-collapsed theta-collapsed phi-mean uncollapsed mean-for-mode}; do
            model=${spec%%:*}
            sampler_arg=
            [ "$model" = "$spec" ] || sampler_arg=${spec#*:}
            for alpha in ${ALPHAS:-default}; do
              a=$(alpha_value "$alpha" "$K")
              for opt in ${OPTIMIZE:-0}; do
                for seed in ${SEEDS:-1}; do
                    m=$work/model
                    rm -rf "$m"
                    # shellcheck disable=SC2086
                    "$ldagpu" train "$corpus" -K "$K" -n "${ITERATIONS:-100}" -e 0 --holdout "${HOLDOUT:-0.1}" \
                        --model "$model" --device "$device" --seed "$seed" --doc-topics none -o "$m" --optimize-interval "$opt" \
                        ${a:+-a "$a"} ${sampler_arg:+--sampler "$sampler_arg"} ${THREADS:+-j "$THREADS"} ${LDAGPU_TRAIN_EXTRA:-} 2> "$work/train.log" ||
                        { cat "$work/train.log" >&2; exit 1; }
                    sampler=$(sed -n 's/^sampler = //p' "$m/model.conf")
                    alpha_used=$(sed -n 's/^alpha = //p' "$m/model.conf")
                    tail -n 1 "$m/log.csv" | awk -F, -v c="$name" -v d="$device" -v k="$K" -v mo="$model" \
                        -v s="$sampler" -v al="$alpha_used" -v se="$seed" -v op="$opt" \
                        '{ printf "%s,%s,%s,%s,%s,%s,%s,%s,%.3f,%s,%s\n", c, d, k, mo, s, al, se, $1, $3, $9, op }' >> "$runs"
                    tail -n 1 "$runs" >&2
                done
              done
            done
        done
    done
done

# The table: a row per (model, alpha), a pair of columns per (corpus, K).
awk -F, '
NR == 1 { next }
{
    col = $1 " K=" $3; row = $4 "|" $5 "|" ($11 > 0 ? "learned (every " $11 ")" : $6)
    if (!(col in seen_col)) { seen_col[col] = 1; cols[++nc] = col }
    if (!(row in seen_row)) { seen_row[row] = 1; rows[++nr] = row }
    key = row SUBSEP col
    n[key]++; sum[key] += $10; secs[key] += $9
    if (!(key in lo) || $10 < lo[key]) lo[key] = $10
    if (!(key in hi) || $10 > hi[key]) hi[key] = $10
}
END {
    printf "| model | sampler | alpha |"
    for (c = 1; c <= nc; c++) printf " %s held-out | s |", cols[c]
    printf "\n|---|---|---|"
    for (c = 1; c <= nc; c++) printf "---|---|"
    printf "\n"
    for (r = 1; r <= nr; r++) {
        split(rows[r], f, "|")
        printf "| %s | %s | %s |", f[1], f[2], f[3]
        for (c = 1; c <= nc; c++) {
            key = rows[r] SUBSEP cols[c]
            if (!(key in n)) { printf " | |"; continue }
            if (n[key] > 1)
                printf " %.3f (±%.3f) | %.2f |", sum[key] / n[key], (hi[key] - lo[key]) / 2, secs[key] / n[key]
            else
                printf " %.3f | %.2f |", sum[key], secs[key]
        }
        printf "\n"
    }
}' "$runs" | tee "$out/table.md"
