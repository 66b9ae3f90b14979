#!/bin/sh
# Several GPUs against one (issue 14): generates a corpus on the machine itself (ldagpu generate,
# binary form), trains it on 1 GPU, on N with --gpus N, and under `mpirun -np N` (one process a
# GPU), and reports ms an iteration (the median of log.csv's iterations after the first 5), the
# speed-up, and whether the three models are byte for byte the same (model files and the log's
# figures). From the time one GPU and N take it also writes what the exchange of the counts costs
# (t_N − t_1/N) and the bytes it sums each time (V × K and K counts of 4 bytes), and from those an
# estimate of larger counts of GPUs (marked as an estimate). Prints a markdown table, also
# OUTDIR/summary.md.
#
# usage: scripts/gpus-bench.sh OUTDIR
# env:  GPUS (2), TOKENS (200000000), K (1024), ITERS (30), MODEL (uncollapsed), SAMPLER (butterfly),
#       MEAN_LENGTH (300), VOCAB (50000), SEED (1), LDAGPU (./ldagpu), MPI (1: also mpirun -np N),
#       DEVICE (cuda; cpu: the same runs split by the test switch LDAGPU_SHARDS, to test this
#       script where there is no GPU), WORK (${TMPDIR:-/tmp}/ldagpu-gpus: the corpus and models;
#       removed at the end unless KEEP=1)
set -eu
out=${1:?usage: scripts/gpus-bench.sh OUTDIR}
bin=${LDAGPU:-./ldagpu}
gpus=${GPUS:-2}
K=${K:-1024}
iters=${ITERS:-30}
device=${DEVICE:-cuda}
work=${WORK:-${TMPDIR:-/tmp}/ldagpu-gpus}
mkdir -p "$out" "$work"
corpus="$work/corpus.ldab"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0

mean=${MEAN_LENGTH:-300}
"$bin" generate -o "$corpus" --docs $((${TOKENS:-200000000} / mean)) --mean-length "$mean" --lengths lognormal \
    --vocab-size "${VOCAB:-50000}" -K "$K" -a "$(awk -v k="$K" 'BEGIN { print 3.2 / k }')" -s "${SEED:-1}" \
    > "$out/generate.log" 2>&1

common="-K $K -n $iters -e $iters -s ${SEED:-1} --model ${MODEL:-uncollapsed} --sampler ${SAMPLER:-butterfly} --doc-topics top:10"
run() { # NAME COMMAND...: one training run (the command and its own options) into $work/NAME, its log kept
    name=$1
    shift
    rm -rf "${work:?}/$name"
    "$@" $common -o "$work/$name" > "$out/$name.log" 2>&1
    cp "$work/$name/log.csv" "$out/$name.csv"
}
if [ "$device" = cpu ]; then
    run one "$bin" train "$corpus" --device cpu
    LDAGPU_SHARDS=$gpus run split "$bin" train "$corpus" --device cpu
    [ "${MPI:-1}" = 0 ] || run mpi mpirun --oversubscribe -np "$gpus" "$bin" train "$corpus" --device cpu
else
    run one "$bin" train "$corpus" --device cuda
    run split "$bin" train "$corpus" --gpus "$gpus"
    [ "${MPI:-1}" = 0 ] || run mpi mpirun -np "$gpus" "$bin" train "$corpus" --device cuda
fi

median_ms() { # log.csv: the median of column 2 (seconds) over the iterations after the first 5, in ms
    awk -F, 'NR > 6 { print $2 * 1000 }' "$1" | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "not measured" }'
}
same() { # whether the model of run $1 is the one of run "one", byte for byte
    for f in phi.npy z.npy topic_tokens.npy doc_topics_index.npy doc_topics_weight.npy topics.txt; do
        cmp -s "$work/one/$f" "$work/$1/$f" || { echo "no ($f differs)"; return; }
    done
    cut -d, -f1,7- "$work/one/log.csv" > "$work/one.figures"
    cut -d, -f1,7- "$work/$1/log.csv" > "$work/$1.figures"
    cmp -s "$work/one.figures" "$work/$1.figures" && echo "yes" || echo "no (the log's figures differ)"
}
t1=$(median_ms "$out/one.csv")
t2=$(median_ms "$out/split.csv")
V=$(sed -n 's/^vocabulary = //p' "$work/one/model.conf")
gpu=$(sed -n 's/.* on CUDA: \([^(]*[^ (]\) *(.*/\1/p' "$out/one.log" | head -1)
{
    echo "| $gpus devices against 1 ($device${gpu:+: $gpu}) | measured |"
    echo "|---|---|"
    echo "| corpus | $(sed -n 's/^ldagpu: read \(.*\) in .*/\1/p' "$out/one.log"); K = $K, ${MODEL:-uncollapsed}, ${SAMPLER:-butterfly}, $iters iterations |"
    echo "| one | $t1 ms an iteration (median after the first 5) |"
    echo "| --gpus $gpus | $t2 ms; speed-up $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", a / b }'); the same model: $(same split) |"
    if [ -f "$out/mpi.csv" ]; then
        t3=$(median_ms "$out/mpi.csv")
        echo "| mpirun -np $gpus | $t3 ms; speed-up $(awk -v a="$t1" -v b="$t3" 'BEGIN { printf "%.2f", a / b }'); the same model: $(same mpi) |"
    fi
    awk -v a="$t1" -v b="$t2" -v n="$gpus" -v V="$V" -v K="$K" 'BEGIN {
        x = b - a / n; bytes = (V * K + K) * 4
        printf "| the exchange (t_%d - t_1/%d) | %.1f ms an iteration, summing %.0f MiB of counts (and the split documents'\'' rows) |\n", n, n, x, bytes / 1048576
        for (m = 4; m <= 8; m *= 2)
            printf "| estimate, %d devices (not measured) | %.1f ms: t_1/%d + the exchange grown as a ring all-reduce, 2(N-1)/N |\n", m, a / m + x * (2 * (m - 1) / m) / (2 * (n - 1) / n), m
    }'
} | tee "$out/summary.md"
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
