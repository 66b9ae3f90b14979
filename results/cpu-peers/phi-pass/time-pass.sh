#!/bin/sh
# The --phi-estimate expected pass alone, timed for two builds alternately on one state:
# usage: sh time-pass.sh BEFORE AFTER CORPUS K ITERATIONS ROUNDS THREADS
# Trains ITERATIONS once (counts' φ, 16 threads). Then, ROUNDS times for each build in turn, runs
# `train --resume -n 1 --phi-estimate expected -j THREADS` on a copy of that model: one iteration
# more, the same for both builds, and the pass after it. Pinned to the first THREADS cores where
# taskset is there. Prints each pass's seconds, and whether the two builds wrote the same φ.
set -eu
before=$1 after=$2 corpus=$3 K=$4 n=$5 rounds=$6 threads=$7
m=$(mktemp -d)
"$after" train "$corpus" -K "$K" --model collapsed --device cpu -j 16 -n "$n" -s 1 --phi-estimate counts \
    -e 0 --doc-topics none -q -o "$m/model"
pin=""
command -v taskset > /dev/null && pin="taskset -c 0-$((threads - 1))"
i=0
while [ "$i" -lt "$rounds" ]; do
    for b in before after; do
        eval bin=\$$b
        rm -rf "$m/run"
        cp -r "$m/model" "$m/run"
        $pin "$bin" train --resume "$m/run" -n 1 --phi-estimate expected -j "$threads" > "$m/log" 2>&1
        echo "$(basename "$corpus") K=$K n=$n threads=$threads $b: $(tail -1 "$m/run/log.csv" | awk -F, '{print $NF}') s"
        cp "$m/run/phi.npy" "$m/phi-$b.npy"
    done
    i=$((i + 1))
done
cmp -s "$m/phi-before.npy" "$m/phi-after.npy" && echo "the same φ from both builds" || echo "the builds' φ differ"
rm -rf "$m"
